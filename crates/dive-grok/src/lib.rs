//! xAI Grok for Dive for Rust: xAI's Responses API (`https://api.x.ai/v1/responses`), built
//! on `dive-openai-wire`'s Responses [`Wire`] with an xAI [`Profile`].
//!
//! Everything the Responses client does applies: streaming, tools and tool choice, reasoning
//! replayed as encrypted reasoning items (`store: false`), `previous_response_id`, prompt
//! cache key, structured output, images. xAI's server tools (`web_search`, `x_search`,
//! `code_execution`, `collections_search`) are declared with
//! [`ToolDefinition::native`](dive_core::ToolDefinition::native) and their items are kept
//! verbatim for replay. Operator reminders go as user text (xAI has no `developer` role).
//!
//! The key comes from `XAI_API_KEY` (or, failing that, `GROK_API_KEY`); `XAI_BASE_URL`
//! overrides the endpoint.
//!
//! **Invariant:** the request is dive-openai-wire's Responses body for the same
//! [`ModelRequest`](dive_core::ModelRequest); nothing here encodes or decodes by itself.
//!
//! ```no_run
//! use dive_core::{Llm, Message, ModelRequest};
//! # async fn run() -> Result<(), dive_core::LlmError> {
//! let grok = dive_grok::builder().model("grok-4").build()?; // XAI_API_KEY
//! let reply = grok.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
//! println!("{}", reply.text_content());
//! # Ok(()) }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]
#![allow(clippy::result_large_err)] // LlmError by value on cold paths, as in dive-provider.

mod catalog;

use dive_core::{LlmError, ReminderStyle};
use dive_openai_wire::{Dialect, Profile, Responses, Wire};
use dive_provider::{ProviderBuilder, Vendor};

pub use catalog::{DEFAULT_MODEL, MODELS, model_info};

/// The provider name reported by the client and its errors.
pub const PROVIDER: &str = "grok";
/// The default API root.
pub const DEFAULT_BASE_URL: &str = "https://api.x.ai/v1";

/// xAI's vendor facts: `XAI_API_KEY` (or `GROK_API_KEY`), `XAI_BASE_URL`, [`DEFAULT_MODEL`],
/// the catalog.
pub const VENDOR: Vendor = Vendor::new(PROVIDER, DEFAULT_BASE_URL, DEFAULT_MODEL, model_info)
    .with_api_key_vars(&["XAI_API_KEY", "GROK_API_KEY"])
    .with_base_url_var("XAI_BASE_URL");

dive_openai_wire::vendor! {
    /// xAI as the vendor of a [`Wire`]: `Grok::builder()` starts from [`profile`].
    pub struct GrokVendor: Speaks<Responses> = profile();
    /// The Grok client: the Responses API on dive-provider's `HttpProvider` with the xAI
    /// [`profile`].
    pub type Grok;
}

/// xAI's wire differences from OpenAI's Responses API: reminders as user text.
#[must_use]
pub fn dialect() -> Dialect {
    Dialect::openai().with_reminders(ReminderStyle::UserText).with_native_compaction(false)
}

/// xAI as a [`Profile`]: [`VENDOR`] and [`dialect`].
///
/// ```
/// let p = dive_grok::profile();
/// assert_eq!((p.vendor.name, p.vendor.api_key_vars), ("grok", &["XAI_API_KEY", "GROK_API_KEY"][..]));
/// ```
#[must_use]
pub fn profile() -> Profile {
    Profile::new(VENDOR, dialect())
}

/// A builder for a Grok client with the key read from `XAI_API_KEY` (else `GROK_API_KEY`) and
/// `XAI_BASE_URL`.
pub fn builder() -> ProviderBuilder<Wire<Responses, GrokVendor>> {
    Grok::builder_from_env()
}

/// A client from `XAI_API_KEY` (or `GROK_API_KEY`) and (optionally) `XAI_BASE_URL`.
///
/// # Errors
/// `Authentication` when neither key variable is set.
pub fn from_env() -> Result<Grok, LlmError> {
    Grok::from_env()
}
