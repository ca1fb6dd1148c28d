//! OpenAI for Dive for Rust: the Responses API (the default, [`OpenAi`]) and Chat Completions
//! ([`ChatCompletions`]), both streaming and not.
//!
//! Tools with tool choice and parallel-call control, reasoning effort and summaries with
//! encrypted reasoning items replayed, structured output (strict JSON schemas sanitised by
//! [`strict_schema`]), images and PDFs, prompt cache key, service tier,
//! `previous_response_id`, operator reminders as `developer` messages, provider-run tool
//! items (web search, code interpreter, file search, remote MCP) kept verbatim for replay,
//! message `phase` preserved, and cost from the model catalog ([`MODELS`]).
//!
//! **Reuse by OpenAI-compatible vendors:** a [`Profile`] names the vendor (provider name,
//! base URL, key and base-URL variables, default model, catalog) and its [`Dialect`] (system
//! role, reminder style, `max_tokens` key, reasoning fields, finish-reason renames,
//! unsupported keys, reported cost, a body hook). `ChatCompletions::builder_for(profile)` and
//! `OpenAi::builder_for(profile)` build clients for it; the encoders, decoders and stream
//! mappers are public in [`chat`] and [`responses`].
//!
//! **Invariant:** the request sent is derived from the [`ModelRequest`](dive_core::ModelRequest)
//! alone; the caller's history is never modified (unanswered tool calls are answered and
//! reminders rendered on a copy), and the API key appears only in the `Authorization` header.
//!
//! ```no_run
//! use dive_core::{Llm, Message, ModelRequest, Reasoning, ReasoningEffort};
//! use dive_openai::OpenAi;
//! # async fn run() -> Result<(), dive_core::LlmError> {
//! let gpt = OpenAi::builder().model("gpt-5.5").build()?; // OPENAI_API_KEY, OPENAI_BASE_URL
//! let request = ModelRequest::new(vec![Message::user("Why is the sky blue?")])
//!     .with_reasoning(Reasoning::effort(ReasoningEffort::Low));
//! let response = gpt.generate(request).await?;
//! println!("{} (cost {:?})", response.text_content(), response.usage.cost);
//! # Ok(()) }
//! ```
#![deny(missing_docs)]
#![allow(clippy::result_large_err)] // ProviderError on cold paths, as in dive-provider.

mod catalog;
pub mod chat;
mod events;
mod profile;
pub mod responses;
mod schema;
mod transport;
mod wire;

pub use catalog::{DEFAULT_CHAT_MODEL, DEFAULT_MODEL, MODELS, is_reasoning_model, model_info};
pub use chat::ChatCompletions;
pub use events::{Events, Mapper};
pub use profile::{BodyHook, CatalogFn, Dialect, Profile};
pub use responses::OpenAi;
pub use schema::strict_schema;
pub use transport::Builder;

/// The provider name reported by the OpenAI clients and their errors.
pub const PROVIDER: &str = "openai";
/// The default API root.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
