//! The Anthropic Messages API for Dive for Rust.
//!
//! [`Anthropic`] implements [`dive_core::Llm`], non-streaming and streaming: system prompt,
//! tools with tool choice and parallel-call control, thinking (budget or adaptive; signatures
//! and redacted thinking replayed exactly), effort, automatic prompt caching with spaced
//! breakpoints and 5m/1h TTL, images and documents (base64, URL, file id), citations,
//! structured output, stop sequences, server tools (web search, web fetch, code execution)
//! whose result blocks are kept verbatim, provider-defined toolsets (computer use over your own
//! [`Computer`] with [`ComputerUse`], the text editor and bash tool types, any other with
//! [`declare`]) sent as Anthropic's own `tools[]` entries, server-side compaction (the `compaction` block kept
//! with its summary and replayed verbatim, its separately billed usage counted), reminders
//! rendered per model, and cost from the model catalog ([`MODELS`]).
//!
//! The crate is a wire format on dive-provider's generic provider: [`Messages`] (typed body
//! [`MessagesBody`], response decoder, [`MessagesMapper`]), the catalog and the vendor facts
//! ([`VENDOR`]); [`Anthropic`] is `dive_provider::HttpProvider<Messages>`. Anthropic-only
//! request settings travel as [`AnthropicOptions`].
//!
//! **Invariant:** the request sent is derived from the [`ModelRequest`](dive_core::ModelRequest)
//! alone; the caller's history is never modified (unanswered tool calls are answered and
//! reminders rendered on a copy), and the API key appears only in the `x-api-key` header.
//!
//! ```no_run
//! use dive_anthropic::Anthropic;
//! use dive_core::{Llm, Message, ModelRequest, Reasoning};
//! # async fn run() -> Result<(), dive_core::LlmError> {
//! let claude = Anthropic::builder().model("claude-sonnet-5-5").build()?;
//! let request = ModelRequest::new(vec![Message::user("Why is the sky blue?")])
//!     .with_reasoning(Reasoning::adaptive());
//! let response = claude.generate(request).await?;
//! println!("{} (cost {:?})", response.text_content(), response.usage.cost);
//! # Ok(()) }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]
#![allow(clippy::result_large_err)] // ProviderError on cold paths, as in dive-provider.

mod block;
mod cache;
mod catalog;
mod compact;
mod computer;
mod decode;
mod encode;
mod messages;
mod options;
mod stream;
mod toolset;
mod wire;

pub use catalog::{DEFAULT_MODEL, MODELS, model_info, supports_system_messages};
pub use compact::ON_DEMAND_COMPACTION_BETA;
pub use computer::{
    COMPUTER_TOOLSET, COMPUTER_TOOLSET_TYPE, Computer, ComputerAction, ComputerInput, ComputerMember,
    ComputerOutput, ComputerUse, ComputerUseError, ComputerVersion, Display, ScrollDirection,
};
pub use encode::{COMPACTION_BETA, ContextManagement, MessagesBody, NativeParams, WireTool};
pub use messages::{WireCacheControl, WireMessages};
pub use options::AnthropicOptions;
pub use stream::{MessagesMapper, events, map_event};
pub use toolset::{BASH_NAME, BASH_TYPE, TEXT_EDITOR_NAME, TEXT_EDITOR_TYPE, bash, declare, text_editor};
pub use wire::{
    API_VERSION, Anthropic, AnthropicBuilder, AnthropicBuilderExt, DEFAULT_BASE_URL, DEFAULT_MAX_TOKENS,
    Messages, VENDOR,
};

/// The provider name reported by [`Anthropic`] and its errors.
pub const PROVIDER: &str = "anthropic";
