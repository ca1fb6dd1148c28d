//! [`ModelRequest`] → Responses API request body.
//!
//! Every request first gets [`answer_unanswered_tool_calls`] and reminder rendering per the
//! [`Dialect`](crate::Dialect) (operator reminders become `developer` messages on OpenAI); the caller's
//! history is never changed. Assistant history is replayed as the API requires: reasoning
//! items with their id and encrypted content, `function_call` items with the original
//! `call_id` and argument string, messages with their id and `phase`, and provider-run tool
//! items verbatim. Thinking from other providers (no OpenAI item id) is not replayed.
//!
//! With `previous_response_id` set, the server already holds the conversation: only the
//! messages after the last assistant message are sent, and `store` is turned on.

use dive_core::{
    Content, DocumentContent, ImageContent, MediaSource, Message, ModelRequest, ResponseFormat, Role,
    ToolChoice, ToolDefinition, ToolResultContent, answer_unanswered_tool_calls, render_reminders,
};
use serde_json::{Map, Value, json};

use crate::chat::{finish_body, json_schema_spec};
use crate::schema::strict_schema;
use crate::wire::EncodeOptions;
use crate::wire::{arguments, has_media, media_url, meta, result_text};

/// Client settings that shape every Responses body.
pub type ResponsesOptions<'a> = EncodeOptions<'a>;

/// Builds the JSON body of a `POST /responses` call.
///
/// ```
/// use dive_core::{Message, ModelRequest};
/// use dive_openai_wire::{Dialect, responses::{ResponsesOptions, encode_request}};
/// let dialect = Dialect::openai();
/// let body = encode_request(&ModelRequest::new(vec![Message::user("Hi")]).with_system("Be brief."),
///     &ResponsesOptions::new("gpt-4.1", &dialect));
/// assert_eq!(body["instructions"], "Be brief.");
/// assert_eq!(body["input"][0]["content"][0], serde_json::json!({"type": "input_text", "text": "Hi"}));
/// assert_eq!(body["store"], false);
/// ```
#[must_use]
pub fn encode_request(request: &ModelRequest, opts: &ResponsesOptions<'_>) -> Value {
    Value::Object(encode_fields(request, opts, true))
}

/// The tools of a Responses body: function and native tools, then remote MCP servers.
pub(crate) fn encode_tools(request: &ModelRequest) -> Vec<Value> {
    let mut tools: Vec<Value> = request.tools.iter().map(encode_tool).collect();
    tools.extend(request.mcp_servers.iter().map(|s| {
        let mut t = Map::new();
        t.insert("type".into(), json!("mcp"));
        t.insert("server_label".into(), json!(s.name));
        if let Some(url) = &s.url {
            t.insert("server_url".into(), json!(url));
        }
        if !s.allowed_tools.is_empty() {
            t.insert("allowed_tools".into(), json!(s.allowed_tools));
        }
        if !s.headers.is_empty() {
            t.insert("headers".into(), json!(s.headers));
        }
        if let Some(token) = &s.authorization_token {
            t.insert("authorization".into(), json!(token.expose()));
        }
        t.insert("require_approval".into(), json!("never"));
        Value::Object(t)
    }));
    tools
}

/// The body's fields; `tools` only when `with_tools` (else the caller sends them pre-encoded).
pub(crate) fn encode_fields(
    request: &ModelRequest,
    opts: &ResponsesOptions<'_>,
    with_tools: bool,
) -> Map<String, Value> {
    let dialect = opts.dialect;
    let model = request.model.as_deref().unwrap_or(opts.model);
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    if let Some(system) = request.system.as_deref().filter(|s| !s.is_empty()) {
        body.insert("instructions".into(), json!(system));
    }

    let answered = answer_unanswered_tool_calls(&request.messages);
    let rendered = render_reminders(&answered, &dialect.reminders);
    let chained = crate::options::previous_response_id(request).is_some();
    let start = if chained {
        rendered.iter().rposition(|m| m.role == Role::Assistant).map_or(0, |i| i + 1)
    } else {
        0
    };
    let mut input = Vec::new();
    for message in &rendered[start..] {
        encode_message(message, &mut input);
    }
    body.insert("input".into(), Value::Array(input));

    if let Some(max) = request.max_tokens.or(opts.max_tokens) {
        body.insert("max_output_tokens".into(), json!(max));
    }
    let reasoning_model = (opts.dialect.rejects_sampling)(model);
    // Reasoning models reject sampling parameters.
    if !reasoning_model {
        for (key, value) in [("temperature", request.temperature), ("top_p", request.top_p)] {
            if let Some(v) = value {
                body.insert(key.into(), json!(v));
            }
        }
    }
    let has_tools = !request.tools.is_empty() || !request.mcp_servers.is_empty();
    if has_tools {
        if with_tools {
            body.insert("tools".into(), Value::Array(encode_tools(request)));
        }
        if let Some(choice) = &request.tool_choice {
            body.insert("tool_choice".into(), encode_tool_choice(choice));
        }
        if let Some(parallel) = request.parallel_tool_calls {
            body.insert("parallel_tool_calls".into(), json!(parallel));
        }
    }
    let mut reasoning = Map::new();
    if let Some(r) = &request.reasoning {
        if let Some(effort) = r.effort {
            reasoning.insert("effort".into(), json!(effort.as_str()));
        }
        if let Some(summary) = r.summary {
            let name = serde_json::to_value(summary).unwrap_or(Value::Null);
            reasoning.insert("summary".into(), name);
        }
    }
    let wants_reasoning = reasoning_model || !reasoning.is_empty();
    if !reasoning.is_empty() {
        body.insert("reasoning".into(), Value::Object(reasoning));
    }
    let store = dialect.store || chained;
    body.insert("store".into(), json!(store));
    if !store && dialect.encrypted_reasoning && wants_reasoning {
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    }
    if let Some(format) = &request.response_format {
        body.insert("text".into(), json!({ "format": encode_format(format) }));
    }
    if let Some(key) = crate::options::prompt_cache_key(request) {
        body.insert("prompt_cache_key".into(), json!(key));
    }
    if let Some(tier) = crate::options::service_tier(request) {
        body.insert("service_tier".into(), json!(tier));
    }
    if let Some(id) = crate::options::previous_response_id(request) {
        body.insert("previous_response_id".into(), json!(id));
    }
    if opts.stream {
        body.insert("stream".into(), json!(true));
    }
    finish_body(&mut body, request, dialect);
    body
}

fn encode_image(img: &ImageContent) -> Option<Value> {
    match &img.source {
        MediaSource::File { file_id } => {
            Some(json!({"type": "input_image", "detail": "auto", "file_id": file_id}))
        }
        source => {
            media_url(source).map(|url| json!({"type": "input_image", "detail": "auto", "image_url": url}))
        }
    }
}

fn encode_document(doc: &DocumentContent) -> Option<Value> {
    let filename = doc.title.clone().unwrap_or_else(|| "document.pdf".to_owned());
    match &doc.source {
        MediaSource::Base64 { .. } => {
            Some(json!({"type": "input_file", "filename": filename, "file_data": media_url(&doc.source)}))
        }
        MediaSource::Url { url } => Some(json!({"type": "input_file", "file_url": url})),
        MediaSource::File { file_id } => Some(json!({"type": "input_file", "file_id": file_id})),
        MediaSource::Text { data, .. } => {
            let text = match &doc.title {
                Some(t) => format!("{t}\n\n{data}"),
                None => data.clone(),
            };
            Some(json!({"type": "input_text", "text": text}))
        }
        _ => None,
    }
}

fn encode_part(block: &Content) -> Option<Value> {
    match block {
        Content::Text(t) => Some(json!({"type": "input_text", "text": t.text})),
        Content::Image(img) => encode_image(img),
        Content::Document(doc) => encode_document(doc),
        Content::File(f) => {
            if f.media_type.as_deref().is_some_and(|m| m.starts_with("image/")) {
                Some(json!({"type": "input_image", "detail": "auto", "file_id": f.file_id}))
            } else {
                Some(json!({"type": "input_file", "file_id": f.file_id}))
            }
        }
        Content::Reminder(r) => Some(json!({"type": "input_text", "text": r.render()})),
        _ => None,
    }
}

fn encode_result(result: &ToolResultContent) -> Value {
    let output = if has_media(result) {
        let mut parts: Vec<Value> = result.content.iter().filter_map(encode_part).collect();
        if result.is_error {
            parts.insert(0, json!({"type": "input_text", "text": "Error:"}));
        }
        Value::Array(parts)
    } else {
        json!(result_text(result))
    };
    json!({"type": "function_call_output", "call_id": result.tool_use_id, "output": output})
}

fn encode_message(message: &Message, out: &mut Vec<Value>) {
    match &message.role {
        Role::Assistant => encode_assistant(message, out),
        role @ (Role::System | Role::Developer) => {
            let text = message.text();
            if !text.is_empty() {
                out.push(json!({"type": "message", "role": role.as_str(), "content": text}));
            }
        }
        role => {
            let mut parts = Vec::new();
            for block in &message.content {
                match block {
                    Content::ToolResult(r) => out.push(encode_result(r)),
                    other => parts.extend(encode_part(other)),
                }
            }
            if !parts.is_empty() {
                out.push(json!({"type": "message", "role": role.as_str(), "content": parts}));
            }
        }
    }
}

/// Output message content parts being grouped into one assistant message item.
#[derive(Default)]
struct PendingMessage {
    id: Option<Value>,
    phase: Option<Value>,
    parts: Vec<Value>,
    plain: String,
}

impl PendingMessage {
    fn flush(&mut self, out: &mut Vec<Value>) {
        let pending = std::mem::take(self);
        if pending.parts.is_empty() {
            return;
        }
        let mut item = Map::new();
        item.insert("type".into(), json!("message"));
        item.insert("role".into(), json!("assistant"));
        match pending.id {
            // An item the API produced: replayed as the output message it was.
            Some(id) => {
                item.insert("id".into(), id);
                item.insert("status".into(), json!("completed"));
                item.insert("content".into(), Value::Array(pending.parts));
            }
            // Text from elsewhere (another provider, an application): an easy input message.
            None => {
                item.insert("content".into(), json!(pending.plain));
            }
        }
        if let Some(phase) = pending.phase {
            item.insert("phase".into(), phase);
        }
        out.push(Value::Object(item));
    }
}

fn encode_assistant(message: &Message, out: &mut Vec<Value>) {
    let mut pending = PendingMessage::default();
    for block in &message.content {
        let (id, phase, part, plain) = match block {
            Content::Text(t) => {
                let annotations: Vec<Value> = t
                    .citations
                    .iter()
                    .filter(|c| {
                        matches!(
                            c.kind.as_str(),
                            "url_citation" | "file_citation" | "container_file_citation" | "file_path"
                        )
                    })
                    .map(|c| {
                        let mut a = c.fields.clone();
                        a.insert("type".into(), json!(c.kind));
                        Value::Object(a)
                    })
                    .collect();
                (
                    meta(&t.metadata, "id").cloned(),
                    meta(&t.metadata, "phase").cloned(),
                    json!({"type": "output_text", "text": t.text, "annotations": annotations}),
                    t.text.clone(),
                )
            }
            Content::Refusal(r) => (
                pending.id.clone(),
                pending.phase.clone(),
                json!({"type": "refusal", "refusal": r.refusal}),
                r.refusal.clone(),
            ),
            other => {
                pending.flush(out);
                encode_assistant_item(other, out);
                continue;
            }
        };
        if !pending.parts.is_empty() && (pending.id != id || pending.phase != phase) {
            pending.flush(out);
        }
        pending.id = id;
        pending.phase = phase;
        pending.parts.push(part);
        pending.plain.push_str(&plain);
    }
    pending.flush(out);
}

fn encode_assistant_item(block: &Content, out: &mut Vec<Value>) {
    match block {
        Content::Thinking(t) => {
            // Only OpenAI reasoning items (with their id) can be replayed.
            let Some(id) = &t.id else { return };
            let summary = match meta(&t.metadata, "summary") {
                Some(parts) => parts.clone(),
                None if t.thinking.is_empty() => json!([]),
                None => json!([{"type": "summary_text", "text": t.thinking}]),
            };
            let mut item = json!({"type": "reasoning", "id": id, "summary": summary});
            if let Some(sig) = &t.signature {
                item["encrypted_content"] = json!(sig);
            }
            out.push(item);
        }
        Content::ToolUse(call) => {
            let mut item = json!({"type": "function_call", "call_id": call.id, "name": call.name,
                "arguments": arguments(call)});
            if let Some(id) = meta(&call.metadata, "id") {
                item["id"] = id.clone();
            }
            out.push(item);
        }
        Content::ServerToolUse(s) => {
            if let Some(item) = s.fields.get("openai").and_then(|o| o.get("item")) {
                out.push(item.clone());
            }
        }
        Content::ServerToolResult(r) => {
            if let Some(item) = r.fields.get("openai").and_then(|o| o.get("item")) {
                out.push(item.clone());
            }
        }
        Content::Provider(p) if p.kind.starts_with("mcp_") => {
            let mut item = p.fields.clone();
            item.insert("type".into(), json!(p.kind));
            out.push(Value::Object(item));
        }
        _ => {}
    }
}

fn encode_tool(tool: &ToolDefinition) -> Value {
    if let Some(kind) = &tool.native_type {
        let mut t = tool.native_params.clone();
        t.insert("type".into(), json!(kind));
        return Value::Object(t);
    }
    // Function tools are strict by default on this API: say so explicitly either way.
    let strict = tool.strict == Some(true);
    let mut t = Map::new();
    t.insert("type".into(), json!("function"));
    t.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        t.insert("description".into(), json!(tool.description));
    }
    t.insert(
        "parameters".into(),
        if strict { strict_schema(&tool.input_schema) } else { tool.input_schema.clone() },
    );
    t.insert("strict".into(), json!(strict));
    Value::Object(t)
}

fn encode_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Any => json!("required"),
        ToolChoice::None => json!("none"),
        ToolChoice::Tool { name } => json!({"type": "function", "name": name}),
        _ => json!("auto"),
    }
}

fn encode_format(format: &ResponseFormat) -> Value {
    match format {
        ResponseFormat::JsonObject => json!({"type": "json_object"}),
        ResponseFormat::JsonSchema { name, schema, description, strict } => {
            let mut spec = json_schema_spec(name, schema, description.as_ref(), *strict);
            spec.insert("type".into(), json!("json_schema"));
            Value::Object(spec)
        }
        _ => json!({"type": "text"}),
    }
}
