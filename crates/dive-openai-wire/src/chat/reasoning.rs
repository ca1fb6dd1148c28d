//! Vendor reasoning shapes on Chat Completions: typed `content` chunks (Mistral's Magistral
//! models answer `[{"type": "thinking", "thinking": [{"type": "text", "text": …}]}, {"type":
//! "text", "text": …}]`) and OpenRouter's `reasoning_details` array (`reasoning.text` with a
//! `signature`, `reasoning.summary`, `reasoning.encrypted`), which must be sent back
//! unmodified.

use dive_core::ThinkingContent;
use serde_json::{Map, Value, json};

/// The kind of one typed content chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChunkKind {
    Thinking,
    Text,
}

/// The text of a `thinking` chunk's inner list (`[{"type": "text", "text": …}, …]`; a plain
/// string is taken as is). Reference chunks inside it carry no text and are skipped.
fn thinking_text(thinking: &Value) -> String {
    match thinking {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).collect(),
        _ => String::new(),
    }
}

/// The thinking and text of typed content chunks, in order. Chunks of other types (images,
/// references) carry no assistant text and are skipped.
pub(crate) fn content_chunks(chunks: &[Value]) -> Vec<(ChunkKind, String)> {
    chunks
        .iter()
        .filter_map(|c| match c.get("type").and_then(Value::as_str) {
            Some("thinking") => Some((ChunkKind::Thinking, thinking_text(c.get("thinking")?))),
            Some("text") => Some((ChunkKind::Text, c.get("text")?.as_str()?.to_owned())),
            other => {
                tracing::debug!(kind = ?other, "skipped a content chunk that holds no assistant text");
                None
            }
        })
        .collect()
}

/// The `content` chunk a thinking block is replayed as.
pub(crate) fn thinking_chunk(text: &str) -> Value {
    json!({"type": "thinking", "thinking": [{"type": "text", "text": text}]})
}

/// The metadata that keeps a reasoning detail on its thinking block: `{key: {"reasoning_detail": …}}`.
pub(crate) fn detail_metadata(key: &str, detail: &Value) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(key.to_owned(), json!({"reasoning_detail": detail}));
    meta
}

/// The reasoning detail a thinking block holds under `key`, to replay verbatim.
pub(crate) fn stored_detail<'a>(block: &'a ThinkingContent, key: &str) -> Option<&'a Value> {
    block.metadata.get(key)?.get("reasoning_detail")
}

/// The readable text of a reasoning detail (`text` of `reasoning.text`, `summary` of
/// `reasoning.summary`; encrypted details have none).
pub(crate) fn detail_text(detail: &Value) -> &str {
    let field = match detail.get("type").and_then(Value::as_str) {
        Some("reasoning.summary") => "summary",
        Some("reasoning.text") => "text",
        _ => return "",
    };
    detail.get(field).and_then(Value::as_str).unwrap_or_default()
}

/// A thinking block for a whole reasoning detail: its text, its signature, and the detail
/// itself for replay.
pub(crate) fn detail_block(detail: &Value, key: &str) -> ThinkingContent {
    let signature =
        detail.get("signature").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let mut t = ThinkingContent::new(detail_text(detail), signature);
    t.metadata = detail_metadata(key, detail);
    t
}

/// Folds one streamed fragment of a detail into what arrived before: the string pieces
/// (`text`, `summary`, `signature`, `data`) are appended, every other field is set.
pub(crate) fn merge_fragment(merged: &mut Map<String, Value>, fragment: &Map<String, Value>) {
    for (k, v) in fragment {
        let appendable = matches!(k.as_str(), "text" | "summary" | "signature" | "data");
        match (merged.get_mut(k), v) {
            (Some(Value::String(ours)), Value::String(more)) if appendable => ours.push_str(more),
            // A later `null` (a fragment without text) keeps what arrived.
            (Some(_), Value::Null) => {}
            _ => {
                merged.insert(k.clone(), v.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_their_order_and_skip_what_holds_no_text() {
        let chunks = json!([
            {"type": "thinking", "thinking": [{"type": "text", "text": "a"}, {"type": "reference", "reference_ids": [1]}, {"type": "text", "text": "b"}], "closed": true},
            {"type": "image_url", "image_url": "https://x"},
            {"type": "text", "text": "answer"}
        ]);
        assert_eq!(
            content_chunks(chunks.as_array().unwrap()),
            [(ChunkKind::Thinking, "ab".to_owned()), (ChunkKind::Text, "answer".to_owned())]
        );
    }

    #[test]
    fn fragments_append_strings_and_set_the_rest() {
        let mut merged = Map::new();
        for f in [
            json!({"type": "reasoning.text", "text": "", "signature": "", "format": "anthropic-claude-v1", "index": 0}),
            json!({"type": "reasoning.text", "text": "Hi", "format": "anthropic-claude-v1", "index": 0}),
            json!({"type": "reasoning.text", "text": null, "signature": "c2ln", "index": 0}),
        ] {
            merge_fragment(&mut merged, f.as_object().unwrap());
        }
        assert_eq!(
            Value::Object(merged),
            json!({"type": "reasoning.text", "text": "Hi", "signature": "c2ln", "format": "anthropic-claude-v1", "index": 0})
        );
    }
}
