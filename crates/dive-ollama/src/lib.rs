//! Ollama for Dive for Rust: local open-weight models through Ollama's native `/api/chat`.
//!
//! [`Ollama`] is dive-provider's generic [`HttpProvider`](dive_provider::HttpProvider) over
//! this crate's wire format, [`Chat`], its catalog ([`MODELS`]) and its vendor facts
//! ([`VENDOR`]), non-streaming and streaming. The native endpoint
//! was chosen over Ollama's OpenAI- and Anthropic-compatible ones because it is the only one
//! that exposes everything Ollama does: `think` levels and the separate `thinking` field,
//! `options` (`num_ctx`, sampling, `num_predict`, …), `keep_alive`, `format` with a JSON
//! schema, and exact token counts in the final `done` line.
//!
//! - Streaming is NDJSON, one JSON object a line ([`decode_ndjson`](dive_provider::decode_ndjson) copes with lines split
//!   across reads at any byte). The last line has `done: true`, `done_reason` and the token
//!   counts; a stream that ends without it is an interrupted stream, never a success.
//! - Tool calls arrive whole (Ollama does not stream their arguments) and get an id when the
//!   server sends none; tool results are sent back as `tool` messages with `tool_name`.
//! - Reasoning: the `thinking` field, and `<think>…</think>` inside `content` (models run
//!   without `think`), both become [`Thinking`](dive_core::Content::Thinking) blocks.
//! - Images are sent as base64 in `images` (Ollama cannot fetch URLs).
//!
//! No API key is needed; `OLLAMA_HOST` (default `http://localhost:11434`) selects the server,
//! and `OLLAMA_API_KEY`, when set, is sent as a bearer token (Ollama's hosted service).
//!
//! **Invariant:** the request sent is derived from the [`ModelRequest`](dive_core::ModelRequest)
//! alone and the caller's history is never modified; a key, when one is used, appears only in
//! the `Authorization` header.
//!
//! ```no_run
//! use dive_ollama::{Ollama, OllamaBuilderExt};
//! use dive_core::{Llm, Message, ModelRequest};
//! # async fn run() -> Result<(), dive_core::LlmError> {
//! let llm = Ollama::builder_from_env().model("qwen3:8b").num_ctx(16_384).build()?;
//! let reply = llm.generate(ModelRequest::new(vec![Message::user("Why is the sky blue?")])).await?;
//! println!("{}", reply.text_content());
//! # Ok(()) }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]
#![allow(clippy::result_large_err)] // ProviderError on cold paths, as in dive-provider.

mod api;
mod body;
mod catalog;
mod decode;
mod encode;
mod host;
mod options;
mod response;
mod stream;
mod think;

pub use api::{Chat, Ollama, OllamaBuilder, OllamaBuilderExt, VENDOR};
pub use body::Body;
pub use catalog::{DEFAULT_MODEL, MODELS, model_info};
pub use host::{DEFAULT_HOST, parse_host};
pub use options::OllamaOptions;
pub use stream::{ChatMapper, events, line_events};
pub use think::{ThinkSegment, ThinkSplitter};

/// The provider name reported by [`Ollama`] and its errors.
pub const PROVIDER: &str = "ollama";
