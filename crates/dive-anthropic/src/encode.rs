//! [`ModelRequest`] → Messages API request body.
//!
//! Every request first gets [`answer_unanswered_tool_calls`] (a backstop for broken
//! histories) and reminder rendering (see `dive_core::Reminder`); the stored history is never changed.

use dive_core::{
    CacheTtl, ContextEdit, LlmErrorKind, McpServerConfig, ModelRequest, ReasoningEffort, ReminderStyle,
    ResponseFormat, Role, ThinkingDisplay, ThinkingMode, ToolChoice, ToolDefinition, history_to_send,
};
use dive_provider::{EncodedTools, ProviderError};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::PROVIDER;
use crate::catalog::{model_info, supports_system_messages};
use crate::messages::{WireCacheControl, WireMessages};
use crate::options::AnthropicOptions;

/// Settings of the client that shape every body.
#[derive(Debug, Clone)]
pub(crate) struct EncodeOptions<'a> {
    pub model: &'a str,
    pub max_tokens: u32,
    pub cache_ttl: Option<CacheTtl>,
    pub stream: bool,
    /// The request's tool list, encoded (once per list, see `dive_provider::ToolCache`).
    pub tools: Option<EncodedTools>,
    /// The betas the request's declared toolsets need (see `crate::toolset`).
    pub declared_betas: Vec<&'a str>,
}

/// The server-side compaction edit (`context_management.edits[].type`); its `compaction`
/// blocks come back in the response and are replayed verbatim on the next request.
pub(crate) const COMPACT_EDIT: &str = "compact_20260112";
/// The beta the compaction edit needs.
pub const COMPACTION_BETA: &str = "compact-2026-01-12";
/// The beta every context edit needs.
pub(crate) const CONTEXT_MANAGEMENT_BETA: &str = "context-management-2025-06-27";

/// A Messages API request body. Scalars, lists and the conversation are borrowed from the
/// request (its messages are serialized block by block, see [`WireMessages`]), the tool list
/// is the provider's pre-encoded JSON (built once per list).
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct MessagesBody<'a> {
    /// The model id.
    pub model: &'a str,
    /// The output limit.
    pub max_tokens: u32,
    /// The conversation, serialized from the history it borrows.
    pub messages: WireMessages<'a>,
    /// The automatic cache breakpoint's `cache_control`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<WireCacheControl<'static>>,
    /// The system prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<&'a str>,
    /// Stop sequences (a prefill's closing tag last).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<&'a str>,
    /// Tool definitions ([`WireTool`]s), encoded once per tool list and shared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<EncodedTools>,
    /// The tool choice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
    /// Thinking settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Value>,
    /// Effort and structured output.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub output_config: Map<String, Value>,
    /// `fast` or `standard`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<&'static str>,
    /// `auto` or `standard_only`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<&'a str>,
    /// Server-side context edits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_management: Option<ContextManagement<'a>>,
    /// Provider-side MCP servers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<Value>,
    /// Whether the response streams.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
    /// `ModelRequest::provider_options`, top-level fields this encoder does not set.
    #[serde(flatten)]
    pub extra: &'a Map<String, Value>,
}

/// The `context_management` object.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct ContextManagement<'a> {
    /// The edits, as given.
    pub edits: Vec<&'a ContextEdit>,
}

/// The body and the beta features it needs.
#[derive(Debug)]
pub(crate) struct Encoded<'a> {
    pub body: MessagesBody<'a>,
    pub betas: Vec<String>,
}

/// The top-level fields this encoder sets: a `provider_options` entry may not name one.
const TYPED_FIELDS: &[&str] = &[
    "model",
    "max_tokens",
    "messages",
    "cache_control",
    "system",
    "stop_sequences",
    "tools",
    "tool_choice",
    "thinking",
    "output_config",
    "speed",
    "service_tier",
    "context_management",
    "mcp_servers",
    "stream",
];

/// Builds the body of a Messages API call.
///
/// # Errors
/// `InvalidRequest` for an option of another provider, or a `provider_options` entry naming
/// a field this encoder sets (set it through its typed field instead).
pub(crate) fn encode_request<'a>(
    request: &'a ModelRequest,
    opts: &EncodeOptions<'a>,
) -> Result<Encoded<'a>, ProviderError> {
    request.options.refuse_foreign(PROVIDER, |_| false).map_err(|e| invalid(e.message))?;
    if let Some(key) = request.provider_options.keys().find(|k| TYPED_FIELDS.contains(&k.as_str())) {
        return Err(invalid(format!(
            "provider_options.{key} names a field the Anthropic encoder sets itself: set it through \
             the ModelRequest field or AnthropicOptions instead"
        )));
    }
    let anthropic = request.options.get::<AnthropicOptions>();
    let model = request.model.as_deref().unwrap_or(opts.model);
    let mut betas: Vec<String> = anthropic.iter().flat_map(|o| o.betas.iter().cloned()).collect();
    betas.extend(opts.declared_betas.iter().map(|b| (*b).to_owned()));
    let prefill = anthropic.and_then(|o| o.prefill.as_ref());
    let service_tier = anthropic.and_then(|o| o.service_tier.as_deref());
    if let Some(tier) = service_tier.filter(|t| !matches!(*t, "auto" | "standard_only")) {
        return Err(invalid(format!(
            "AnthropicOptions::service_tier `{tier}` is not a Messages API tier: use `auto` or `standard_only`"
        )));
    }

    let system_messages = supports_system_messages(model);
    let style =
        if system_messages { ReminderStyle::NativeRole(Role::System) } else { ReminderStyle::UserText };
    let auto = request.caching.unwrap_or(true).then(|| WireCacheControl::ephemeral(opts.cache_ttl));
    let messages = WireMessages::plan(
        history_to_send(&request.messages, &style),
        system_messages,
        prefill.map(|p| p.text.as_str()),
        auto,
    );

    let mut stop_sequences: Vec<&str> = request.stop_sequences.iter().map(String::as_str).collect();
    if let Some(tag) = prefill.and_then(|p| p.closing_tag.as_deref()) {
        stop_sequences.push(tag);
    }
    let (thinking, mut output_config) = encode_reasoning(request, model);
    match &request.response_format {
        Some(ResponseFormat::JsonSchema { schema, .. }) => {
            output_config.insert("format".into(), json!({"type": "json_schema", "schema": schema}));
        }
        Some(ResponseFormat::JsonObject) => {
            output_config
                .insert("format".into(), json!({"type": "json_schema", "schema": {"type": "object"}}));
        }
        _ => {}
    }
    let speed = anthropic.and_then(|o| o.speed).map(|speed| match speed {
        dive_core::Speed::Fast => "fast",
        _ => "standard",
    });
    let edits: Vec<&ContextEdit> = anthropic.iter().flat_map(|o| o.context_management.iter()).collect();
    if !edits.is_empty() {
        betas.push(CONTEXT_MANAGEMENT_BETA.into());
        if edits.iter().any(|e| e.kind == COMPACT_EDIT) {
            betas.push(COMPACTION_BETA.into());
        }
    }
    if !request.mcp_servers.is_empty() {
        betas.push("mcp-client-2025-04-04".into());
    }
    betas.sort();
    betas.dedup();
    let body = MessagesBody {
        model,
        max_tokens: request.max_tokens.unwrap_or(opts.max_tokens),
        messages,
        cache_control: auto,
        system: request.system.as_deref().filter(|s| !s.is_empty()),
        stop_sequences,
        tools: opts.tools.clone(),
        tool_choice: encode_tool_choice(request),
        thinking,
        output_config,
        speed,
        service_tier,
        context_management: (!edits.is_empty()).then_some(ContextManagement { edits }),
        mcp_servers: request.mcp_servers.iter().map(encode_mcp).collect(),
        stream: opts.stream,
        extra: &request.provider_options,
    };
    Ok(Encoded { body, betas })
}

fn invalid(message: impl Into<String>) -> ProviderError {
    ProviderError::new(PROVIDER, LlmErrorKind::InvalidRequest, message)
}

/// The `thinking` object and the `output_config` fields reasoning sets (`effort`).
fn encode_reasoning(request: &ModelRequest, model: &str) -> (Option<Value>, Map<String, Value>) {
    let mut output = Map::new();
    let Some(reasoning) = &request.reasoning else { return (None, output) };
    let display = reasoning.display.and_then(|d| match d {
        ThinkingDisplay::Summarized => Some("summarized"),
        ThinkingDisplay::Omitted => Some("omitted"),
        _ => None,
    });
    let mode = reasoning.thinking.or(reasoning.budget_tokens.map(|_| ThinkingMode::Enabled));
    let thinking = match mode {
        Some(ThinkingMode::Adaptive) => Some(json!({"type": "adaptive"})),
        Some(ThinkingMode::Enabled) => {
            let budget = reasoning.budget_tokens.unwrap_or(1024).max(1024);
            Some(json!({"type": "enabled", "budget_tokens": budget}))
        }
        Some(ThinkingMode::Disabled) => Some(json!({"type": "disabled"})),
        _ => None,
    };
    let thinking = thinking.map(|mut thinking| {
        if let (Some(d), Some("adaptive" | "enabled")) = (display, thinking["type"].as_str()) {
            thinking["display"] = json!(d);
        }
        thinking
    });
    if let Some(effort) = reasoning.effort {
        let supported = model_info(model).map(|m| m.reasoning_efforts.as_ref()).unwrap_or(&[]);
        let wire = [
            ReasoningEffort::Low,
            ReasoningEffort::Medium,
            ReasoningEffort::High,
            ReasoningEffort::Xhigh,
            ReasoningEffort::Max,
        ];
        let levels = if supported.is_empty() { &wire[..] } else { supported };
        if effort != ReasoningEffort::None
            && let Some(e) = effort.clamp_to(levels)
        {
            output.insert("effort".into(), json!(e.as_str()));
        }
    }
    (thinking, output)
}

/// One tool definition as sent, borrowed from the request: the input schema (the largest
/// part) is serialized from the caller's value, never cloned per call.
#[derive(Debug, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum WireTool<'a> {
    /// A function tool.
    Function {
        /// The tool name.
        name: &'a str,
        /// The description (omitted when empty).
        #[serde(skip_serializing_if = "str::is_empty")]
        description: &'a str,
        /// The JSON Schema of the input.
        input_schema: &'a Value,
        /// Strict schema adherence.
        #[serde(skip_serializing_if = "Option::is_none")]
        strict: Option<bool>,
    },
    /// A `tools[]` entry of a provider-defined toolset (`computer_toolset_20260801`,
    /// `bash_20250124`, …), sent as declared.
    Declared(&'a Value),
    /// A server tool (`web_search_20250305`, …): its type, name and parameters.
    Native {
        /// The server tool type.
        #[serde(rename = "type")]
        kind: &'a str,
        /// The tool name.
        name: &'a str,
        /// The tool's parameters (a `type` or `name` among them is not sent twice).
        #[serde(flatten)]
        params: NativeParams<'a>,
    },
}

/// A server tool's parameters without the `type` and `name` keys the tool sets itself.
#[derive(Debug)]
pub struct NativeParams<'a>(&'a Map<String, Value>);

impl Serialize for NativeParams<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        for (k, v) in self.0.iter().filter(|(k, _)| !matches!(k.as_str(), "type" | "name")) {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// The tool definitions of a request as sent: its custom and server tools, then the entries
/// of its declared toolsets (whose members are not among the custom tools).
pub(crate) fn encode_tools<'a>(request: &'a ModelRequest, declared: &[&'a Value]) -> Vec<WireTool<'a>> {
    request.tools.iter().map(encode_tool).chain(declared.iter().map(|e| WireTool::Declared(e))).collect()
}

fn encode_tool(tool: &ToolDefinition) -> WireTool<'_> {
    match &tool.native_type {
        Some(kind) => WireTool::Native { kind, name: &tool.name, params: NativeParams(&tool.native_params) },
        None => WireTool::Function {
            name: &tool.name,
            description: &tool.description,
            input_schema: &tool.input_schema,
            strict: tool.strict,
        },
    }
}

fn encode_tool_choice(request: &ModelRequest) -> Option<Value> {
    let no_parallel = request.parallel_tool_calls == Some(false);
    let mut v = match &request.tool_choice {
        None if no_parallel && !(request.tools.is_empty() && request.declared_toolsets.is_empty()) => {
            json!({"type": "auto"})
        }
        None => return None,
        Some(ToolChoice::Auto) => json!({"type": "auto"}),
        Some(ToolChoice::Any) => json!({"type": "any"}),
        Some(ToolChoice::Tool { name }) => json!({"type": "tool", "name": name}),
        Some(ToolChoice::None) => return Some(json!({"type": "none"})),
        // A choice added to dive-core after this encoder: let the model decide.
        Some(_) => json!({"type": "auto"}),
    };
    if no_parallel {
        v["disable_parallel_tool_use"] = Value::Bool(true);
    }
    Some(v)
}

fn encode_mcp(server: &McpServerConfig) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!(server.kind));
    m.insert("name".into(), json!(server.name));
    if let Some(url) = &server.url {
        m.insert("url".into(), json!(url));
    }
    if let Some(token) = &server.authorization_token {
        m.insert("authorization_token".into(), json!(token.expose()));
    }
    if !server.allowed_tools.is_empty() {
        m.insert(
            "tool_configuration".into(),
            json!({"enabled": true, "allowed_tools": server.allowed_tools}),
        );
    }
    Value::Object(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive_core::{ContextEdit, Message};

    #[test]
    fn tools_are_borrowed_and_a_server_tool_sends_type_and_name_once() {
        let mut params = Map::new();
        params.insert("max_uses".into(), json!(3));
        params.insert("name".into(), json!("ignored"));
        let native = ToolDefinition::native("web_search_20250305", "web_search", params);
        let text = serde_json::to_string(&encode_tool(&native)).unwrap();
        assert_eq!(text, r#"{"type":"web_search_20250305","name":"web_search","max_uses":3}"#);
        let f = ToolDefinition::new("get", "", json!({"type": "object"}));
        let text = serde_json::to_string(&encode_tool(&f)).unwrap();
        assert_eq!(text, r#"{"name":"get","input_schema":{"type":"object"}}"#);
    }

    #[test]
    fn the_compaction_edit_asks_for_the_compaction_beta() {
        let opts = EncodeOptions {
            model: "claude-sonnet-5-5",
            max_tokens: 64,
            cache_ttl: None,
            stream: true,
            tools: None,
            declared_betas: Vec::new(),
        };
        let mut r = ModelRequest::new(vec![Message::user("hi")]);
        r.options.insert(AnthropicOptions::default().with_context_edits(vec![
            serde_json::from_value::<ContextEdit>(json!({"type": "compact_20260112"})).unwrap(),
        ]));
        let encoded = encode_request(&r, &opts).unwrap();
        assert!(encoded.betas.iter().any(|b| b == COMPACTION_BETA), "{:?}", encoded.betas);
        r.options.insert(AnthropicOptions::default().with_context_edits(vec![
            serde_json::from_value::<ContextEdit>(json!({"type": "clear_thinking_20251015"})).unwrap(),
        ]));
        assert!(!encode_request(&r, &opts).unwrap().betas.iter().any(|b| b == COMPACTION_BETA));
    }
}
