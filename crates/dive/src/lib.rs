//! Dive for Rust: build AI agents on the leading LLMs.
//!
//! This facade re-exports the vocabulary crate [`dive_core`] and the engine [`dive_agent`]
//! ([`Agent`], [`RunOptions`], [`ResponseStream`]…) at its root, and each optional crate as a
//! module behind a feature:
//!
//! | Feature | Module | What it adds |
//! |---|---|---|
//! | `anthropic` | `dive::anthropic` | the Anthropic Messages API provider (enables `provider`) |
//! | `openai` | `dive::openai` | the OpenAI provider: Responses API and Chat Completions (enables `provider`) |
//! | `ollama` | `dive::ollama` | Ollama, local models via the native `/api/chat` (enables `provider`) |
//! | `mistral` | `dive::mistral` | Mistral's Chat Completions (enables `provider`) |
//! | `openrouter` | `dive::openrouter` | OpenRouter, any `org/model` id (enables `provider`) |
//! | `grok` | `dive::grok` | xAI Grok through the Responses API (enables `provider`) |
//! | `google` | `dive::google` | the Google Gemini API provider (enables `provider`) |
//! | `deepinfra`, `groq`, `together` | `dive::compatible` | OpenAI-compatible vendors as profiles (enables `provider`) |
//! | `openai-compatible` | `dive::openai_wire` | any OpenAI-compatible endpoint (`openai-compatible/<model>`, base URL from `OPENAI_COMPATIBLE_BASE_URL`) |
//! | `provider` | `dive::provider` | shared HTTP plumbing: client, retry policy, SSE, `ProviderError` |
//! | `session`, `sqlite` | `dive::session` | session stores: memory, JSONL files, SQLite |
//! | `postgres` | `dive::postgres` | the scale-out store on PostgreSQL: sessions, leases fenced by attempt numbers, an intent-before-effect journal, a run queue |
//! | `toolkit` | `dive::toolkit` | built-in tools confined to a workspace |
//! | `permission` | `dive::permission` | permission modes, rules, dialogs, the permission hook |
//! | `skill` | `dive::skill` | agent skills: `SKILL.md` files, discovery, the `Skill` tool as an extension |
//! | `subagent` | `dive::subagent` | subagents: definitions and agent files, the `Agent`, `Monitor`, `TaskStop` and `TodoWrite` tools |
//! | `mcp` | `dive::mcp` | MCP on `rmcp`: clients whose tools are a `Toolset`, `mcpServers` config, a manager, an MCP server for dive tools |
//! | `a2a` | `dive::a2a` | A2A 1.0: an agent served as an A2A endpoint (JSON-RPC, SSE, tasks in a session store), `RemoteAgent` client, a remote agent as a tool |
//! | `otel` | `dive::otel` | OpenTelemetry: `OtelTracer` (GenAI `invoke_agent`/`chat`/`execute_tool` spans, metrics), W3C `traceparent` helpers, `otlp::init_from_env` |
//! | `memory`, `memory-embedders` | `dive::memory` | short-term windows, long-term memory recalled into a model-only reminder, write policies, hybrid search, in-memory and SQLite vector stores, the memory tool; HTTP embedders |
//!
//! `dive::model("vendor/model")` builds any compiled-in provider from a model spec (an explicit
//! `vendor/` prefix wins, otherwise the model name's prefix picks the vendor); a vendor that is
//! not compiled in is an error naming the feature to enable. A [`Registry`] of your own adds
//! your providers ([`Registry::register`]).
//!
//! ```
//! use dive::{Message, Role};
//! let m = Message::user("Hello");
//! assert_eq!(m.role, Role::User);
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use dive_agent::*;
pub use dive_core::*;

mod registry;
#[cfg(feature = "provider")]
pub use registry::model_with;
pub use registry::{
    ModelError, ModelOptions, Registration, Registry, Vendor, catalog, model, resolve_model, vendors,
};

/// Session stores (feature `session`; `SqliteStore` with feature `sqlite`).
#[cfg(feature = "session")]
#[cfg_attr(docsrs, doc(cfg(feature = "session")))]
pub use dive_session as session;

/// Built-in tools (feature `toolkit`): [`dive_toolkit`].
#[cfg(feature = "toolkit")]
#[cfg_attr(docsrs, doc(cfg(feature = "toolkit")))]
pub use dive_toolkit as toolkit;

/// Permissions (feature `permission`): [`dive_permission`].
#[cfg(feature = "permission")]
#[cfg_attr(docsrs, doc(cfg(feature = "permission")))]
pub use dive_permission as permission;

/// Agent skills (feature `skill`): [`dive_skill`].
#[cfg(feature = "skill")]
#[cfg_attr(docsrs, doc(cfg(feature = "skill")))]
pub use dive_skill as skill;

/// Subagents and orchestration (feature `subagent`): [`dive_subagent`].
#[cfg(feature = "subagent")]
#[cfg_attr(docsrs, doc(cfg(feature = "subagent")))]
pub use dive_subagent as subagent;

/// A2A 1.0 server and client (feature `a2a`): [`dive_a2a`].
#[cfg(feature = "a2a")]
#[cfg_attr(docsrs, doc(cfg(feature = "a2a")))]
pub use dive_a2a as a2a;
/// MCP clients, configuration, manager and server (feature `mcp`): [`dive_mcp`].
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub use dive_mcp as mcp;
/// Memory: short-term windows, long-term memory, vector stores, the memory tool (feature
/// `memory`): [`dive_memory`].
#[cfg(feature = "memory")]
#[cfg_attr(docsrs, doc(cfg(feature = "memory")))]
pub use dive_memory as memory;
/// OpenTelemetry GenAI spans and metrics, trace-context helpers, OTLP/HTTP set-up (feature
/// `otel`): [`dive_otel`].
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub use dive_otel as otel;
/// The scale-out store on PostgreSQL (feature `postgres`): [`dive_postgres`].
#[cfg(feature = "postgres")]
#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
pub use dive_postgres as postgres;

/// Shared HTTP plumbing for providers (crate `dive-provider`).
#[cfg(feature = "provider")]
#[cfg_attr(docsrs, doc(cfg(feature = "provider")))]
pub use dive_provider as provider;

/// The Anthropic Messages API provider (crate `dive-anthropic`).
#[cfg(feature = "anthropic")]
#[cfg_attr(docsrs, doc(cfg(feature = "anthropic")))]
pub use dive_anthropic as anthropic;

/// The Ollama provider (crate `dive-ollama`).
#[cfg(feature = "ollama")]
#[cfg_attr(docsrs, doc(cfg(feature = "ollama")))]
pub use dive_ollama as ollama;
/// The OpenAI provider: Responses API and Chat Completions (crate `dive-openai`).
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use dive_openai as openai;

/// The Mistral provider (crate `dive-mistral`).
#[cfg(feature = "mistral")]
#[cfg_attr(docsrs, doc(cfg(feature = "mistral")))]
pub use dive_mistral as mistral;

/// The OpenRouter provider (crate `dive-openrouter`).
#[cfg(feature = "openrouter")]
#[cfg_attr(docsrs, doc(cfg(feature = "openrouter")))]
pub use dive_openrouter as openrouter;

/// The Google Gemini API provider (crate `dive-google`).
#[cfg(feature = "google")]
#[cfg_attr(docsrs, doc(cfg(feature = "google")))]
pub use dive_google as google;
/// The OpenAI wire formats and the any-endpoint provider (crate `dive-openai-wire`).
#[cfg(feature = "openai-compatible")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai-compatible")))]
pub use dive_openai_wire as openai_wire;

/// OpenAI-compatible vendor profiles: DeepInfra, Groq, Together (crate `dive-compatible`).
#[cfg(any(feature = "deepinfra", feature = "groq", feature = "together"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "deepinfra", feature = "groq", feature = "together"))))]
pub use dive_compatible as compatible;

/// The xAI Grok provider (crate `dive-grok`).
#[cfg(feature = "grok")]
#[cfg_attr(docsrs, doc(cfg(feature = "grok")))]
pub use dive_grok as grok;
