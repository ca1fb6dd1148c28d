//! [`ModelRequest`] → the typed `/api/chat` [`Body`].
//!
//! Every request first gets [`answer_unanswered_tool_calls`] and reminder rendering (as
//! `<system-reminder>` user text); the stored history is never changed.

use std::borrow::Cow;
use std::collections::HashMap;

use dive_core::{
    Content, MediaSource, Message, ModelRequest, ReasoningEffort, ReminderStyle, ResponseFormat, Role,
    ThinkingMode, ToolChoice, ToolDefinition, ToolResultContent, history_to_send,
};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::OllamaOptions;
use crate::body::{
    Body, CallFunction, CallOut, Format, FunctionDecl, MessageOut, OptionValue, Think, ToolOut, no_arguments,
    set_option,
};

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

/// Provider settings that shape every body.
#[derive(Debug, Clone)]
pub(crate) struct EncodeOptions<'a> {
    pub model: &'a str,
    pub num_ctx: Option<u32>,
    pub keep_alive: Option<&'a str>,
    pub stream: bool,
    /// The request's tool list ([`encode_tools`]), encoded once per list.
    pub tools: Option<dive_provider::EncodedTools>,
}

/// The `tools` of a request as sent (function tools; Ollama runs no server tools).
pub(crate) fn encode_tools(request: &ModelRequest) -> Vec<ToolOut<'_>> {
    request.tools.iter().filter(|t| t.native_type.is_none()).map(encode_tool).collect()
}

/// Builds the body of an `/api/chat` call.
pub(crate) fn encode_request<'a>(request: &'a ModelRequest, opts: &EncodeOptions<'a>) -> Body<'a> {
    let typed = request.options.get::<OllamaOptions>();
    let history = history_to_send(&request.messages, &ReminderStyle::UserText);
    let messages =
        Messages { system: request.system.as_deref().filter(|s| !s.is_empty()), messages: history };
    // Ollama has no tool_choice: `None` is honoured by not offering the tools.
    let offer_tools = !matches!(request.tool_choice, Some(ToolChoice::None));
    let tools = if offer_tools { opts.tools.clone() } else { None };
    let format = match &request.response_format {
        Some(ResponseFormat::JsonObject) => Some(Format::Json("json")),
        Some(ResponseFormat::JsonSchema { schema, .. }) => Some(Format::Schema(schema)),
        _ => None,
    };
    let mut options = Vec::new();
    let num_ctx = typed.and_then(|o| o.num_ctx).or(opts.num_ctx);
    let unsigned = |n: Option<u32>| n.map(|n| OptionValue::Unsigned(u64::from(n)));
    for (key, value) in [
        ("num_ctx", unsigned(num_ctx)),
        ("num_predict", unsigned(request.max_tokens)),
        ("temperature", request.temperature.map(OptionValue::Float)),
        ("top_p", request.top_p.map(OptionValue::Float)),
        ("presence_penalty", request.presence_penalty.map(OptionValue::Float)),
        ("frequency_penalty", request.frequency_penalty.map(OptionValue::Float)),
        ("top_k", unsigned(typed.and_then(|o| o.top_k))),
        ("seed", typed.and_then(|o| o.seed).map(OptionValue::Signed)),
    ] {
        if let Some(v) = value {
            options.push((key, v));
        }
    }
    if !request.stop_sequences.is_empty() {
        options.push(("stop", OptionValue::Strings(&request.stop_sequences)));
    }
    let mut extra = Vec::new();
    for (k, v) in &request.provider_options {
        match (k.as_str(), v) {
            ("options", Value::Object(more)) => {
                for (k, v) in more {
                    set_option(&mut options, k, OptionValue::Raw(v));
                }
            }
            // Not an object: the options this crate sets win, as they always did.
            ("options", _) => {}
            (key, _) if OPTION_KEYS.contains(&key) => set_option(&mut options, key, OptionValue::Raw(v)),
            (key, _) => extra.push((key, v)),
        }
    }
    Body {
        model: request.model.as_deref().unwrap_or(opts.model),
        messages,
        tools,
        stream: opts.stream,
        think: encode_think(request),
        format,
        keep_alive: typed.and_then(|o| o.keep_alive.as_deref()).or(opts.keep_alive),
        options,
        extra,
    }
}

/// `think`: `false` when reasoning is off, a level for an effort, `true` for budgets and
/// adaptive thinking; absent (the model's default) when the request says nothing.
fn encode_think(request: &ModelRequest) -> Option<Think> {
    let r = request.reasoning.as_ref()?;
    if r.thinking == Some(ThinkingMode::Disabled) {
        return Some(Think::Switch(false));
    }
    match r.effort {
        Some(ReasoningEffort::None) => Some(Think::Switch(false)),
        Some(ReasoningEffort::Minimal | ReasoningEffort::Low) => Some(Think::Level("low")),
        Some(ReasoningEffort::Medium) => Some(Think::Level("medium")),
        Some(_) => Some(Think::Level("high")),
        None if r.thinking.is_some() || r.budget_tokens.is_some() => Some(Think::Switch(true)),
        None => None,
    }
}

fn encode_tool(tool: &ToolDefinition) -> ToolOut<'_> {
    ToolOut {
        kind: "function",
        function: FunctionDecl {
            name: &tool.name,
            description: &tool.description,
            parameters: &tool.input_schema,
        },
    }
}

/// `messages`: the system prompt and the history, written when the body is serialized.
#[derive(Debug)]
pub(crate) struct Messages<'a> {
    system: Option<&'a str>,
    messages: Cow<'a, [Message]>,
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut tool_names: HashMap<&str, &str> = HashMap::new();
        for m in self.messages.iter() {
            for call in m.tool_uses() {
                tool_names.insert(&call.id, &call.name);
            }
        }
        let mut out = Vec::with_capacity(self.messages.len() + 1);
        if let Some(system) = self.system {
            out.push(MessageOut { role: "system", content: Cow::Borrowed(system), ..empty("system") });
        }
        for m in self.messages.iter() {
            encode_message(m, &tool_names, &mut out);
        }
        out.serialize(s)
    }
}

fn empty<'b>(role: &'static str) -> MessageOut<'b> {
    MessageOut {
        role,
        content: Cow::Borrowed(""),
        thinking: None,
        images: Vec::new(),
        tool_calls: Vec::new(),
        tool_name: None,
    }
}

/// The base64 payload of an image Ollama can take; `None` for URLs and file ids, which
/// Ollama cannot fetch.
fn image_data(source: &MediaSource) -> Option<&str> {
    match source {
        MediaSource::Base64 { data, .. } => Some(data),
        _ => None,
    }
}

/// Why Ollama cannot send a media block, `None` when it can: it takes inline images and text
/// documents only, so anything else is refused by name before a request is made (see
/// [`dive_provider::refuse_unsupported_content`]) instead of being dropped.
pub(crate) fn unsupported(block: &Content) -> Option<String> {
    match block {
        Content::Image(i) if image_data(&i.source).is_none() => {
            Some("Ollama takes only inline (base64) images, not URLs or file ids".to_owned())
        }
        Content::Document(d) if !matches!(d.source, MediaSource::Text { .. }) => {
            Some("Ollama takes only text documents; send the document's text instead".to_owned())
        }
        Content::File(_) => Some("Ollama has no file storage, so a file reference cannot be sent".to_owned()),
        _ => None,
    }
}

/// The text of a text document.
fn document_text(block: &Content) -> Option<Cow<'_, str>> {
    match block {
        Content::Document(d) => match &d.source {
            MediaSource::Text { data, .. } => Some(Cow::Borrowed(data.as_str())),
            _ => None,
        },
        _ => None,
    }
}

/// Pieces of text joined by newlines, borrowed when there is one.
fn joined<'b>(mut pieces: Vec<Cow<'b, str>>) -> Cow<'b, str> {
    match pieces.len() {
        0 => Cow::Borrowed(""),
        1 => pieces.remove(0),
        _ => Cow::Owned(pieces.join("\n")),
    }
}

#[derive(Default)]
struct Parts<'b> {
    text: Vec<Cow<'b, str>>,
    thinking: Vec<Cow<'b, str>>,
    images: Vec<&'b str>,
    tool_calls: Vec<CallOut<'b>>,
}

impl<'b> Parts<'b> {
    fn add(&mut self, block: &'b Content) {
        match block {
            Content::Text(t) => self.text.push(Cow::Borrowed(&t.text)),
            Content::Image(i) if image_data(&i.source).is_some() => {
                self.images.extend(image_data(&i.source));
            }
            Content::Thinking(t) if !t.thinking.is_empty() => self.thinking.push(Cow::Borrowed(&t.thinking)),
            Content::ToolUse(call) => {
                let arguments = match &*call.input {
                    Value::Object(_) => Cow::Borrowed(&*call.input),
                    Value::String(raw) => match serde_json::from_str::<Value>(raw) {
                        Ok(v @ Value::Object(_)) => Cow::Owned(v),
                        _ => no_arguments(),
                    },
                    _ => no_arguments(),
                };
                self.tool_calls.push(CallOut { function: CallFunction { name: &call.name, arguments } });
            }
            other => self.text.extend(document_text(other)),
        }
    }

    fn into_message(self, role: &'static str) -> Option<MessageOut<'b>> {
        if self.text.is_empty()
            && self.images.is_empty()
            && self.tool_calls.is_empty()
            && self.thinking.is_empty()
        {
            return None;
        }
        let thinking = (!self.thinking.is_empty()).then(|| joined(self.thinking));
        Some(MessageOut {
            content: joined(self.text),
            thinking,
            images: self.images,
            tool_calls: self.tool_calls,
            ..empty(role)
        })
    }
}

fn tool_message<'b>(result: &'b ToolResultContent, tool_names: &HashMap<&str, &'b str>) -> MessageOut<'b> {
    let mut parts = Parts::default();
    for block in &result.content {
        parts.add(block);
    }
    let mut content = joined(parts.text);
    if result.is_error {
        content = Cow::Owned(format!("Error: {content}"));
    }
    MessageOut {
        content,
        images: parts.images,
        tool_name: tool_names.get(result.tool_use_id.as_str()).copied(),
        ..empty("tool")
    }
}

/// One history message → one or more Ollama messages (tool results become `tool` messages,
/// in order, around the user's other blocks). Server-tool and redacted blocks, which another
/// provider made and only it can replay, are dropped.
fn encode_message<'b>(m: &'b Message, tool_names: &HashMap<&str, &'b str>, out: &mut Vec<MessageOut<'b>>) {
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
    use serde_json::json;

    fn body(request: &ModelRequest) -> Value {
        let tools = dive_provider::EncodedTools::encode(&encode_tools(request)).unwrap();
        let opts = EncodeOptions { model: "m", num_ctx: Some(8192), keep_alive: None, stream: true, tools };
        serde_json::to_value(encode_request(request, &opts)).unwrap()
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
