//! [`ModelSettings`]: per-agent model options applied to every model request, as a request
//! template.

use dive_core::{McpServerConfig, ModelRequest, ProviderOption, Reasoning, ResponseFormat, ToolChoice};
use serde_json::Value;

/// Model options an agent applies to every request it sends: a request template (every
/// [`ModelRequest`] option, typed provider options included) merged into each request by
/// [`ModelRequest::fill_from`], plus the engine's streaming switch. Unset options leave the
/// provider's defaults; what the engine sets on a request itself wins.
///
/// ```
/// use dive_agent::ModelSettings;
/// use dive_core::{ModelRequest, Reasoning, ReasoningEffort};
/// let settings = ModelSettings::new()
///     .max_tokens(4096)
///     .temperature(0.2)
///     .reasoning(Reasoning::effort(ReasoningEffort::High));
/// assert_eq!(settings.template.max_tokens, Some(4096));
///
/// // Any option of a request, through the template itself:
/// let mut template = ModelRequest::default();
/// template.top_p = Some(0.9);
/// let settings = ModelSettings::from_template(template).stream(false);
/// assert_eq!(settings.template.top_p, Some(0.9));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ModelSettings {
    /// The options every request starts from. Its `messages` and `tools` are never copied.
    pub template: ModelRequest,
    /// Whether model calls stream. `None` or `Some(true)`: stream whenever the provider can
    /// (events reach `on_event` as they arrive); `Some(false)`: always call `generate` and
    /// get each response whole (no model events are emitted, tool calls and messages still
    /// are). Useful behind proxies that buffer or break server-sent events.
    pub stream: Option<bool>,
}

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident: $ty:ty) => {
        $(#[$doc])*
        #[must_use]
        pub fn $name(mut self, value: $ty) -> Self {
            self.template.$name = Some(value);
            self
        }
    };
}

impl ModelSettings {
    /// No options set.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Settings whose options are `template`'s (its messages and tools are ignored).
    #[must_use]
    pub fn from_template(template: ModelRequest) -> Self {
        Self { template, stream: None }
    }

    setter!(/// Sets the maximum output tokens.
        max_tokens: u32);
    setter!(/// Sets the temperature.
        temperature: f64);
    setter!(/// Sets top-p.
        top_p: f64);
    setter!(/// Sets the presence penalty.
        presence_penalty: f64);
    setter!(/// Sets the frequency penalty.
        frequency_penalty: f64);
    setter!(/// Allows or forbids parallel tool calls.
        parallel_tool_calls: bool);
    setter!(/// Turns prompt caching on or off.
        caching: bool);
    setter!(/// Sets reasoning.
        reasoning: Reasoning);
    setter!(/// Sets the tool choice.
        tool_choice: ToolChoice);
    setter!(/// Sets structured output.
        response_format: ResponseFormat);

    /// Turns streaming on (the default when the provider can) or off (`generate` only).
    #[must_use]
    pub fn stream(mut self, stream: bool) -> Self {
        self.stream = Some(stream);
        self
    }

    /// Whether a call to a model that `supports_streaming` should stream.
    #[must_use]
    pub fn streams(&self, supports_streaming: bool) -> bool {
        supports_streaming && self.stream != Some(false)
    }

    /// Sets a typed option of one provider (Anthropic's betas, speed, service tier and
    /// prefill in `AnthropicOptions`, OpenAI's in `OpenAiOptions`, …), replacing one of the
    /// same type. Any other provider refuses a request carrying it.
    #[must_use]
    pub fn option<T: ProviderOption>(mut self, option: T) -> Self {
        self.template.options.insert(option);
        self
    }

    /// Adds a request header.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.template.headers.insert(name.into(), value.into());
        self
    }

    /// Adds a remote MCP server.
    #[must_use]
    pub fn mcp_server(mut self, server: McpServerConfig) -> Self {
        self.template.mcp_servers.push(server);
        self
    }

    /// Adds a stop sequence.
    #[must_use]
    pub fn stop_sequence(mut self, stop: impl Into<String>) -> Self {
        self.template.stop_sequences.push(stop.into());
        self
    }

    /// Sets a vendor-specific option.
    #[must_use]
    pub fn provider_option(mut self, key: impl Into<String>, value: Value) -> Self {
        self.template.provider_options.insert(key.into(), value);
        self
    }

    /// Writes these settings into a request ([`ModelRequest::fill_from`]): fields the
    /// request already sets win (the engine sets only what it must, such as
    /// `tool_choice: none` on the last allowed call).
    pub fn apply_to(&self, request: &mut ModelRequest) {
        request.fill_from(&self.template);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_fill_only_unset_fields() {
        let settings = ModelSettings::new().max_tokens(100).tool_choice(ToolChoice::Auto).header("x-a", "1");
        let mut request = ModelRequest::new(Vec::new()).with_tool_choice(ToolChoice::None);
        settings.apply_to(&mut request);
        assert_eq!(request.max_tokens, Some(100));
        assert_eq!(request.tool_choice, Some(ToolChoice::None));
        assert_eq!(request.headers.get("x-a").map(String::as_str), Some("1"));
    }

    #[test]
    fn a_template_carries_options_without_a_setter() {
        let mut template = ModelRequest::default();
        template.prompt_cache_key = Some("key_1".into());
        template.provider_options.insert("seed".into(), serde_json::json!(7));
        let settings = ModelSettings::from_template(template).stream(false);
        let mut request = ModelRequest::new(Vec::new());
        settings.apply_to(&mut request);
        assert_eq!(request.prompt_cache_key.as_deref(), Some("key_1"));
        assert_eq!(request.provider_options.get("seed"), Some(&serde_json::json!(7)));
        assert!(!settings.streams(true), "stream(false) still turns streaming off");
    }
}
