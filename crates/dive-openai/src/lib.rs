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
//! The wire formats themselves live in `dive-openai-wire` (re-exported here: [`chat`],
//! [`responses`], [`Profile`], [`Dialect`], …), so OpenAI-compatible vendors use them without
//! depending on this crate. This crate is OpenAI's facts: its [`profile`] (key and base-URL
//! variables, default models, the catalog [`MODELS`], which models reject sampling
//! parameters) and the client aliases [`OpenAi`] and [`ChatCompletions`].
//!
//! **Invariant:** the request sent is derived from the [`ModelRequest`](dive_core::ModelRequest)
//! alone; the caller's history is never modified (unanswered tool calls are answered and
//! reminders rendered on a copy), and the API key appears only in the `Authorization` header.
//!
//! ```no_run
//! use dive_core::{Llm, Message, ModelRequest, Reasoning, ReasoningEffort};
//! use dive_openai::OpenAi;
//! # async fn run() -> Result<(), dive_core::LlmError> {
//! let gpt = OpenAi::builder_from_env().model("gpt-5.5").build()?; // OPENAI_API_KEY, OPENAI_BASE_URL
//! let request = ModelRequest::new(vec![Message::user("Why is the sky blue?")])
//!     .with_reasoning(Reasoning::effort(ReasoningEffort::Low));
//! let response = gpt.generate(request).await?;
//! println!("{} (cost {:?})", response.text_content(), response.usage.cost);
//! # Ok(()) }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

mod catalog;

pub use catalog::{DEFAULT_CHAT_MODEL, DEFAULT_MODEL, MODELS, is_reasoning_model, model_info};
pub use dive_openai_wire::{
    Api, BodyHook, Chat, CompatibleChat, CompatibleResponses, Dialect, OpenAiOptions, Profile, Responses,
    Speaks, Wire, builder_for, chat, compatible, responses, strict_schema,
};
use dive_provider::{HttpProvider, ProviderBuilder, Vendor};

/// The provider name reported by the OpenAI clients and their errors.
pub const PROVIDER: &str = "openai";
/// The default API root.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// OpenAI's vendor facts: `OPENAI_API_KEY`, `OPENAI_BASE_URL`, [`DEFAULT_MODEL`], the catalog.
pub const VENDOR: Vendor = Vendor::new(PROVIDER, DEFAULT_BASE_URL, DEFAULT_MODEL, model_info)
    .with_api_key_vars(&["OPENAI_API_KEY"])
    .with_base_url_var("OPENAI_BASE_URL");

/// OpenAI as the vendor of a [`Wire`]: `OpenAi::builder()` starts from [`profile`]
/// (Responses: [`DEFAULT_MODEL`]; Chat Completions: [`DEFAULT_CHAT_MODEL`]).
#[derive(Debug, Clone, Copy)]
pub struct OpenAiVendor;

impl Speaks<Responses> for OpenAiVendor {
    fn profile() -> Profile {
        profile()
    }
}

impl Speaks<Chat> for OpenAiVendor {
    fn profile() -> Profile {
        profile().with_default_model(DEFAULT_CHAT_MODEL)
    }
}

/// The OpenAI Responses API as an [`Llm`](dive_core::Llm): the default way to call OpenAI
/// (`OpenAi::from_env()`, or `OpenAi::builder()` reading no environment; default model
/// [`DEFAULT_MODEL`]).
pub type OpenAi = HttpProvider<Wire<Responses, OpenAiVendor>>;

/// Builds an [`OpenAi`] (Responses API) client.
pub type OpenAiBuilder = ProviderBuilder<Wire<Responses, OpenAiVendor>>;

/// OpenAI's Chat Completions as an [`Llm`](dive_core::Llm) (`ChatCompletions::from_env()`,
/// default model [`DEFAULT_CHAT_MODEL`]).
pub type ChatCompletions = HttpProvider<Wire<Chat, OpenAiVendor>>;

/// Builds a [`ChatCompletions`] client.
pub type ChatCompletionsBuilder = ProviderBuilder<Wire<Chat, OpenAiVendor>>;

/// OpenAI's own wire behaviour: [`Dialect::openai`], with its reasoning models
/// ([`is_reasoning_model`]) sent no sampling parameters.
#[must_use]
pub fn dialect() -> Dialect {
    Dialect::openai().with_rejects_sampling(is_reasoning_model)
}

/// OpenAI itself as a [`Profile`]: [`VENDOR`] and [`dialect`].
///
/// ```
/// let p = dive_openai::profile();
/// assert_eq!((p.vendor.name, p.vendor.api_key_vars, p.vendor.default_model), ("openai", &["OPENAI_API_KEY"][..], "gpt-6-luna"));
/// ```
#[must_use]
pub fn profile() -> Profile {
    Profile::new(VENDOR, dialect())
}
