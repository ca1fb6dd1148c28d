//! The server's JSON: the request body built from a [`ModelRequest`], the response and the
//! stream lines read back, and its error bodies mapped to typed [`LlmErrorKind`]s.
//!
//! Request: `{"model", "system"?, "messages": [{"role", "text", "calls"?, "call_id"?}],
//! "tools": [{"name", "description", "parameters"}], "max_tokens"?, "stream"}`.
//! Response: `{"id", "text", "calls": [{"id", "name", "arguments"}], "stop", "usage":
//! {"input", "output"}}`. A stream is NDJSON: `{"type": "start", "id"}`, `{"type": "text",
//! "delta"}`, `{"type": "call", "id", "name", "arguments"}`, then `{"type": "end", "stop",
//! "usage"}`; a stream without its `end` line was cut. `{"type": "error", "kind", "message"}`
//! ends a stream with a typed error. An HTTP error's body is `{"error": "message"}`.

use std::time::Duration;

use dive_core::serde::{Deserialize, Serialize};
use dive_core::serde_json::{self, Value};
use dive_core::{
    Content, LlmError, LlmErrorKind, Message, ModelRequest, ModelResponse, ReminderStyle, Role, Secret,
    ToolUse, Usage, history_to_send, redact,
};

/// The request body. Borrows from the request: nothing of the history is copied but text.
#[derive(Debug, Serialize)]
#[serde(crate = "dive_core::serde")]
pub(crate) struct Body<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<&'a str>,
    messages: Vec<WireMessage>,
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    stream: bool,
}

#[derive(Debug, Serialize)]
#[serde(crate = "dive_core::serde")]
struct WireMessage {
    role: &'static str,
    text: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    calls: Vec<WireCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    call_id: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(crate = "dive_core::serde")]
pub(crate) struct WireCall {
    id: String,
    name: String,
    arguments: Value,
}

#[derive(Debug, Serialize)]
#[serde(crate = "dive_core::serde")]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

/// Builds the body. Following the provider contract: unanswered tool calls are answered and
/// reminders rendered as user text (on a copy: the caller's history is never changed), and a
/// block the server cannot take is refused with a typed error, never dropped.
pub(crate) fn encode<'a>(
    request: &'a ModelRequest,
    model: &'a str,
    stream: bool,
) -> Result<Body<'a>, LlmError> {
    let rendered = history_to_send(&request.messages, &ReminderStyle::UserText);
    let mut messages = Vec::with_capacity(rendered.len());
    for message in rendered.iter() {
        encode_message(message, &mut messages)?;
    }
    let body = Body {
        model: request.model.as_deref().unwrap_or(model),
        system: request.system.as_deref(),
        messages,
        tools: request
            .tools
            .iter()
            .map(|t| WireTool { name: &t.name, description: &t.description, parameters: &t.input_schema })
            .collect(),
        max_tokens: request.max_tokens,
        stream,
    };
    Ok(body)
}

fn encode_message(message: &Message, out: &mut Vec<WireMessage>) -> Result<(), LlmError> {
    let role = match message.role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::System | Role::Developer => "system",
        _ => return Err(unsupported(&format!("a message with the role {:?}", message.role))),
    };
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in &message.content {
        match block {
            Content::Text(t) => text.push_str(&t.text),
            Content::ToolUse(call) => calls.push(WireCall {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: serde_json::Value::clone(&call.input),
            }),
            Content::ToolResult(result) => {
                let mut output = String::new();
                for part in &result.content {
                    match part {
                        Content::Text(t) => output.push_str(&t.text),
                        other => return Err(unsupported(&format!("a tool result holding {}", kind(other)))),
                    }
                }
                if result.is_error {
                    output.insert_str(0, "error: ");
                }
                out.push(WireMessage {
                    role: "tool",
                    text: output,
                    calls: Vec::new(),
                    call_id: Some(result.tool_use_id.clone()),
                });
            }
            // Another model's private reasoning: this server has none to replay it to.
            Content::Thinking(_) | Content::RedactedThinking(_) => {}
            other => return Err(unsupported(&kind(other))),
        }
    }
    if !text.is_empty() || !calls.is_empty() {
        out.push(WireMessage { role, text, calls, call_id: None });
    }
    Ok(())
}

fn kind(block: &Content) -> String {
    serde_json::to_value(block)
        .ok()
        .and_then(|v| v["type"].as_str().map(|t| format!("a {t} block")))
        .unwrap_or_else(|| "a block".into())
}

fn unsupported(what: &str) -> LlmError {
    LlmError::new(
        LlmErrorKind::Unsupported,
        format!("LineModel takes text, tool calls and tool results; this request holds {what}"),
    )
    .with_provider("line")
}

#[derive(Debug, Deserialize)]
#[serde(crate = "dive_core::serde")]
struct WireResponse {
    #[serde(default)]
    id: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    calls: Vec<WireCall>,
    #[serde(default)]
    stop: String,
    #[serde(default)]
    usage: WireUsage,
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(crate = "dive_core::serde")]
pub(crate) struct WireUsage {
    #[serde(default)]
    input: u64,
    #[serde(default)]
    output: u64,
}

impl From<WireUsage> for Usage {
    fn from(u: WireUsage) -> Self {
        let mut usage = Usage::default();
        usage.input_tokens = u.input;
        usage.output_tokens = u.output;
        usage
    }
}

impl From<WireCall> for ToolUse {
    fn from(call: WireCall) -> Self {
        ToolUse::new(call.id, call.name, call.arguments)
    }
}

/// A complete response.
pub(crate) fn decode(bytes: &[u8], model: &str) -> Result<ModelResponse, LlmError> {
    let wire: WireResponse = serde_json::from_slice(bytes).map_err(decode_error)?;
    let mut response = ModelResponse::tool_calls(wire.calls.into_iter().map(ToolUse::from).collect())
        .with_id(wire.id)
        .with_model(model)
        .with_stop_reason(wire.stop)
        .with_usage(wire.usage.into());
    if !wire.text.is_empty() {
        response.content.insert(0, Content::text(wire.text));
    }
    Ok(response)
}

/// One line of a stream.
#[derive(Debug, Deserialize)]
#[serde(crate = "dive_core::serde", tag = "type", rename_all = "snake_case")]
pub(crate) enum Line {
    Start {
        #[serde(default)]
        id: String,
    },
    Text {
        delta: String,
    },
    Call(WireCall),
    End {
        #[serde(default)]
        stop: String,
        #[serde(default)]
        usage: WireUsage,
    },
    Error {
        #[serde(default)]
        kind: String,
        #[serde(default)]
        message: String,
    },
}

/// An in-stream error line as a typed error (the server's message redacted of the key).
pub(crate) fn stream_error(kind: &str, message: &str, key: Option<&Secret>) -> LlmError {
    let kind = match kind {
        "overloaded" => LlmErrorKind::Overloaded,
        "rate_limited" => LlmErrorKind::RateLimited,
        "server" => LlmErrorKind::Server,
        "context_length" => LlmErrorKind::ContextOverflow,
        "invalid_request" => LlmErrorKind::InvalidRequest,
        _ => LlmErrorKind::Other,
    };
    LlmError::new(kind, format!("the model server's stream failed: {}", redacted(message, key)))
        .with_provider("line")
}

fn redacted(text: &str, key: Option<&Secret>) -> String {
    key.map_or_else(|| text.to_owned(), |key| redact(text, &[key]))
}

pub(crate) fn decode_line(line: &str) -> Result<Line, LlmError> {
    serde_json::from_str(line).map_err(decode_error)
}

fn decode_error(e: serde_json::Error) -> LlmError {
    LlmError::new(LlmErrorKind::Decode, format!("the model server sent JSON this provider cannot read: {e}"))
        .with_provider("line")
        .with_source(e)
}

/// A non-2xx answer as a typed error: the kind from the status, the server's message (the
/// key redacted), and the `Retry-After` delay when it sent one.
pub(crate) fn error(status: u16, body: &[u8], retry_after: Option<u64>, key: Option<&Secret>) -> LlmError {
    let kind = match status {
        400 => LlmErrorKind::InvalidRequest,
        401 => LlmErrorKind::Authentication,
        403 => LlmErrorKind::PermissionDenied,
        404 => LlmErrorKind::NotFound,
        429 => LlmErrorKind::RateLimited,
        503 => LlmErrorKind::Overloaded,
        500..=599 => LlmErrorKind::Server,
        _ => LlmErrorKind::Other,
    };
    let message = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v["error"].as_str().map(str::to_owned))
        .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
    // A server may echo what it was sent, the key included: it never reaches an error.
    let message = redacted(&message, key);
    let mut error = LlmError::new(kind, format!("the model server answered {status}: {message}"))
        .with_provider("line")
        .with_status(status);
    if let Some(seconds) = retry_after {
        error = error.with_retry_after(Duration::from_secs(seconds));
    }
    error
}
