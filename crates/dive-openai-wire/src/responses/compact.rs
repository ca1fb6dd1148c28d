//! Native compaction on the Responses API ([`Llm::compact`](dive_core::Llm::compact)):
//! `POST /responses/compact` takes the conversation (`input`, `instructions`) and answers with
//! the compacted window: the user messages, then one opaque `compaction` item whose
//! `encrypted_content` later requests replay as received. The endpoint takes no summarising
//! instructions of its own (`instructions` is the system prompt).

use dive_core::{CompactedWindow, Content, Message, Role, TextContent};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::decode::{decode_item, decode_usage};

/// The path of the compaction endpoint.
pub(crate) const COMPACT_PATH: &str = "/responses/compact";

/// The fields of an ordinary Responses body a compaction call carries (the rest, such as
/// tools, `store` or `include`, the endpoint does not take).
const SENT: &[&str] = &[
    "model",
    "input",
    "instructions",
    "previous_response_id",
    "prompt_cache_key",
    "prompt_cache_retention",
    "service_tier",
];

/// The compaction body made from an ordinary (non-streaming) Responses body.
pub(crate) fn compaction_body(mut body: Value) -> Value {
    if let Some(fields) = body.as_object_mut() {
        fields.retain(|key, _| SENT.contains(&key.as_str()));
    }
    body
}

/// A `response.compaction` object.
#[derive(Debug, Deserialize)]
struct Compacted {
    #[serde(default)]
    output: Vec<Value>,
    #[serde(default)]
    usage: Option<Value>,
}

/// Reads a compaction answer: each user message item as a user message, everything else
/// (the `compaction` item above all) as assistant blocks, neighbours of one role merged.
///
/// # Errors
/// What is wrong with the answer, in words: not the endpoint's JSON object, or no
/// `compaction` item in it.
pub(crate) fn decode_compaction(body: &[u8]) -> Result<CompactedWindow, String> {
    let compacted: Compacted = serde_json::from_slice(body)
        .map_err(|e| format!("the answer is not a response.compaction object: {e}"))?;
    let mut messages: Vec<Message> = Vec::new();
    let mut found = false;
    for item in &compacted.output {
        let (role, blocks) = match item.get("type").and_then(Value::as_str) {
            Some("message") if item.get("role").and_then(Value::as_str) == Some("user") => {
                (Role::User, user_blocks(item))
            }
            Some(kind) => {
                found |= kind == "compaction";
                (Role::Assistant, decode_item(item))
            }
            None => continue,
        };
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks),
            _ => messages.push(Message::new(role, blocks)),
        }
    }
    if !found {
        return Err("the compacted output holds no compaction item".to_owned());
    }
    let usage = compacted.usage.as_ref().map(decode_usage).unwrap_or_default();
    Ok(CompactedWindow::new(messages).with_usage(usage))
}

/// The text parts of a user message item; any other part kept verbatim.
fn user_blocks(item: &Value) -> Vec<Content> {
    match item.get("content") {
        Some(Value::String(text)) => vec![Content::Text(TextContent::new(text.clone()))],
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|part| match (part.get("type").and_then(Value::as_str), part.get("text")) {
                (Some("input_text" | "output_text"), Some(Value::String(text))) => {
                    Content::Text(TextContent::new(text.clone()))
                }
                _ => Content::Unknown(dive_core::UnknownContent::from_raw(
                    part.as_object().cloned().unwrap_or_else(Map::new),
                )),
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn user_messages_come_first_then_the_item_on_an_assistant_message() {
        // The endpoint's documented shape: the user messages, then one compaction item.
        let body = json!({"object": "response.compaction", "output": [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "plan Lisbon"}]},
            {"type": "message", "role": "user", "content": "and Porto"},
            {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAA"}],
            "usage": {"input_tokens": 120, "output_tokens": 30}});
        let done = decode_compaction(body.to_string().as_bytes()).unwrap();
        assert_eq!(done.messages.len(), 2);
        assert_eq!(
            (done.messages[0].role.clone(), done.messages[0].text()),
            (Role::User, "plan Lisbon\nand Porto".into())
        );
        let Content::Provider(item) = &done.messages[1].content[0] else { panic!("{:?}", done.messages[1]) };
        assert_eq!((item.kind.as_str(), &item.fields["encrypted_content"]), ("compaction", &json!("gAAA")));
        assert_eq!(done.usage.output_tokens, 30);
    }

    #[test]
    fn an_answer_without_the_item_is_an_error_that_says_so() {
        let body = json!({"output": [{"type": "message", "role": "user", "content": "hi"}]});
        let error = decode_compaction(body.to_string().as_bytes()).unwrap_err();
        assert!(error.contains("no compaction item"), "{error}");
        assert!(decode_compaction(b"<html>").unwrap_err().contains("not a response.compaction"));
    }
}
