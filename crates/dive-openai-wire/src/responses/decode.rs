//! Responses API `response` objects and output items → [`ModelResponse`] and content blocks.
//!
//! | Output item | Block |
//! |---|---|
//! | `reasoning` | [`Content::Thinking`]: summary text, `encrypted_content` as the signature, the item id; several summary parts are kept under `metadata.openai.summary` |
//! | `message` | one [`Content::Text`] per `output_text` part (annotations as citations, `metadata.openai` `{id, phase}`), [`Content::Refusal`] per `refusal` part |
//! | `function_call` | [`Content::ToolUse`] (`call_id` as the id, the item id in `metadata.openai.id`) |
//! | `web_search_call`, `file_search_call`, `code_interpreter_call`, `image_generation_call`, … | [`Content::ServerToolUse`] named after the tool, the whole item kept under `openai.item` for verbatim replay |
//! | `mcp_call` | [`Content::ServerToolUse`] of kind `mcp_tool_use`, item kept verbatim |
//! | `mcp_list_tools`, `mcp_approval_request`, `compaction` | [`Content::Provider`] (a `compaction` item's opaque `encrypted_content` replayed as received) |
//! | anything else | [`Content::Unknown`], verbatim |

use dive_core::{
    Citation, Content, ModelResponse, ProviderContent, RefusalContent, ServerToolUse, TextContent,
    ThinkingContent, ToolUse, UnknownContent, Usage,
};
use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::wire::{count, metadata, parse_arguments, text};

/// Converts a Responses `usage` object; the cached part of `input_tokens` moves to
/// `cache_read_input_tokens` (Dive's input buckets are disjoint).
#[must_use]
pub fn decode_usage(v: &Value) -> Usage {
    let cached = v.get("input_tokens_details").map_or(0, |d| count(d, "cached_tokens"));
    Usage::new(count(v, "input_tokens").saturating_sub(cached), count(v, "output_tokens"))
        .with_cache(cached, 0)
        .with_reasoning(v.get("output_tokens_details").map_or(0, |d| count(d, "reasoning_tokens")))
}

fn summary_texts(item: &Value) -> Vec<String> {
    item.get("summary")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.get("text").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// The summary-part separator inside one thinking block.
pub(crate) const SUMMARY_SEPARATOR: &str = "\n\n";

/// Replay metadata of a reasoning item: the summary parts, when there are several.
pub(crate) fn reasoning_metadata(item: &Value) -> Map<String, Value> {
    let parts = item.get("summary").and_then(Value::as_array).map_or(0, Vec::len);
    metadata(&[("summary", (parts > 1).then(|| item["summary"].clone()))])
}

/// A thinking block for a reasoning item.
pub(crate) fn reasoning_block(item: &Value) -> ThinkingContent {
    let mut t = ThinkingContent::new(
        summary_texts(item).join(SUMMARY_SEPARATOR),
        text(item, "encrypted_content").filter(|s| !s.is_empty()),
    );
    t.id = text(item, "id");
    t.metadata = reasoning_metadata(item);
    t
}

/// Citations from `output_text` annotations (`url_citation`, `file_citation`, …), verbatim.
pub(crate) fn citation(annotation: &Value) -> Option<Citation> {
    let Value::Object(map) = annotation else { return None };
    let mut fields = map.clone();
    let kind = fields.remove("type").and_then(|t| t.as_str().map(str::to_owned))?;
    let mut c = Citation::new(kind);
    c.fields = fields;
    Some(c)
}

/// The metadata of the text blocks of a message item: `{"openai": {"id", "phase"}}`.
pub(crate) fn message_metadata(item: &Value) -> Map<String, Value> {
    metadata(&[("id", item.get("id").cloned()), ("phase", item.get("phase").cloned())])
}

/// A text block for an `output_text` part of a message item.
pub(crate) fn text_block(part: &Value, message_meta: &Map<String, Value>) -> TextContent {
    let mut t = TextContent::new(text(part, "text").unwrap_or_default());
    t.citations = part
        .get("annotations")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(citation)
        .collect();
    t.metadata = message_meta.clone();
    t
}

/// A tool call block for a `function_call` item (arguments decoded when present).
pub(crate) fn function_call_block(item: &Value, with_arguments: bool) -> ToolUse {
    let args = if with_arguments {
        parse_arguments(item.get("arguments").and_then(Value::as_str).unwrap_or_default())
    } else {
        json!({})
    };
    let mut call =
        ToolUse::new(text(item, "call_id").unwrap_or_default(), text(item, "name").unwrap_or_default(), args);
    call.metadata = metadata(&[("id", item.get("id").cloned())]);
    call
}

/// Blocks for one output item.
#[must_use]
pub fn decode_item(item: &Value) -> Vec<Content> {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
    match kind {
        "reasoning" => vec![Content::Thinking(reasoning_block(item))],
        "message" => {
            let meta = message_metadata(item);
            item.get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|part| match part.get("type").and_then(Value::as_str) {
                    Some("output_text") => Some(Content::Text(text_block(part, &meta))),
                    Some("refusal") => {
                        Some(Content::Refusal(RefusalContent::new(text(part, "refusal").unwrap_or_default())))
                    }
                    _ => None,
                })
                .collect()
        }
        "function_call" => vec![Content::ToolUse(function_call_block(item, true))],
        "mcp_call" => {
            let mut fields = Map::new();
            fields.insert("server_name".into(), item.get("server_label").cloned().unwrap_or_default());
            fields.insert("openai".into(), json!({ "item": item }));
            vec![Content::ServerToolUse(ServerToolUse::new(
                "mcp_tool_use",
                text(item, "id").unwrap_or_default(),
                text(item, "name").unwrap_or_default(),
                parse_arguments(item.get("arguments").and_then(Value::as_str).unwrap_or_default()),
                fields,
            ))]
        }
        "mcp_list_tools" | "mcp_approval_request" | "mcp_approval_response" | "compaction" => {
            let mut fields = item.as_object().cloned().unwrap_or_default();
            fields.remove("type");
            vec![Content::Provider(ProviderContent::new(kind, fields))]
        }
        k if k.ends_with("_call") => {
            let input = ["action", "queries", "code", "arguments"]
                .iter()
                .find_map(|key| item.get(*key).filter(|v| !v.is_null()).map(|v| json!({ *key: v })))
                .unwrap_or_else(|| json!({}));
            let mut fields = Map::new();
            fields.insert("openai".into(), json!({ "item": item }));
            vec![Content::ServerToolUse(ServerToolUse::new(
                "server_tool_use",
                text(item, "id").unwrap_or_default(),
                k.trim_end_matches("_call"),
                input,
                fields,
            ))]
        }
        _ => vec![Content::Unknown(UnknownContent::from_raw(item.as_object().cloned().unwrap_or_default()))],
    }
}

/// The stop reason of a response: why it ended takes precedence over "it holds tool calls"
/// (`incomplete` with `max_output_tokens` is an output limit even after a call).
fn status_reason(status: &str, incomplete: Option<&Value>, content: &[Content]) -> String {
    match status {
        "completed" if content.iter().any(|c| c.as_tool_use().is_some()) => "tool_use".to_owned(),
        "completed" => "end_turn".to_owned(),
        "incomplete" => incomplete
            .and_then(|d| d.get("reason"))
            .and_then(Value::as_str)
            .unwrap_or("incomplete")
            .to_owned(),
        "failed" => "error".to_owned(),
        other => other.to_owned(),
    }
}

/// A whole `response` object: the top level typed, the output items JSON (every kind is
/// kept verbatim for replay, so they are values anyway).
#[derive(Debug, Default, Deserialize)]
struct ResponseObject<'a> {
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    status: Option<Cow<'a, str>>,
    #[serde(default)]
    output: Vec<Value>,
    #[serde(default)]
    incomplete_details: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default, borrow)]
    service_tier: Option<Cow<'a, str>>,
}

/// Decodes a response body (the bytes as received).
pub(crate) fn decode_body(body: &[u8]) -> Result<ModelResponse, serde_json::Error> {
    Ok(decode_object(serde_json::from_slice(body)?))
}

fn decode_object(o: ResponseObject<'_>) -> ModelResponse {
    let mut r = ModelResponse::default();
    r.id = o.id.map(Cow::into_owned).unwrap_or_default();
    r.model = o.model.map(Cow::into_owned).unwrap_or_default();
    r.content = o.output.iter().flat_map(decode_item).collect();
    let incomplete = o.incomplete_details.filter(|d| !d.is_null());
    r.stop_reason = status_reason(o.status.as_deref().unwrap_or_default(), incomplete.as_ref(), &r.content);
    r.stop_details = incomplete;
    r.usage = o.usage.as_ref().map(decode_usage).unwrap_or_default();
    r.usage.service_tier = o.service_tier.map(Cow::into_owned);
    r
}

/// Decodes a full `response` object (non-streaming, or the one in `response.completed`).
///
/// ```
/// use serde_json::json;
/// let r = dive_openai_wire::responses::decode_response(&json!({"id": "resp_1", "model": "gpt-5.5",
///     "status": "completed", "output": [{"type": "message", "id": "msg_1", "role": "assistant",
///     "status": "completed", "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}],
///     "usage": {"input_tokens": 10, "output_tokens": 2}}));
/// assert_eq!((r.text_content().as_str(), r.stop_reason.as_str()), ("Hi", "end_turn"));
/// ```
#[must_use]
pub fn decode_response(v: &Value) -> ModelResponse {
    decode_object(ResponseObject::deserialize(v).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incomplete_beats_tool_use() {
        let v = json!({"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
            "output": [{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{\"a\""}]});
        let r = decode_response(&v);
        assert_eq!(r.stop_kind(), dive_core::StopKind::OutputLimit);
        assert_eq!(r.tool_uses().next().unwrap().input, json!("{\"a\""));
    }

    #[test]
    fn server_items_are_kept_verbatim() {
        let item = json!({"type": "web_search_call", "id": "ws_1", "status": "completed",
            "action": {"type": "search", "query": "rust"}});
        let blocks = decode_item(&item);
        let Content::ServerToolUse(s) = &blocks[0] else { panic!("{blocks:?}") };
        assert_eq!((s.name.as_str(), s.fields["openai"]["item"].clone()), ("web_search", item));
    }
}
