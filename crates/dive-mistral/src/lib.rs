//! Mistral for Dive for Rust: Mistral's Chat Completions API
//! (`https://api.mistral.ai/v1/chat/completions`), built on `dive-openai-wire`'s Chat Completions
//! client with a Mistral [`Profile`].
//!
//! What differs from OpenAI, and is handled here:
//! - `finish_reason: "model_length"` (the context window is full) is kept as the stop reason,
//!   which dive-core classifies as [`StopKind::ContextLimit`](dive_core::StopKind::ContextLimit),
//!   not as an output limit.
//! - Tool-call ids must be 9 characters `[a-zA-Z0-9]`: ids from another provider in the
//!   history (`toolu_…`, `call_…`) are rewritten to a stable 9-character id, the same in the
//!   assistant's call and in its `tool` result ([`mistral_tool_call_id`]).
//! - No `stream_options` (Mistral sends usage in the last chunk anyway), no `refusal` field
//!   on assistant messages, no `file` content parts (PDFs go as `document_url` parts).
//! - `max_tokens` (not `max_completion_tokens`), `system` role, reminders as user text.
//!
//! `MISTRAL_API_KEY` is required; `MISTRAL_BASE_URL` overrides the endpoint.
//!
//! **Invariant:** the request is dive-openai's Chat Completions body for the same
//! [`ModelRequest`](dive_core::ModelRequest), changed only where Mistral's API differs; the
//! caller's history is never modified.
//!
//! ```no_run
//! use dive_core::{Llm, Message, ModelRequest};
//! # async fn run() -> Result<(), dive_core::LlmError> {
//! let llm = dive_mistral::builder().model("mistral-medium-latest").build()?; // MISTRAL_API_KEY read
//! let reply = llm.generate(ModelRequest::new(vec![Message::user("Bonjour !")])).await?;
//! println!("{}", reply.text_content());
//! # Ok(()) }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]
#![allow(clippy::result_large_err)] // LlmError by value on cold paths, as in dive-provider.

mod catalog;
mod dialect;

use dive_core::LlmError;
use dive_openai_wire::{Chat, Profile, Wire};
use dive_provider::{ProviderBuilder, Vendor};

pub use catalog::{DEFAULT_MODEL, MODELS, model_info};
pub use dialect::{dialect, mistral_tool_call_id};

/// The provider name reported by the client and its errors.
pub const PROVIDER: &str = "mistral";
/// The default API root.
pub const DEFAULT_BASE_URL: &str = "https://api.mistral.ai/v1";

/// Mistral's vendor facts: `MISTRAL_API_KEY`, `MISTRAL_BASE_URL`, [`DEFAULT_MODEL`], the catalog.
pub const VENDOR: Vendor = Vendor::new(PROVIDER, DEFAULT_BASE_URL, DEFAULT_MODEL, model_info)
    .with_api_key_vars(&["MISTRAL_API_KEY"])
    .with_base_url_var("MISTRAL_BASE_URL");

dive_openai_wire::vendor! {
    /// Mistral as the vendor of a [`Wire`]: `Mistral::builder()` starts from [`profile`].
    pub struct MistralVendor: Speaks<Chat> = profile();
    /// The Mistral client: Chat Completions on dive-provider's `HttpProvider` with the
    /// Mistral [`profile`] (`Mistral::from_env()`, or `Mistral::builder()` reading no
    /// environment).
    pub type Mistral;
}

/// Mistral as a [`Profile`]: [`VENDOR`] and [`dialect`].
///
/// ```
/// let p = dive_mistral::profile();
/// assert_eq!((p.vendor.name, p.vendor.api_key_vars), ("mistral", &["MISTRAL_API_KEY"][..]));
/// ```
#[must_use]
pub fn profile() -> Profile {
    Profile::new(VENDOR, dialect())
}

/// A builder for a Mistral client with `MISTRAL_API_KEY` and `MISTRAL_BASE_URL` read (key,
/// base URL, model, retry policy, headers… can be set on it).
pub fn builder() -> ProviderBuilder<Wire<Chat, MistralVendor>> {
    Mistral::builder_from_env()
}

/// A client from `MISTRAL_API_KEY` and (optionally) `MISTRAL_BASE_URL`.
///
/// # Errors
/// `Authentication` when `MISTRAL_API_KEY` is unset.
pub fn from_env() -> Result<Mistral, LlmError> {
    Mistral::from_env()
}
