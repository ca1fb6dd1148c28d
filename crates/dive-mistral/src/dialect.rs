//! Mistral's [`Dialect`]: the differences from OpenAI's Chat Completions, most of them in a
//! body hook that edits dive-openai-wire's body.

use dive_core::ModelRequest;
use dive_openai_wire::{BodyHook, Dialect};
use serde_json::{Map, Value, json};

const ID_ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The tool-call id Mistral accepts for `id`: the id itself when it is already 9 characters
/// of `[a-zA-Z0-9]` (every id Mistral generates), else a stable 9-character id derived from
/// it (FNV-1a 64, base 62), so a call and its result still match after the rewrite.
///
/// ```
/// use dive_mistral::mistral_tool_call_id;
/// assert_eq!(mistral_tool_call_id("abc123def"), "abc123def");
/// let converted = mistral_tool_call_id("toolu_01A09q90qw90lq917835lq9");
/// assert_eq!(converted.len(), 9);
/// assert!(converted.bytes().all(|b| b.is_ascii_alphanumeric()));
/// assert_eq!(converted, mistral_tool_call_id("toolu_01A09q90qw90lq917835lq9"));
/// ```
#[must_use]
pub fn mistral_tool_call_id(id: &str) -> String {
    if id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return id.to_owned();
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (0..9)
        .map(|_| {
            let c = ID_ALPHABET[(hash % 62) as usize] as char;
            hash /= 62;
            c
        })
        .collect()
}

/// A `file` content part (dive-openai's PDF form) as Mistral's `document_url` part; a part
/// that only names an uploaded file id, which Mistral's chat cannot take, becomes a note.
fn document_part(part: &Value) -> Value {
    let file = part.get("file").cloned().unwrap_or_default();
    match file.get("file_data").and_then(Value::as_str) {
        Some(data) => {
            let mut p = Map::new();
            p.insert("type".into(), json!("document_url"));
            p.insert("document_url".into(), json!(data));
            if let Some(name) = file.get("filename").and_then(Value::as_str) {
                p.insert("document_name".into(), json!(name));
            }
            Value::Object(p)
        }
        None => {
            let id = file.get("file_id").and_then(Value::as_str).unwrap_or_default();
            json!({"type": "text", "text": format!("[file {id} not sent: Mistral chat takes no file ids]")})
        }
    }
}

fn rewrite(_request: &ModelRequest, body: &mut Map<String, Value>) {
    let Some(Value::Array(messages)) = body.get_mut("messages") else { return };
    for m in messages {
        let Some(m) = m.as_object_mut() else { continue };
        m.remove("refusal");
        if let Some(Value::Array(calls)) = m.get_mut("tool_calls") {
            for call in calls {
                if let Some(Value::String(id)) = call.get_mut("id") {
                    *id = mistral_tool_call_id(id);
                }
            }
        }
        if let Some(Value::String(id)) = m.get_mut("tool_call_id") {
            *id = mistral_tool_call_id(id);
        }
        if let Some(Value::Array(parts)) = m.get_mut("content") {
            for part in parts.iter_mut().filter(|p| p["type"] == "file") {
                *part = document_part(part);
            }
        }
    }
}

/// Mistral's wire differences: `max_tokens`, reminders as user text, reasoning read from
/// `reasoning_content` and from Magistral's typed `thinking` content chunks (and replayed as
/// such chunks), no `stream_options`, `model_length` kept as a context-limit stop, and the
/// body hook (tool-call ids, `refusal`, `file` parts).
#[must_use]
pub fn dialect() -> Dialect {
    Dialect::compatible()
        .with_thinking_chunks(true)
        .with_stream_usage(false)
        .with_stop_reasons(&[("model_length", "model_length")])
        .with_unsupported(&["stream_options"])
        .with_file_parts(true) // sent as `document_url` parts by the body hook
        .with_body_hook(BodyHook::new(rewrite))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive_core::{Content, Message, Role, StopKind, ToolResultContent, classify_stop_reason};

    #[test]
    fn foreign_ids_are_rewritten_consistently_and_model_length_is_a_context_limit() {
        let history = vec![
            Message::user("2+2?"),
            Message::new(Role::Assistant, vec![Content::tool_use("toolu_01XYZ", "calc", json!({}))]),
            Message::tool_results(vec![ToolResultContent::text("toolu_01XYZ", "4")]),
        ];
        let llm = crate::Mistral::builder().api_key("k").build().unwrap();
        let body = llm.request_body(&ModelRequest::new(history), true).unwrap();
        let call_id = body["messages"][1]["tool_calls"][0]["id"].as_str().unwrap();
        assert_eq!(call_id.len(), 9);
        assert_eq!(body["messages"][2]["tool_call_id"], call_id);
        assert!(body.get("stream_options").is_none());
        assert_eq!(dialect().stop_reason("MODEL_LENGTH"), "model_length");
        assert_eq!(classify_stop_reason("model_length"), StopKind::ContextLimit);
    }
}
