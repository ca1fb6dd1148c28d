//! [`ModelSettings`]: per-agent model options applied to every model request.

use std::collections::BTreeMap;

use dive_core::{McpServerConfig, ModelRequest, Reasoning, ResponseFormat, Speed, ToolChoice};
use serde_json::{Map, Value};

/// Model options an agent applies to every request it sends.
/// Unset fields leave the provider's defaults.
///
/// ```
/// use dive_agent::ModelSettings;
/// use dive_core::{Reasoning, ReasoningEffort};
/// let settings = ModelSettings::new()
///     .max_tokens(4096)
///     .temperature(0.2)
///     .reasoning(Reasoning::effort(ReasoningEffort::High));
/// assert_eq!(settings.max_tokens, Some(4096));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ModelSettings {
    /// Maximum output tokens a call.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    pub top_p: Option<f64>,
    /// Presence penalty.
    pub presence_penalty: Option<f64>,
    /// Frequency penalty.
    pub frequency_penalty: Option<f64>,
    /// Whether the model may call several tools in one response.
    pub parallel_tool_calls: Option<bool>,
    /// Prompt caching on or off (providers that support it).
    pub caching: Option<bool>,
    /// Reasoning effort, budget or thinking mode.
    pub reasoning: Option<Reasoning>,
    /// Output speed tier.
    pub speed: Option<Speed>,
    /// Tool choice.
    pub tool_choice: Option<ToolChoice>,
    /// Provider feature (beta) flags.
    pub features: Vec<String>,
    /// Extra request headers.
    pub headers: BTreeMap<String, String>,
    /// Remote MCP servers the provider connects to.
    pub mcp_servers: Vec<McpServerConfig>,
    /// Structured output.
    pub response_format: Option<ResponseFormat>,
    /// Stop sequences.
    pub stop_sequences: Vec<String>,
    /// Service tier.
    pub service_tier: Option<String>,
    /// Vendor-specific options, merged into the request's `provider_options`.
    pub provider_options: Map<String, Value>,
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
            self.$name = Some(value);
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
    setter!(/// Sets the speed tier.
        speed: Speed);
    setter!(/// Sets the tool choice.
        tool_choice: ToolChoice);
    setter!(/// Sets structured output.
        response_format: ResponseFormat);
    setter!(/// Sets the service tier.
        service_tier: String);
    setter!(/// Turns streaming on (the default when the provider can) or off (`generate` only).
        stream: bool);

    /// Whether a call to a model that `supports_streaming` should stream.
    #[must_use]
    pub fn streams(&self, supports_streaming: bool) -> bool {
        supports_streaming && self.stream != Some(false)
    }

    /// Adds a provider feature flag.
    #[must_use]
    pub fn feature(mut self, feature: impl Into<String>) -> Self {
        self.features.push(feature.into());
        self
    }

    /// Adds a request header.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Adds a remote MCP server.
    #[must_use]
    pub fn mcp_server(mut self, server: McpServerConfig) -> Self {
        self.mcp_servers.push(server);
        self
    }

    /// Adds a stop sequence.
    #[must_use]
    pub fn stop_sequence(mut self, stop: impl Into<String>) -> Self {
        self.stop_sequences.push(stop.into());
        self
    }

    /// Sets a vendor-specific option.
    #[must_use]
    pub fn provider_option(mut self, key: impl Into<String>, value: Value) -> Self {
        self.provider_options.insert(key.into(), value);
        self
    }

    /// Writes these settings into a request. Fields the request already sets win (the engine
    /// sets only what it must, such as `tool_choice: none` on the last allowed call).
    pub fn apply_to(&self, request: &mut ModelRequest) {
        fn fill<T: Clone>(slot: &mut Option<T>, value: &Option<T>) {
            if slot.is_none() {
                slot.clone_from(value);
            }
        }
        fill(&mut request.max_tokens, &self.max_tokens);
        fill(&mut request.temperature, &self.temperature);
        fill(&mut request.top_p, &self.top_p);
        fill(&mut request.presence_penalty, &self.presence_penalty);
        fill(&mut request.frequency_penalty, &self.frequency_penalty);
        fill(&mut request.parallel_tool_calls, &self.parallel_tool_calls);
        fill(&mut request.caching, &self.caching);
        fill(&mut request.reasoning, &self.reasoning);
        fill(&mut request.speed, &self.speed);
        fill(&mut request.tool_choice, &self.tool_choice);
        fill(&mut request.response_format, &self.response_format);
        fill(&mut request.service_tier, &self.service_tier);
        request.features.extend(self.features.iter().cloned());
        for (k, v) in &self.headers {
            request.headers.entry(k.clone()).or_insert_with(|| v.clone());
        }
        request.mcp_servers.extend(self.mcp_servers.iter().cloned());
        request.stop_sequences.extend(self.stop_sequences.iter().cloned());
        for (k, v) in &self.provider_options {
            request.provider_options.entry(k.clone()).or_insert_with(|| v.clone());
        }
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
}
