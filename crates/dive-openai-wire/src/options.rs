//! [`OpenAiOptions`]: the request fields only OpenAI-format APIs know (`prompt_cache_key`,
//! `previous_response_id`, `service_tier`), carried as a typed option on a
//! [`ModelRequest`] and read by the encoders here. Any other provider refuses them, and so
//! does an OpenAI-format vendor whose dialect cannot send one of them.

use dive_core::{LlmErrorKind, ModelRequest, ProviderOption};
use dive_provider::ProviderError;

use crate::dialect::Dialect;

/// OpenAI-only request fields.
///
/// ```
/// use dive_core::{Message, ModelRequest};
/// use dive_openai_wire::OpenAiOptions;
/// let request = ModelRequest::new(vec![Message::user("hi")])
///     .with_option(OpenAiOptions::default().with_prompt_cache_key("user-42"));
/// assert_eq!(request.options.get::<OpenAiOptions>().unwrap().prompt_cache_key.as_deref(), Some("user-42"));
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct OpenAiOptions {
    /// Prompt cache routing key.
    pub prompt_cache_key: Option<String>,
    /// Chain on a stored response instead of resending history (Responses API only).
    pub previous_response_id: Option<String>,
    /// Service tier (`auto`, `default`, `flex`, `priority`).
    pub service_tier: Option<String>,
    /// Server-side compaction (Responses API only): past this many input tokens the server
    /// compacts the conversation and answers with an opaque `compaction` item, replayed on
    /// later requests (`context_management: [{"type": "compaction", "compact_threshold"}]`).
    pub compact_threshold: Option<u64>,
}

impl OpenAiOptions {
    /// Sets the prompt cache key.
    #[must_use]
    pub fn with_prompt_cache_key(mut self, key: impl Into<String>) -> Self {
        self.prompt_cache_key = Some(key.into());
        self
    }

    /// Chains on a stored response (Responses API).
    #[must_use]
    pub fn with_previous_response_id(mut self, id: impl Into<String>) -> Self {
        self.previous_response_id = Some(id.into());
        self
    }

    /// Sets the service tier.
    #[must_use]
    pub fn with_service_tier(mut self, tier: impl Into<String>) -> Self {
        self.service_tier = Some(tier.into());
        self
    }

    /// Turns on server-side compaction past `tokens` input tokens (Responses API).
    #[must_use]
    pub fn with_compact_threshold(mut self, tokens: u64) -> Self {
        self.compact_threshold = Some(tokens);
        self
    }
}

impl ProviderOption for OpenAiOptions {
    const PROVIDER: &'static str = "openai";
    const NAME: &'static str = "OpenAiOptions";
}

/// The effective OpenAI fields of a request: the typed option wins over the request's own
/// fields.
pub(crate) fn prompt_cache_key(request: &ModelRequest) -> Option<&str> {
    let typed = request.options.get::<OpenAiOptions>().and_then(|o| o.prompt_cache_key.as_deref());
    typed.or(request.prompt_cache_key.as_deref())
}

pub(crate) fn previous_response_id(request: &ModelRequest) -> Option<&str> {
    request.options.get::<OpenAiOptions>().and_then(|o| o.previous_response_id.as_deref())
}

pub(crate) fn service_tier(request: &ModelRequest) -> Option<&str> {
    request.options.get::<OpenAiOptions>().and_then(|o| o.service_tier.as_deref())
}

pub(crate) fn compact_threshold(request: &ModelRequest) -> Option<u64> {
    request.options.get::<OpenAiOptions>().and_then(|o| o.compact_threshold)
}

/// Refuses what this vendor cannot honour: another provider's typed option, and an
/// [`OpenAiOptions`] field the API (`chat`: no `previous_response_id`) or the dialect
/// (its unsupported keys) cannot send.
pub(crate) fn check_options(
    provider: &'static str,
    request: &ModelRequest,
    dialect: &Dialect,
    chat: bool,
) -> Result<(), ProviderError> {
    request
        .options
        .refuse_foreign(provider, |k| k.is::<OpenAiOptions>())
        .map_err(|e| ProviderError::new(provider, LlmErrorKind::InvalidRequest, e.message))?;
    let Some(o) = request.options.get::<OpenAiOptions>() else { return Ok(()) };
    let set = [
        ("prompt_cache_key", o.prompt_cache_key.is_some()),
        ("previous_response_id", o.previous_response_id.is_some()),
        ("service_tier", o.service_tier.is_some()),
        ("compact_threshold", o.compact_threshold.is_some()),
    ];
    let responses_only = |key: &str| matches!(key, "previous_response_id" | "compact_threshold");
    let refused = set.iter().find(|(key, on)| {
        *on && (dialect.unsupported.contains(key)
            || (chat && responses_only(key))
            || (*key == "compact_threshold" && !dialect.native_compaction))
    });
    match refused {
        None => Ok(()),
        Some((key, _)) => Err(ProviderError::new(
            provider,
            LlmErrorKind::InvalidRequest,
            format!(
                "the request sets OpenAiOptions::{key}, which the {provider} provider cannot send: \
                 remove it{}",
                if responses_only(key) { " or use the Responses API" } else { "" }
            ),
        )),
    }
}
