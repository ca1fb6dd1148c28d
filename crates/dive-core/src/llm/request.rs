//! What a caller asks of a model: [`ModelRequest`] and every option it carries.
//!
//! Options a provider does not support are ignored by that provider (and documented in its
//! crate); options that only make sense for one vendor live in [`ModelRequest::provider_options`].

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{LlmError, LlmErrorKind};
use crate::message::Message;
use crate::secret::Secret;
use crate::tool::{ToolDeclaration, ToolDefinition};

mod options;

pub use options::{OptionKey, ProviderOption, ProviderOptions};

/// One request to a model.
///
/// The conversation and the tool list are shared, not owned: an agent hands each model call
/// a reference-counted view of its history and of tool definitions built once, so a call
/// copies neither. Read them like a `Vec` (`request.messages.last()`, `request.tools.iter()`);
/// to change a request's own copy use `Arc::make_mut(&mut request.messages)`, which copies
/// only when the history is shared.
///
/// ```
/// use dive_core::{Message, ModelRequest};
/// let request = ModelRequest::new(vec![Message::user("Hello")])
///     .with_system("Be brief.")
///     .with_max_tokens(256);
/// assert_eq!(request.max_tokens, Some(256));
/// assert_eq!(request.messages.last().map(Message::text).as_deref(), Some("Hello"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelRequest {
    /// Model id override; `None` uses the model the provider was built with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// System prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The conversation (shared with the caller's history; see the type's docs).
    pub messages: Arc<Vec<Message>>,
    /// Tools the model may call (shared: an agent builds its list once).
    #[serde(default, skip_serializing_if = "no_tools")]
    pub tools: Arc<[ToolDefinition]>,
    /// Provider-defined toolsets declared by the agent's tool declarers: their members are not
    /// in [`tools`](Self::tools); the provider sends its own entry for each (see
    /// [`ToolDeclaration`]) and refuses one it has no entry for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declared_toolsets: Vec<Arc<ToolDeclaration>>,
    /// How the model must choose tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Allow several tool calls in one response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// Output token limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Presence penalty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    /// Frequency penalty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// Reasoning / thinking settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// Extra HTTP headers.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Provider-side MCP connectors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<McpServerConfig>,
    /// Structured output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    /// Prompt caching; `None` is the provider default (automatic where supported).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caching: Option<bool>,
    /// Prompt cache routing key (OpenAI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<String>,
    /// Free-form options for one provider, merged into its request body.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub provider_options: Map<String, Value>,
    /// Typed options of one provider (see [`ProviderOption`]); a provider refuses an option
    /// it cannot honour. Not serialized.
    #[serde(skip)]
    pub options: ProviderOptions,
}

impl Default for ModelRequest {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl ModelRequest {
    /// A request with these messages (a `Vec`, or a shared `Arc<Vec<Message>>`) and
    /// defaults elsewhere.
    #[must_use]
    pub fn new(messages: impl Into<Arc<Vec<Message>>>) -> Self {
        // Every field written out: `..Self::default()` would allocate a history to drop.
        Self {
            model: None,
            system: None,
            messages: messages.into(),
            tools: Arc::default(),
            declared_toolsets: Vec::new(),
            tool_choice: None,
            parallel_tool_calls: None,
            max_tokens: None,
            temperature: None,
            top_p: None,
            presence_penalty: None,
            frequency_penalty: None,
            stop_sequences: Vec::new(),
            reasoning: None,
            headers: BTreeMap::new(),
            mcp_servers: Vec::new(),
            response_format: None,
            caching: None,
            prompt_cache_key: None,
            provider_options: Map::new(),
            options: ProviderOptions::default(),
        }
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// Sets the tools (a `Vec`, or a shared `Arc<[ToolDefinition]>` reused as is).
    #[must_use]
    pub fn with_tools(mut self, tools: impl Into<Arc<[ToolDefinition]>>) -> Self {
        self.tools = tools.into();
        self
    }

    /// Sets the output token limit.
    #[must_use]
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sets the tool choice.
    #[must_use]
    pub fn with_tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// Sets the temperature.
    #[must_use]
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets the reasoning settings.
    #[must_use]
    pub fn with_reasoning(mut self, reasoning: Reasoning) -> Self {
        self.reasoning = Some(reasoning);
        self
    }

    /// Sets a typed provider option (see [`ProviderOption`]), replacing one of the same type.
    #[must_use]
    pub fn with_option<T: ProviderOption>(mut self, option: T) -> Self {
        self.options.insert(option);
        self
    }

    /// Sets the structured output format.
    #[must_use]
    pub fn with_response_format(mut self, format: ResponseFormat) -> Self {
        self.response_format = Some(format);
        self
    }
}

impl ModelRequest {
    /// Fails with `InvalidRequest` on the first declared toolset `provider` has no payload for:
    /// sending its members as plain tools (or not at all) would silently change what the model
    /// is offered. The message names the toolset, the providers that understand it and this one.
    ///
    /// # Errors
    /// `InvalidRequest` for a declared toolset this provider cannot send.
    // The error is returned by value on a cold path, as every provider call returns LlmError.
    #[allow(clippy::result_large_err)]
    pub fn refuse_undeclared(&self, provider: &str) -> Result<(), LlmError> {
        let Some(decl) = self.declared_toolsets.iter().find(|d| d.payload(provider).is_none()) else {
            return Ok(());
        };
        let known: Vec<&str> = decl.providers.keys().map(String::as_str).collect();
        let defined_for = if known.is_empty() { "no provider".to_owned() } else { known.join(" and ") };
        Err(LlmError::new(
            LlmErrorKind::InvalidRequest,
            format!(
                "the request declares the provider-defined toolset {} (members {}), which the \
                 {provider} provider cannot send (it is defined for {defined_for}): remove the \
                 toolset from the agent or use a model of a provider it is defined for",
                decl.toolset,
                decl.members.join(", "),
            ),
        )
        .with_provider(provider.to_owned()))
    }
}

fn no_tools(tools: &Arc<[ToolDefinition]>) -> bool {
    tools.is_empty()
}

/// How the model must use tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// The model must call some tool.
    Any,
    /// The model must not call tools.
    None,
    /// The model must call this tool.
    Tool {
        /// Tool name.
        name: String,
    },
}

/// Reasoning effort levels, least to most eager.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReasoningEffort {
    /// No reasoning.
    None,
    /// Minimal reasoning.
    Minimal,
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
    /// Extra high.
    Xhigh,
    /// The most the model offers.
    Max,
}

impl ReasoningEffort {
    /// The wire name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Minimal => "minimal",
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Xhigh => "xhigh",
            Self::Max => "max",
        }
    }

    /// Clamps `self` to a level the model supports: the most eager supported level not above
    /// the request, else the least eager one above it. `None` is only chosen when asked for.
    ///
    /// ```
    /// use dive_core::ReasoningEffort as E;
    /// assert_eq!(E::Max.clamp_to(&[E::Low, E::Medium, E::High]), Some(E::High));
    /// assert_eq!(E::Minimal.clamp_to(&[E::None, E::Low, E::High]), Some(E::Low));
    /// ```
    #[must_use]
    pub fn clamp_to(self, supported: &[ReasoningEffort]) -> Option<ReasoningEffort> {
        if supported.contains(&self) {
            return Some(self);
        }
        let candidates = supported.iter().copied().filter(|e| *e != Self::None);
        let below = candidates.clone().filter(|e| *e < self).max();
        below.or_else(|| candidates.filter(|e| *e > self).min())
    }
}

/// Whether and how the model thinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ThinkingMode {
    /// The model decides how much to think.
    Adaptive,
    /// Thinking on, with a budget.
    Enabled,
    /// Thinking off.
    Disabled,
}

/// How thinking is shown in the response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ThinkingDisplay {
    /// Summarised thinking.
    Summarized,
    /// No thinking text (signatures only).
    Omitted,
    /// Progress updates.
    Updates,
}

/// Reasoning summary detail (OpenAI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReasoningSummary {
    /// Provider default.
    Auto,
    /// Short.
    Concise,
    /// Long.
    Detailed,
}

/// Reasoning settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Reasoning {
    /// Effort level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<ReasoningEffort>,
    /// Thinking token budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_tokens: Option<u32>,
    /// Summary detail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<ReasoningSummary>,
    /// Thinking mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ThinkingMode>,
    /// Thinking display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<ThinkingDisplay>,
}

impl Reasoning {
    /// Reasoning at an effort level.
    #[must_use]
    pub fn effort(effort: ReasoningEffort) -> Self {
        Self { effort: Some(effort), ..Self::default() }
    }

    /// Thinking enabled with a token budget.
    #[must_use]
    pub fn budget(budget_tokens: u32) -> Self {
        Self { budget_tokens: Some(budget_tokens), thinking: Some(ThinkingMode::Enabled), ..Self::default() }
    }

    /// Adaptive thinking.
    #[must_use]
    pub fn adaptive() -> Self {
        Self { thinking: Some(ThinkingMode::Adaptive), ..Self::default() }
    }
}

/// Output speed mode, for the provider options of the vendors that have one (Anthropic's
/// `AnthropicOptions::with_speed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Speed {
    /// Faster output at a higher price.
    Fast,
    /// Normal.
    Standard,
}

/// A provider-side MCP server connector.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpServerConfig {
    /// Connector type (`url`).
    #[serde(rename = "type")]
    pub kind: String,
    /// Server name.
    pub name: String,
    /// Server URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Bearer token (redacted in `Debug`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_token: Option<Secret>,
    /// Tools allowed from this server; empty means all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// Extra headers.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

impl McpServerConfig {
    /// A URL connector.
    #[must_use]
    pub fn url(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self { kind: "url".into(), name: name.into(), url: Some(url.into()), ..Self::default() }
    }
}

/// Structured output format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResponseFormat {
    /// Plain text.
    Text,
    /// Any JSON object.
    JsonObject,
    /// JSON matching a schema.
    JsonSchema {
        /// Schema name.
        name: String,
        /// The JSON Schema.
        schema: Value,
        /// Description.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Strict mode (OpenAI).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    },
}

impl ResponseFormat {
    /// JSON matching the schema of `T`.
    #[must_use]
    pub fn json_schema_for<T: schemars::JsonSchema>(name: impl Into<String>) -> Self {
        Self::JsonSchema {
            name: name.into(),
            schema: crate::tool::schema_for::<T>(),
            description: None,
            strict: None,
        }
    }
}

/// Assistant prefill: text the response starts with, for the provider options of the vendors
/// that take one (Anthropic's `AnthropicOptions::with_prefill`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Prefill {
    /// The prefix.
    pub text: String,
    /// A closing tag to stop at, e.g. `</answer>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closing_tag: Option<String>,
}

impl Prefill {
    /// A prefill.
    #[must_use]
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into(), closing_tag: None }
    }
}

/// A server-side context edit (Anthropic context management).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContextEdit {
    /// Edit type, e.g. `clear_tool_uses_20250919` or `clear_thinking_20251015`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The edit's parameters (trigger, keep, clear_at_least, exclude_tools, …).
    #[serde(flatten)]
    pub params: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_toolset_is_refused_by_a_provider_it_is_not_defined_for() {
        let mut request = ModelRequest::new(vec![Message::user("hi")]);
        assert!(request.refuse_undeclared("openai").is_ok());
        request.declared_toolsets.push(Arc::new(
            ToolDeclaration::new("computer", ["screenshot", "left_click"])
                .with_provider("anthropic", serde_json::json!({"tools": []})),
        ));
        assert!(request.refuse_undeclared("anthropic").is_ok());
        let err = request.refuse_undeclared("openai").unwrap_err();
        assert_eq!(err.kind, LlmErrorKind::InvalidRequest);
        assert_eq!(err.provider.as_deref(), Some("openai"));
        assert!(err.message.contains("toolset computer (members screenshot, left_click)"), "{}", err.message);
        assert!(err.message.contains("defined for anthropic"), "{}", err.message);
    }

    #[test]
    fn clamp_prefers_lower_then_higher_never_none() {
        use ReasoningEffort as E;
        assert_eq!(E::High.clamp_to(&[E::Low, E::High]), Some(E::High));
        assert_eq!(E::Xhigh.clamp_to(&[E::Low, E::High]), Some(E::High));
        assert_eq!(E::Minimal.clamp_to(&[E::None, E::Medium]), Some(E::Medium));
        assert_eq!(E::None.clamp_to(&[E::None, E::Low]), Some(E::None));
        assert_eq!(E::Low.clamp_to(&[]), None);
    }

    #[test]
    fn shared_messages_and_tools_keep_the_json_shape() {
        let tool = ToolDefinition::new("read", "Reads.", serde_json::json!({"type": "object"}));
        let messages = vec![Message::user("hi")];
        let request = ModelRequest::new(messages.clone()).with_tools(vec![tool.clone()]);
        let v = serde_json::to_value(&request).unwrap();
        // The same JSON as the plain vectors: sharing changes nothing on the wire.
        assert_eq!(
            v,
            serde_json::json!({
                "messages": serde_json::to_value(&messages).unwrap(),
                "tools": serde_json::to_value(vec![tool]).unwrap(),
            })
        );
        let back: ModelRequest = serde_json::from_value(v).unwrap();
        assert_eq!(back, request);
        let bare = serde_json::to_value(ModelRequest::new(Vec::new())).unwrap();
        assert_eq!(bare, serde_json::json!({"messages": []}), "no tools: no `tools` key");
    }

    #[test]
    fn tool_choice_json_shape() {
        let v = serde_json::to_value(ToolChoice::Tool { name: "x".into() }).unwrap();
        assert_eq!(v, serde_json::json!({"type": "tool", "name": "x"}));
    }

    #[test]
    fn mcp_token_redacted_in_debug() {
        let mut cfg = McpServerConfig::url("s", "https://example.com");
        cfg.authorization_token = Some(Secret::new("sk-very-secret"));
        assert!(!format!("{cfg:?}").contains("sk-very-secret"));
    }
}
