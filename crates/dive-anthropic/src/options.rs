//! [`AnthropicOptions`]: the request settings only the Messages API has, carried in
//! [`ModelRequest::options`](dive_core::ModelRequest::options).

use dive_core::{ContextEdit, Prefill, ProviderOption, Speed};

/// Anthropic-only settings of one request: beta features, server-side context edits, the
/// speed mode, the service tier and an assistant prefill.
///
/// Set it with [`ModelRequest::with_option`](dive_core::ModelRequest::with_option); any other
/// provider refuses a request carrying it (`InvalidRequest`), so it is never dropped silently.
///
/// ```
/// use dive_anthropic::AnthropicOptions;
/// use dive_core::{Message, ModelRequest};
/// let request = ModelRequest::new(vec![Message::user("hi")])
///     .with_option(AnthropicOptions::default().with_beta("interleaved-thinking-2025-05-14"));
/// assert_eq!(request.options.get::<AnthropicOptions>().unwrap().betas.len(), 1);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct AnthropicOptions {
    /// Beta feature names sent in `anthropic-beta` (the ones the request's own features need,
    /// such as context management or MCP servers, are added automatically).
    pub betas: Vec<String>,
    /// Server-side context edits (`context_management.edits`), e.g. the compaction edit
    /// `compact_20260112`.
    pub context_management: Vec<ContextEdit>,
    /// Output speed mode (`speed`).
    pub speed: Option<Speed>,
    /// Service tier: `auto` or `standard_only` (any other value is refused when sent).
    pub service_tier: Option<String>,
    /// Text the response starts with (sent as a final assistant message), and a closing tag
    /// to stop at (sent as a stop sequence).
    pub prefill: Option<Prefill>,
}

impl AnthropicOptions {
    /// Adds a beta feature.
    #[must_use]
    pub fn with_beta(mut self, beta: impl Into<String>) -> Self {
        self.betas.push(beta.into());
        self
    }

    /// Sets the speed mode.
    #[must_use]
    pub fn with_speed(mut self, speed: Speed) -> Self {
        self.speed = Some(speed);
        self
    }

    /// Sets the service tier (`auto` or `standard_only`).
    #[must_use]
    pub fn with_service_tier(mut self, tier: impl Into<String>) -> Self {
        self.service_tier = Some(tier.into());
        self
    }

    /// Sets an assistant prefill.
    #[must_use]
    pub fn with_prefill(mut self, prefill: Prefill) -> Self {
        self.prefill = Some(prefill);
        self
    }

    /// Adds a context edit.
    #[must_use]
    pub fn with_context_edit(mut self, edit: ContextEdit) -> Self {
        self.context_management.push(edit);
        self
    }
}

impl AnthropicOptions {
    /// Adds context edits.
    #[must_use]
    pub fn with_context_edits(mut self, edits: impl IntoIterator<Item = ContextEdit>) -> Self {
        self.context_management.extend(edits);
        self
    }
}

impl ProviderOption for AnthropicOptions {
    const PROVIDER: &'static str = crate::PROVIDER;
    const NAME: &'static str = "AnthropicOptions";
}
