//! A response's content blocks read straight into [`Content`]: text and client tool calls
//! (nearly every block) are typed as they are read; any other block, or one holding a field
//! those two do not know, is read as JSON and decoded by [`decode_block`], so it is kept
//! exactly as before.

use std::fmt;

use dive_core::{Content, TextContent, ToolUse};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::decode::decode_block;

/// One response content block, decoded.
#[derive(Debug)]
pub(crate) struct ResponseBlock(pub Content);

impl<'de> Deserialize<'de> for ResponseBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BlockVisitor)
    }
}

/// The keys the typed blocks read; any other is kept as JSON.
enum Key {
    Type,
    Text,
    Id,
    Name,
    Input,
    Caller,
    Other(String),
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "type" => Key::Type,
                    "text" => Key::Text,
                    "id" => Key::Id,
                    "name" => Key::Name,
                    "input" => Key::Input,
                    "caller" => Key::Caller,
                    other => Key::Other(other.to_owned()),
                })
            }
        }
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

/// The fields read so far.
#[derive(Default)]
struct Fields {
    kind: Option<Value>,
    text: Option<Value>,
    id: Option<Value>,
    name: Option<Value>,
    input: Option<Value>,
    caller: Option<Value>,
    other: Map<String, Value>,
}

impl Fields {
    /// The block typed, when it is a text or a client tool call with nothing else in it.
    fn typed(&mut self) -> Option<Content> {
        if !self.other.is_empty() {
            return None;
        }
        let kind = self.kind.as_ref()?.as_str()?;
        match kind {
            "text"
                if self.id.is_none()
                    && self.name.is_none()
                    && self.input.is_none()
                    && self.caller.is_none() =>
            {
                let Some(Value::String(text)) = self.text.take_if(|t| t.is_string()) else { return None };
                Some(Content::Text(TextContent::new(text)))
            }
            "tool_use"
                if self.text.is_none()
                    && self.input.as_ref().is_some_and(Value::is_object)
                    && self.id.as_ref().is_some_and(Value::is_string)
                    && self.name.as_ref().is_some_and(Value::is_string) =>
            {
                let (Some(Value::String(id)), Some(Value::String(name)), Some(input)) =
                    (self.id.take(), self.name.take(), self.input.take())
                else {
                    return None;
                };
                let mut call = ToolUse::new(id, name, input);
                if let Some(caller) = self.caller.take() {
                    let mut anthropic = Map::new();
                    anthropic.insert("caller".into(), caller);
                    call.metadata.insert("anthropic".into(), Value::Object(anthropic));
                }
                Some(Content::ToolUse(call))
            }
            _ => None,
        }
    }

    /// Every field as one JSON object.
    fn into_object(self) -> Value {
        let mut all = self.other;
        for (key, v) in [
            ("type", self.kind),
            ("text", self.text),
            ("id", self.id),
            ("name", self.name),
            ("input", self.input),
            ("caller", self.caller),
        ] {
            if let Some(v) = v {
                all.insert(key.into(), v);
            }
        }
        Value::Object(all)
    }
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = ResponseBlock;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ResponseBlock, A::Error> {
        let mut fields = Fields::default();
        while let Some(key) = map.next_key::<Key>()? {
            let value: Value = map.next_value()?;
            // A null field is as good as an absent one (`citations: null` on plain text).
            if value.is_null() {
                continue;
            }
            let slot = match key {
                Key::Type => &mut fields.kind,
                Key::Text => &mut fields.text,
                Key::Id => &mut fields.id,
                Key::Name => &mut fields.name,
                Key::Input => &mut fields.input,
                Key::Caller => &mut fields.caller,
                Key::Other(key) => {
                    fields.other.insert(key, value);
                    continue;
                }
            };
            *slot = Some(value);
        }
        Ok(ResponseBlock(match fields.typed() {
            Some(content) => content,
            None => decode_block(fields.into_object()),
        }))
    }

    // A block that is not an object is kept as `decode_block` keeps it (an empty unknown
    // block), never an error that would lose the rest of the response.
    fn visit_unit<E: de::Error>(self) -> Result<ResponseBlock, E> {
        Ok(not_an_object())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<ResponseBlock, E> {
        Ok(not_an_object())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<ResponseBlock, E> {
        Ok(not_an_object())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<ResponseBlock, E> {
        Ok(not_an_object())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<ResponseBlock, E> {
        Ok(not_an_object())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<ResponseBlock, E> {
        Ok(not_an_object())
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<ResponseBlock, A::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(not_an_object())
    }
}

fn not_an_object() -> ResponseBlock {
    ResponseBlock(decode_block(Value::Null))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The typed reading gives what the JSON reading gives, block for block.
    fn same_as_json(block: Value) {
        let fast = serde_json::from_slice::<ResponseBlock>(block.to_string().as_bytes()).unwrap().0;
        assert_eq!(fast, decode_block(block.clone()), "{block}");
        let from_value = ResponseBlock::deserialize(&block).unwrap().0;
        assert_eq!(from_value, fast, "{block}");
    }

    #[test]
    fn typed_blocks_read_as_the_json_path_reads_them() {
        for block in [
            json!({"type": "text", "text": "hi"}),
            json!({"type": "text", "text": "hi", "citations": null}),
            json!({"type": "text", "text": "", "citations": [{"type": "char_location", "cited_text": "a",
                "document_index": 0, "start_char_index": 0, "end_char_index": 1}]}),
            json!({"type": "text", "text": "é \"quoted\" \\n", "extra": 1}),
            json!({"type": "tool_use", "id": "t", "name": "add", "input": {"a": 1, "b": [2]}}),
            json!({"type": "tool_use", "id": "t", "name": "add", "input": {}, "caller": {"type": "direct"}}),
            json!({"type": "tool_use", "id": "t", "name": "add", "input": {}, "caller": null}),
            json!({"type": "tool_use", "id": "t", "name": "add", "input": "not an object"}),
            json!({"type": "tool_use", "id": 7, "name": "add", "input": {}}),
            json!({"type": "tool_use", "name": "add", "input": {}}),
            json!({"type": "thinking", "thinking": "hm", "signature": "sig"}),
            json!({"type": "thinking", "thinking": "hm", "signature": ""}),
            json!({"type": "redacted_thinking", "data": "xyz"}),
            json!({"type": "server_tool_use", "id": "s", "name": "web_search", "input": {"query": "q"}}),
            json!({"type": "web_search_tool_result", "tool_use_id": "s", "content": []}),
            json!({"type": "container_upload", "file_id": "f"}),
            json!({"text": "no type"}),
            json!({}),
            json!(null),
            json!("text"),
            json!([1, {"a": 2}]),
            json!(3.5),
        ] {
            same_as_json(block);
        }
    }

    /// Every content block of the recorded and hand-written fixtures: whole messages (a JSON
    /// body or `message_start`) and `content_block_start` blocks.
    fn fixture_blocks(dir: &std::path::Path, out: &mut Vec<Value>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                fixture_blocks(&path, out);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let docs: Vec<Value> = if path.extension().is_some_and(|e| e == "json") {
                serde_json::from_str(&text).into_iter().collect()
            } else {
                text.lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .filter_map(|d| serde_json::from_str(d).ok())
                    .collect()
            };
            for doc in docs {
                let message = doc.get("message").unwrap_or(&doc);
                out.extend(message["content"].as_array().cloned().unwrap_or_default());
                out.extend(doc.get("content_block").cloned());
            }
        }
    }

    #[test]
    fn fixture_blocks_read_as_the_json_path_reads_them() {
        let mut blocks = Vec::new();
        fixture_blocks(
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures")),
            &mut blocks,
        );
        let kinds: std::collections::BTreeSet<_> =
            blocks.iter().filter_map(|b| b["type"].as_str().map(str::to_owned)).collect();
        for kind in ["text", "tool_use", "thinking", "compaction"] {
            assert!(kinds.contains(kind), "no {kind} block among the fixtures' {kinds:?}");
        }
        for block in blocks {
            same_as_json(block);
        }
    }
}
