//! [`ModelRequest`] → Chat Completions request body.
//!
//! Every request first gets [`answer_unanswered_tool_calls`] (a backstop for broken
//! histories) and reminder rendering per the [`Dialect`]; the caller's history is never
//! changed. Tool results become `tool` messages; images and documents inside tool results
//! (which `tool` messages cannot carry) follow in a user message.

use dive_core::{
    Content, DocumentContent, MediaSource, Message, ModelRequest, ResponseFormat, Role, ToolChoice,
    ToolDefinition, answer_unanswered_tool_calls, render_reminders,
};
use serde_json::{Map, Value, json};

use crate::chat::reasoning::{stored_detail, thinking_chunk};
use crate::dialect::Dialect;
use crate::schema::strict_schema;
use crate::wire::EncodeOptions;
use crate::wire::{arguments, has_media, media_url, result_text};

/// Client settings that shape every Chat Completions body.
pub type ChatOptions<'a> = EncodeOptions<'a>;

/// Builds the JSON body of a `POST /chat/completions` call.
///
/// ```
/// use dive_core::{Message, ModelRequest};
/// use dive_openai_wire::{Dialect, chat::{ChatOptions, encode_request}};
/// let dialect = Dialect::openai();
/// let body = encode_request(&ModelRequest::new(vec![Message::user("Hi")]).with_system("Be brief."),
///     &ChatOptions::new("gpt-5.5", &dialect));
/// assert_eq!(body["messages"][0], serde_json::json!({"role": "system", "content": "Be brief."}));
/// assert_eq!(body["messages"][1], serde_json::json!({"role": "user", "content": "Hi"}));
/// ```
#[must_use]
pub fn encode_request(request: &ModelRequest, opts: &ChatOptions<'_>) -> Value {
    Value::Object(encode_fields(request, opts, true))
}

/// The tools of a Chat Completions body (native tools only when the dialect sends them).
pub(crate) fn encode_tools(request: &ModelRequest, dialect: &Dialect) -> Vec<Value> {
    request.tools.iter().filter(|t| !t.is_native() || dialect.native_tools).map(encode_tool).collect()
}

/// The body's fields; `tools` only when `with_tools` (else the caller sends them pre-encoded).
pub(crate) fn encode_fields(
    request: &ModelRequest,
    opts: &ChatOptions<'_>,
    with_tools: bool,
) -> Map<String, Value> {
    let dialect = opts.dialect;
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model.as_deref().unwrap_or(opts.model)));

    let mut messages = Vec::new();
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        messages.push(json!({"role": dialect.system_role.as_str(), "content": system}));
    }
    let answered = answer_unanswered_tool_calls(&request.messages);
    let rendered = render_reminders(&answered, &dialect.reminders);
    for message in rendered.iter() {
        encode_message(message, dialect, &mut messages);
    }
    body.insert("messages".into(), Value::Array(messages));

    if let Some(max) = request.max_tokens.or(opts.max_tokens) {
        body.insert(dialect.max_tokens_field.into(), json!(max));
    }
    for (key, value) in [
        ("temperature", request.temperature),
        ("top_p", request.top_p),
        ("presence_penalty", request.presence_penalty),
        ("frequency_penalty", request.frequency_penalty),
    ] {
        if let Some(v) = value {
            body.insert(key.into(), json!(v));
        }
    }
    if !request.stop_sequences.is_empty() {
        body.insert("stop".into(), json!(request.stop_sequences));
    }
    let has_tools = request.tools.iter().any(|t| !t.is_native() || dialect.native_tools);
    if let Some(search) = request.tools.iter().find(|t| {
        !dialect.native_tools && t.native_type.as_deref().is_some_and(|k| k.starts_with("web_search"))
    }) {
        body.insert("web_search_options".into(), Value::Object(search.native_params.clone()));
    }
    if has_tools {
        if with_tools {
            body.insert("tools".into(), Value::Array(encode_tools(request, dialect)));
        }
        if let Some(choice) = &request.tool_choice {
            body.insert("tool_choice".into(), encode_tool_choice(choice));
        }
        if let Some(parallel) = request.parallel_tool_calls {
            body.insert("parallel_tool_calls".into(), json!(parallel));
        }
    }
    if let Some(effort) = request.reasoning.as_ref().and_then(|r| r.effort) {
        body.insert("reasoning_effort".into(), json!(effort.as_str()));
    }
    if let Some(format) = &request.response_format {
        body.insert("response_format".into(), encode_response_format(format));
    }
    if let Some(key) = crate::options::prompt_cache_key(request) {
        body.insert("prompt_cache_key".into(), json!(key));
    }
    if let Some(tier) = crate::options::service_tier(request) {
        body.insert("service_tier".into(), json!(tier));
    }
    if opts.stream {
        body.insert("stream".into(), json!(true));
        if dialect.stream_usage {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
    }
    finish_body(&mut body, request, dialect);
    body
}

/// Applies provider options, drops unsupported keys and runs the body hook.
pub(crate) fn finish_body(body: &mut Map<String, Value>, request: &ModelRequest, dialect: &Dialect) {
    for (k, v) in &request.provider_options {
        body.insert(k.clone(), v.clone());
    }
    for key in dialect.unsupported {
        body.remove(*key);
    }
    if let Some(hook) = &dialect.body_hook {
        hook.apply(request, body);
    }
}

fn role_name(role: &Role, dialect: &Dialect) -> String {
    match role {
        Role::System => dialect.system_role.as_str().to_owned(),
        Role::Developer if dialect.system_role != Role::Developer => match &dialect.reminders {
            dive_core::ReminderStyle::NativeRole(Role::Developer) => "developer".to_owned(),
            _ => dialect.system_role.as_str().to_owned(),
        },
        other => other.as_str().to_owned(),
    }
}

fn encode_message(message: &Message, dialect: &Dialect, out: &mut Vec<Value>) {
    match &message.role {
        Role::Assistant => {
            if let Some(m) = encode_assistant(message, dialect) {
                out.push(m);
            }
        }
        Role::System | Role::Developer => {
            let text = message.text();
            if !text.is_empty() {
                out.push(json!({"role": role_name(&message.role, dialect), "content": text}));
            }
        }
        role => {
            let mut parts = Vec::new();
            let mut lifted = Vec::new();
            for block in &message.content {
                match block {
                    Content::ToolResult(r) => {
                        out.push(
                            json!({"role": "tool", "tool_call_id": r.tool_use_id, "content": result_text(r)}),
                        );
                        if has_media(r) {
                            lifted.push(json!({"type": "text",
                                "text": format!("Attachments of tool result {}:", r.tool_use_id)}));
                            lifted.extend(
                                r.content.iter().filter_map(encode_part).filter(|p| p["type"] != "text"),
                            );
                        }
                    }
                    other => parts.extend(encode_part(other)),
                }
            }
            parts.splice(0..0, lifted);
            if parts.is_empty() {
                return;
            }
            let content = match parts.as_slice() {
                [only] if only["type"] == "text" => only["text"].clone(),
                _ => Value::Array(parts),
            };
            out.push(json!({"role": role.as_str(), "content": content}));
        }
    }
}

fn encode_document(doc: &DocumentContent) -> Option<Value> {
    let filename = doc.title.clone().unwrap_or_else(|| "document.pdf".to_owned());
    match &doc.source {
        MediaSource::Base64 { .. } => Some(json!({"type": "file", "file": {
            "file_data": media_url(&doc.source), "filename": filename}})),
        MediaSource::File { file_id } => Some(json!({"type": "file", "file": {"file_id": file_id}})),
        MediaSource::Text { data, .. } => {
            let text = match &doc.title {
                Some(t) => format!("{t}\n\n{data}"),
                None => data.clone(),
            };
            Some(json!({"type": "text", "text": text}))
        }
        // Chat Completions cannot fetch a document URL; the model is told where it is.
        MediaSource::Url { url } => Some(json!({"type": "text", "text": format!("Document: {url}")})),
        _ => None,
    }
}

/// One user content part, or `None` for blocks Chat Completions cannot carry in a user
/// message (thinking, server tool items, …).
fn encode_part(block: &Content) -> Option<Value> {
    match block {
        Content::Text(t) => Some(json!({"type": "text", "text": t.text})),
        Content::Image(img) => match &img.source {
            MediaSource::File { file_id } => Some(json!({"type": "file", "file": {"file_id": file_id}})),
            source => media_url(source).map(|url| json!({"type": "image_url", "image_url": {"url": url}})),
        },
        Content::Document(doc) => encode_document(doc),
        Content::File(f) => {
            let mut file = Map::new();
            file.insert("file_id".into(), json!(f.file_id));
            if let Some(name) = &f.filename {
                file.insert("filename".into(), json!(name));
            }
            Some(json!({"type": "file", "file": file}))
        }
        Content::Reminder(r) => Some(json!({"type": "text", "text": r.render()})),
        _ => None,
    }
}

/// Appends text to the last `text` chunk, or starts one.
fn push_text_chunk(chunks: &mut Vec<Value>, text: &str) {
    match chunks.last_mut() {
        Some(last) if last["type"] == "text" => {
            let joined = format!("{}{text}", last["text"].as_str().unwrap_or_default());
            last["text"] = json!(joined);
        }
        _ => chunks.push(json!({"type": "text", "text": text})),
    }
}

fn encode_assistant(message: &Message, dialect: &Dialect) -> Option<Value> {
    let mut text = String::new();
    let mut refusal = String::new();
    let mut reasoning = String::new();
    let mut calls = Vec::new();
    // Typed chunks (thinking, text) in block order, for `Dialect::thinking_chunks`.
    let mut chunks = Vec::new();
    let mut thought = false;
    // Reasoning details to send back unmodified, for `Dialect::reasoning_details`.
    let mut details = Vec::new();
    for block in &message.content {
        match block {
            Content::Text(t) => {
                text.push_str(&t.text);
                if !t.text.is_empty() {
                    push_text_chunk(&mut chunks, &t.text);
                }
            }
            Content::Refusal(r) => refusal.push_str(&r.refusal),
            Content::Thinking(t) => {
                reasoning.push_str(&t.thinking);
                if let Some(detail) = dialect.reasoning_details.and_then(|key| stored_detail(t, key)) {
                    details.push(detail.clone());
                }
                if !t.thinking.is_empty() {
                    chunks.push(thinking_chunk(&t.thinking));
                    thought = true;
                }
            }
            Content::ToolUse(call) => calls.push(json!({"id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": arguments(call)}})),
            _ => {}
        }
    }
    if text.is_empty() && refusal.is_empty() && calls.is_empty() {
        return None;
    }
    let mut m = Map::new();
    m.insert("role".into(), json!("assistant"));
    let content = if dialect.thinking_chunks && thought {
        Value::Array(chunks)
    } else if text.is_empty() && !calls.is_empty() {
        Value::Null
    } else {
        json!(text)
    };
    m.insert("content".into(), content);
    if !refusal.is_empty() {
        m.insert("refusal".into(), json!(refusal));
    }
    if !calls.is_empty() {
        m.insert("tool_calls".into(), Value::Array(calls));
    }
    if let Some(field) = dialect.replay_reasoning_field
        && !reasoning.is_empty()
    {
        m.insert(field.into(), json!(reasoning));
    }
    if !details.is_empty() {
        m.insert("reasoning_details".into(), Value::Array(details));
    }
    Some(Value::Object(m))
}

fn encode_tool(tool: &ToolDefinition) -> Value {
    if let Some(kind) = &tool.native_type {
        let mut t = tool.native_params.clone();
        t.insert("type".into(), json!(kind));
        return Value::Object(t);
    }
    let mut function = Map::new();
    function.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        function.insert("description".into(), json!(tool.description));
    }
    let strict = tool.strict == Some(true);
    let parameters = if strict { strict_schema(&tool.input_schema) } else { tool.input_schema.clone() };
    function.insert("parameters".into(), parameters);
    if let Some(s) = tool.strict {
        function.insert("strict".into(), json!(s));
    }
    json!({"type": "function", "function": function})
}

fn encode_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Any => json!("required"),
        ToolChoice::None => json!("none"),
        ToolChoice::Tool { name } => json!({"type": "function", "function": {"name": name}}),
        _ => json!("auto"),
    }
}

/// The `json_schema` object shared by both APIs: name, schema (sanitised when strict),
/// description, strict.
pub(crate) fn json_schema_spec(
    name: &str,
    schema: &Value,
    description: Option<&String>,
    strict: Option<bool>,
) -> Map<String, Value> {
    let mut spec = Map::new();
    spec.insert("name".into(), json!(name));
    let strict_on = strict.unwrap_or(true);
    spec.insert("schema".into(), if strict_on { strict_schema(schema) } else { schema.clone() });
    if let Some(d) = description {
        spec.insert("description".into(), json!(d));
    }
    spec.insert("strict".into(), json!(strict_on));
    spec
}

fn encode_response_format(format: &ResponseFormat) -> Value {
    match format {
        ResponseFormat::JsonObject => json!({"type": "json_object"}),
        ResponseFormat::JsonSchema { name, schema, description, strict } => {
            json!({"type": "json_schema", "json_schema": json_schema_spec(name, schema, description.as_ref(), *strict)})
        }
        _ => json!({"type": "text"}),
    }
}
