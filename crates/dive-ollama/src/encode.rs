//! [`ModelRequest`] → `/api/chat` request body.
//!
//! Every request first gets [`answer_unanswered_tool_calls`] and reminder rendering (as
//! `<system-reminder>` user text); the stored history is never changed.

use std::collections::HashMap;

use dive_core::{
    Content, MediaSource, Message, ModelRequest, ReasoningEffort, ReminderStyle, ResponseFormat, Role,
    ThinkingMode, ToolChoice, ToolDefinition, ToolResultContent, answer_unanswered_tool_calls,
    render_reminders,
};
use serde_json::{Map, Value, json};

/// The keys of Ollama's `options` object (the `ollama` SDK's `Options` model). A
/// `provider_options` entry with one of these names goes into `options`; any other entry
/// goes to the top level of the body (`keep_alive`, `logprobs`, …).
pub(crate) const OPTION_KEYS: &[&str] = &[
    "numa",
    "num_ctx",
    "num_batch",
    "num_gpu",
    "main_gpu",
    "low_vram",
    "f16_kv",
    "logits_all",
    "vocab_only",
    "use_mmap",
    "use_mlock",
    "embedding_only",
    "num_thread",
    "num_keep",
    "seed",
    "num_predict",
    "top_k",
    "top_p",
    "tfs_z",
    "typical_p",
    "repeat_last_n",
    "temperature",
    "repeat_penalty",
    "presence_penalty",
    "frequency_penalty",
    "mirostat",
    "mirostat_tau",
    "mirostat_eta",
    "penalize_newline",
    "stop",
];

/// Client settings that shape every body.
#[derive(Debug, Clone)]
pub(crate) struct EncodeOptions<'a> {
    pub model: &'a str,
    pub num_ctx: Option<u32>,
    pub keep_alive: Option<&'a str>,
    pub stream: bool,
}

/// Builds the JSON body of an `/api/chat` call.
pub(crate) fn encode_request(request: &ModelRequest, opts: &EncodeOptions<'_>) -> Value {
    let model = request.model.as_deref().unwrap_or(opts.model);
    let mut body = Map::new();
    body.insert("model".into(), json!(model));

    let answered = answer_unanswered_tool_calls(&request.messages);
    let rendered = render_reminders(&answered, &ReminderStyle::UserText);
    let mut messages = Vec::new();
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({"role": "system", "content": system}));
    }
    let mut tool_names: HashMap<&str, &str> = HashMap::new();
    for m in rendered.iter() {
        for call in m.tool_uses() {
            tool_names.insert(&call.id, &call.name);
        }
    }
    for m in rendered.iter() {
        encode_message(m, &tool_names, &mut messages);
    }
    body.insert("messages".into(), Value::Array(messages));

    // Ollama has no tool_choice: `None` is honoured by not offering the tools.
    let offer_tools = !matches!(request.tool_choice, Some(ToolChoice::None));
    let tools: Vec<Value> =
        request.tools.iter().filter(|t| t.native_type.is_none()).map(encode_tool).collect();
    if offer_tools && !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    body.insert("stream".into(), Value::Bool(opts.stream));
    if let Some(think) = encode_think(request) {
        body.insert("think".into(), think);
    }
    match &request.response_format {
        Some(ResponseFormat::JsonObject) => {
            body.insert("format".into(), json!("json"));
        }
        Some(ResponseFormat::JsonSchema { schema, .. }) => {
            body.insert("format".into(), schema.clone());
        }
        _ => {}
    }

    let mut options = Map::new();
    if let Some(n) = opts.num_ctx {
        options.insert("num_ctx".into(), json!(n));
    }
    if let Some(n) = request.max_tokens {
        options.insert("num_predict".into(), json!(n));
    }
    for (key, value) in [
        ("temperature", request.temperature),
        ("top_p", request.top_p),
        ("presence_penalty", request.presence_penalty),
        ("frequency_penalty", request.frequency_penalty),
    ] {
        if let Some(v) = value {
            options.insert(key.into(), json!(v));
        }
    }
    if !request.stop_sequences.is_empty() {
        options.insert("stop".into(), json!(request.stop_sequences));
    }
    if let Some(keep_alive) = opts.keep_alive {
        body.insert("keep_alive".into(), json!(keep_alive));
    }
    for (k, v) in &request.provider_options {
        match (k.as_str(), v) {
            ("options", Value::Object(extra)) => options.extend(extra.clone()),
            (key, _) if OPTION_KEYS.contains(&key) => {
                options.insert(k.clone(), v.clone());
            }
            _ => {
                body.insert(k.clone(), v.clone());
            }
        }
    }
    if !options.is_empty() {
        body.insert("options".into(), Value::Object(options));
    }
    Value::Object(body)
}

/// `think`: `false` when reasoning is off, a level for an effort, `true` for budgets and
/// adaptive thinking; absent (the model's default) when the request says nothing.
fn encode_think(request: &ModelRequest) -> Option<Value> {
    let r = request.reasoning.as_ref()?;
    if r.thinking == Some(ThinkingMode::Disabled) {
        return Some(json!(false));
    }
    match r.effort {
        Some(ReasoningEffort::None) => Some(json!(false)),
        Some(ReasoningEffort::Minimal | ReasoningEffort::Low) => Some(json!("low")),
        Some(ReasoningEffort::Medium) => Some(json!("medium")),
        Some(_) => Some(json!("high")),
        None if r.thinking.is_some() || r.budget_tokens.is_some() => Some(json!(true)),
        None => None,
    }
}

fn encode_tool(tool: &ToolDefinition) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        function.insert("description".into(), json!(tool.description));
    }
    function.insert("parameters".into(), tool.input_schema.clone());
    json!({"type": "function", "function": function})
}

/// The base64 payload of an image Ollama can take; `None` for URLs and file ids, which
/// Ollama cannot fetch.
fn image_data(source: &MediaSource) -> Option<&str> {
    match source {
        MediaSource::Base64 { data, .. } => Some(data),
        _ => None,
    }
}

/// Appends the text of a block Ollama cannot take as such (a note for unfetchable media).
fn lossy_note(block: &Content) -> Option<String> {
    match block {
        Content::Image(i) => {
            tracing::debug!("Ollama takes only base64 images; sending a note instead");
            Some(match &i.source {
                MediaSource::Url { url } => format!("[image: {url}]"),
                _ => "[image not sent: Ollama takes only inline images]".to_owned(),
            })
        }
        Content::Document(d) => match &d.source {
            MediaSource::Text { data, .. } => Some(data.clone()),
            MediaSource::Url { url } => Some(format!("[document: {url}]")),
            _ => Some("[document not sent: Ollama takes only text documents]".to_owned()),
        },
        _ => None,
    }
}

#[derive(Default)]
struct Parts {
    text: Vec<String>,
    thinking: Vec<String>,
    images: Vec<String>,
    tool_calls: Vec<Value>,
}

impl Parts {
    fn add(&mut self, block: &Content) {
        match block {
            Content::Text(t) => self.text.push(t.text.clone()),
            Content::Image(i) if image_data(&i.source).is_some() => {
                self.images.extend(image_data(&i.source).map(str::to_owned));
            }
            Content::Thinking(t) if !t.thinking.is_empty() => self.thinking.push(t.thinking.clone()),
            Content::ToolUse(call) => {
                let arguments = match &call.input {
                    Value::Object(_) => call.input.clone(),
                    Value::String(raw) => match serde_json::from_str::<Value>(raw) {
                        Ok(v @ Value::Object(_)) => v,
                        _ => json!({}),
                    },
                    _ => json!({}),
                };
                self.tool_calls.push(json!({"function": {"name": call.name, "arguments": arguments}}));
            }
            other => self.text.extend(lossy_note(other)),
        }
    }

    fn into_message(self, role: &str) -> Option<Value> {
        if self.text.is_empty()
            && self.images.is_empty()
            && self.tool_calls.is_empty()
            && self.thinking.is_empty()
        {
            return None;
        }
        let mut m = Map::new();
        m.insert("role".into(), json!(role));
        // Empty fields are left out, as the `ollama` SDK does (the server reads them as empty).
        let text = self.text.join("\n");
        if !text.is_empty() {
            m.insert("content".into(), json!(text));
        }
        if !self.thinking.is_empty() {
            m.insert("thinking".into(), json!(self.thinking.join("\n")));
        }
        if !self.images.is_empty() {
            m.insert("images".into(), json!(self.images));
        }
        if !self.tool_calls.is_empty() {
            m.insert("tool_calls".into(), Value::Array(self.tool_calls));
        }
        Some(Value::Object(m))
    }
}

fn tool_message(result: &ToolResultContent, tool_names: &HashMap<&str, &str>) -> Value {
    let mut parts = Parts::default();
    for block in &result.content {
        parts.add(block);
    }
    let mut text = parts.text.join("\n");
    if result.is_error {
        text = format!("Error: {text}");
    }
    let mut m = Map::new();
    m.insert("role".into(), json!("tool"));
    if !text.is_empty() {
        m.insert("content".into(), json!(text));
    }
    if !parts.images.is_empty() {
        m.insert("images".into(), json!(parts.images));
    }
    if let Some(name) = tool_names.get(result.tool_use_id.as_str()) {
        m.insert("tool_name".into(), json!(name));
    }
    Value::Object(m)
}

/// One history message → one or more Ollama messages (tool results become `tool` messages,
/// in order, around the user's other blocks). Server-tool and redacted blocks, which another
/// provider made and only it can replay, are dropped.
fn encode_message(m: &Message, tool_names: &HashMap<&str, &str>, out: &mut Vec<Value>) {
    let role = match &m.role {
        Role::Assistant => "assistant",
        Role::System | Role::Developer => "system",
        _ => "user",
    };
    let mut parts = Parts::default();
    for block in &m.content {
        match block {
            Content::ToolResult(result) => {
                out.extend(std::mem::take(&mut parts).into_message(role));
                out.push(tool_message(result, tool_names));
            }
            Content::ServerToolUse(_)
            | Content::ServerToolResult(_)
            | Content::RedactedThinking(_)
            | Content::Provider(_)
            | Content::Unknown(_) => {}
            Content::Thinking(_) | Content::ToolUse(_) if m.role != Role::Assistant => {}
            other => parts.add(other),
        }
    }
    out.extend(parts.into_message(role));
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive_core::Reasoning;

    fn body(request: &ModelRequest) -> Value {
        encode_request(
            request,
            &EncodeOptions { model: "m", num_ctx: Some(8192), keep_alive: None, stream: true },
        )
    }

    #[test]
    fn options_and_provider_options_are_placed() {
        let mut r = ModelRequest::new(vec![Message::user("hi")]).with_max_tokens(100).with_temperature(0.2);
        r.stop_sequences = vec!["END".into()];
        r.provider_options.insert("seed".into(), json!(7));
        r.provider_options.insert("keep_alive".into(), json!("5m"));
        let b = body(&r);
        assert_eq!(
            b["options"],
            json!({"num_ctx": 8192, "num_predict": 100, "temperature": 0.2, "stop": ["END"], "seed": 7})
        );
        assert_eq!(b["keep_alive"], "5m");
        assert_eq!(b["stream"], true);
    }

    #[test]
    fn think_levels() {
        let think = |r: Reasoning| body(&ModelRequest::new(vec![]).with_reasoning(r))["think"].clone();
        assert_eq!(think(Reasoning::effort(ReasoningEffort::Minimal)), json!("low"));
        assert_eq!(think(Reasoning::effort(ReasoningEffort::Max)), json!("high"));
        assert_eq!(think(Reasoning::effort(ReasoningEffort::None)), json!(false));
        assert_eq!(think(Reasoning::budget(1000)), json!(true));
        assert_eq!(body(&ModelRequest::new(vec![])).get("think"), None);
    }

    #[test]
    fn tool_results_name_their_tool_and_tool_choice_none_hides_tools() {
        let history = vec![
            Message::user("2+2?"),
            Message::new(Role::Assistant, vec![Content::tool_use("c1", "calc", json!({"x": 1}))]),
            Message::tool_results(vec![ToolResultContent::error("c1", "bad")]),
        ];
        let tool = ToolDefinition::new("calc", "", json!({"type": "object"}));
        let r = ModelRequest::new(history).with_tools(vec![tool]);
        let b = body(&r);
        assert_eq!(b["messages"][2], json!({"role": "tool", "content": "Error: bad", "tool_name": "calc"}));
        assert_eq!(b["tools"][0]["function"], json!({"name": "calc", "parameters": {"type": "object"}}));
        let b = body(&r.with_tool_choice(ToolChoice::None));
        assert!(b.get("tools").is_none());
    }
}
