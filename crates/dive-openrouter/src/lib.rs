//! OpenRouter for Dive for Rust: any `org/model` id (`anthropic/claude-sonnet-5`,
//! `meta-llama/llama-4-maverick`, `openrouter/auto`, …) through OpenRouter's Chat Completions
//! endpoint (`https://openrouter.ai/api/v1`), built on `dive-openai-wire`'s Chat Completions client
//! with an OpenRouter [`Profile`].
//!
//! What differs from OpenAI, and is handled here:
//! - Cost: every request asks for usage accounting (`usage: {include: true}`) and the cost
//!   OpenRouter reports is kept in `Usage::cost` with source `provider`; catalog prices
//!   ([`MODELS`]) are only a fallback.
//! - Reasoning: the requested effort is kept and sent in OpenRouter's unified form,
//!   `reasoning: {effort}` (a thinking budget as `reasoning: {max_tokens}`). The
//!   `reasoning_details` array (streamed or whole) becomes one thinking block a detail, with
//!   its text (`reasoning.text`, `reasoning.summary`) and `signature`; the detail itself is
//!   kept in `metadata.openrouter.reasoning_detail` and sent back unmodified in the assistant
//!   message's `reasoning_details`, as OpenRouter asks for tool calling with reasoning
//!   models. Models that send only `reasoning` text get a plain thinking block.
//! - Keep-alive comments (`: OPENROUTER PROCESSING`) in streams are skipped by the SSE decoder.
//! - App attribution: add the `HTTP-Referer` and `X-Title` headers with
//!   [`header`](dive_provider::ProviderBuilder::header).
//!
//! `OPENROUTER_API_KEY` is required; `OPENROUTER_BASE_URL` overrides the endpoint.
//!
//! **Invariant:** the request is dive-openai-wire's Chat Completions body for the same
//! [`ModelRequest`], changed only where OpenRouter differs.
//!
//! ```no_run
//! use dive_core::{Llm, Message, ModelRequest};
//! # async fn run() -> Result<(), dive_core::LlmError> {
//! let llm = dive_openrouter::builder()
//!     .model("meta-llama/llama-4-maverick")
//!     .header("X-Title", "My app")
//!     .build()?; // OPENROUTER_API_KEY
//! let reply = llm.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
//! println!("{} (cost {:?})", reply.text_content(), reply.usage.cost);
//! # Ok(()) }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]
#![allow(clippy::result_large_err)] // LlmError by value on cold paths, as in dive-provider.

mod catalog;

use dive_core::{LlmError, ModelRequest, ReasoningEffort, ThinkingMode};
use dive_openai_wire::{BodyHook, Chat, Dialect, Profile, Wire};
use dive_provider::{ProviderBuilder, Vendor};
use serde_json::{Map, Value, json};

pub use catalog::{DEFAULT_MODEL, MODELS, model_info};

/// The provider name reported by the client and its errors.
pub const PROVIDER: &str = "openrouter";
/// The default API root.
pub const DEFAULT_BASE_URL: &str = "https://openrouter.ai/api/v1";

/// OpenRouter's vendor facts: `OPENROUTER_API_KEY`, `OPENROUTER_BASE_URL`, [`DEFAULT_MODEL`],
/// the catalog.
pub const VENDOR: Vendor = Vendor::new(PROVIDER, DEFAULT_BASE_URL, DEFAULT_MODEL, model_info)
    .with_api_key_vars(&["OPENROUTER_API_KEY"])
    .with_base_url_var("OPENROUTER_BASE_URL");

dive_openai_wire::vendor! {
    /// OpenRouter as the vendor of a [`Wire`]: `OpenRouter::builder()` starts from [`profile`].
    pub struct OpenRouterVendor: Speaks<Chat> = profile();
    /// The OpenRouter client: Chat Completions on dive-provider's `HttpProvider` with the
    /// OpenRouter [`profile`].
    pub type OpenRouter;
}

/// `reasoning_effort` → `reasoning: {effort}`; a budget → `reasoning: {max_tokens}`; thinking
/// disabled → `reasoning: {enabled: false}`; and usage accounting on.
fn rewrite(request: &ModelRequest, body: &mut Map<String, Value>) {
    let mut reasoning = Map::new();
    if let Some(effort) = body.remove("reasoning_effort") {
        reasoning.insert("effort".into(), effort);
    }
    if let Some(r) = &request.reasoning {
        if let Some(budget) = r.budget_tokens {
            reasoning.insert("max_tokens".into(), json!(budget));
            reasoning.remove("effort");
        }
        if r.thinking == Some(ThinkingMode::Disabled) || r.effort == Some(ReasoningEffort::None) {
            reasoning = Map::new();
            reasoning.insert("enabled".into(), json!(false));
        }
    }
    if !reasoning.is_empty() {
        body.entry("reasoning").or_insert(Value::Object(reasoning));
    }
    body.entry("usage").or_insert(json!({"include": true}));
}

/// The metadata key under which a thinking block keeps its OpenRouter reasoning detail.
pub const METADATA_KEY: &str = "openrouter";

/// OpenRouter's wire differences: [`Dialect::compatible`] plus provider-reported cost,
/// `reasoning_details` kept (under [`METADATA_KEY`]) and sent back unmodified, and the body
/// hook above.
#[must_use]
pub fn dialect() -> Dialect {
    Dialect::compatible()
        .with_reasoning_fields(&["reasoning", "reasoning_content"])
        .with_reasoning_details(Some(METADATA_KEY))
        .with_reported_cost(Some("provider"))
        .with_file_parts(true)
        .with_body_hook(BodyHook::new(rewrite))
}

/// OpenRouter as a [`Profile`]: [`VENDOR`] and [`dialect`].
///
/// ```
/// let p = dive_openrouter::profile();
/// assert_eq!((p.vendor.name, p.vendor.default_base_url), ("openrouter", "https://openrouter.ai/api/v1"));
/// ```
#[must_use]
pub fn profile() -> Profile {
    Profile::new(VENDOR, dialect())
}

/// A builder for an OpenRouter client with `OPENROUTER_API_KEY` and `OPENROUTER_BASE_URL`
/// read (key, base URL, model, retry policy, headers… can be set on it).
pub fn builder() -> ProviderBuilder<Wire<Chat, OpenRouterVendor>> {
    OpenRouter::builder_from_env()
}

/// A client from `OPENROUTER_API_KEY` and (optionally) `OPENROUTER_BASE_URL`.
///
/// # Errors
/// `Authentication` when `OPENROUTER_API_KEY` is unset.
pub fn from_env() -> Result<OpenRouter, LlmError> {
    OpenRouter::from_env()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive_core::{Message, Reasoning};

    fn body(request: &ModelRequest) -> Value {
        OpenRouter::builder().api_key("k").build().unwrap().request_body(request, false).unwrap()
    }

    #[test]
    fn effort_and_budgets_use_the_unified_reasoning_object() {
        let ask = |r: Reasoning| body(&ModelRequest::new(vec![Message::user("hi")]).with_reasoning(r));
        let b = ask(Reasoning::effort(ReasoningEffort::High));
        assert_eq!(b["reasoning"], json!({"effort": "high"}));
        assert!(b.get("reasoning_effort").is_none());
        assert_eq!(ask(Reasoning::budget(2048))["reasoning"], json!({"max_tokens": 2048}));
        assert_eq!(ask(Reasoning::effort(ReasoningEffort::None))["reasoning"], json!({"enabled": false}));
        assert_eq!(b["usage"], json!({"include": true}));
        assert_eq!(body(&ModelRequest::new(vec![Message::user("hi")])).get("reasoning"), None);
    }
}
