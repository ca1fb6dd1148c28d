//! The Google Gemini API for Dive for Rust.
//!
//! [`Gemini`] is dive-provider's generic [`HttpProvider`](dive_provider::HttpProvider) over
//! this crate's wire format, [`GenerateContent`] (`generateContent` and
//! `streamGenerateContent?alt=sse`), its catalog ([`MODELS`]) and its vendor facts
//! ([`VENDOR`]): system instruction, function declarations (JSON Schemas
//! converted by [`convert_schema`], a typed [`SchemaError`] where Gemini cannot take one),
//! function calling config (auto / any / none / one function), parallel function calls,
//! thinking (level or budget, thoughts included) with **thought signatures replayed** on the
//! parts they came with, images, PDFs and other inline or file-URI media, multimodal
//! function responses, structured output, finish reasons lowercased (classified by
//! [`dive_core::classify_stop_reason`]), usage with thoughts and cached tokens, and cost from
//! the model catalog ([`MODELS`]). Streamed function-call arguments (`partialArgs`, turned on
//! with [`GeminiOptions::with_stream_function_call_arguments`]) are assembled into one call each, and a call without a name never
//! reaches the engine; `groundingMetadata` is kept on the response (streamed or not) and its
//! supports become `google_grounding` citations on the text they cite.
//!
//! # Replay data
//! A block decoded from Gemini keeps what replay needs in `metadata.google`:
//! `thought_signature` (sent back as the part's `thoughtSignature`) and, on tool calls,
//! `call_id: true` when the call id came from Gemini. Gemini usually gives function calls no
//! id: they get a stable synthetic one (`call_<responseId>_<n>`), never sent back; a tool
//! result finds its call by that id, takes the call's function name, and results are sent
//! in the order of their calls. Parts this version does not model are kept as
//! `{"type": "google_part", "part": …}` blocks and replayed verbatim.
//!
//! **Invariant:** the request sent is derived from the [`ModelRequest`](dive_core::ModelRequest)
//! alone; the caller's history is never modified (unanswered tool calls are answered and
//! reminders rendered on a copy), and the API key appears only in the `x-goog-api-key` header.
//!
//! ```no_run
//! use dive_google::Gemini;
//! use dive_core::{Llm, Message, ModelRequest, Reasoning, ReasoningEffort};
//! # async fn run() -> Result<(), dive_core::LlmError> {
//! let gemini = Gemini::builder().model("gemini-3.5-flash").build()?;
//! let request = ModelRequest::new(vec![Message::user("Why is the sky blue?")])
//!     .with_reasoning(Reasoning::effort(ReasoningEffort::Low));
//! let response = gemini.generate(request).await?;
//! println!("{} (cost {:?})", response.text_content(), response.usage.cost);
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
mod error;
mod grounding;
mod meta;
mod options;
mod partial;
mod response;
mod schema;
mod stream;

pub use api::{
    DEFAULT_API_VERSION, DEFAULT_BASE_URL, DEFAULT_MAX_TOKENS, Gemini, GeminiBuilder, GeminiBuilderExt,
    GenerateContent, VENDOR,
};
pub use body::Body;
pub use catalog::{
    DEFAULT_MODEL, MODELS, ThinkingControl, model_info, supports_multimodal_function_response,
    thinking_control,
};
pub use options::{GeminiOptions, SafetySetting};
pub use schema::{SchemaError, convert_schema};
pub use stream::{ChunkDecoder, events};

/// The provider name reported by [`Gemini`] and its errors.
pub const PROVIDER: &str = "google";
