//! Messages API responses → [`ModelResponse`], content blocks and [`Usage`].

use std::borrow::Cow;

use dive_core::{Content, ModelResponse, UnknownContent, Usage, UsageIteration, UsageReport};
use dive_provider::lenient::{Count, ObjectReader, Text, read_object};
use serde::Deserialize;
use serde::de::MapAccess;
use serde_json::{Map, Value, json};

use crate::block::ResponseBlock;

/// Decodes one response content block. Null fields are dropped, a `tool_use` block's
/// `caller` is kept under `metadata.anthropic.caller` for replay, and a block this version
/// cannot type is kept verbatim as [`Content::Unknown`] (never an error).
pub(crate) fn decode_block(value: Value) -> Content {
    let Value::Object(mut map) = value else {
        return Content::Unknown(UnknownContent::from_raw(Map::new()));
    };
    map.retain(|_, v| !v.is_null());
    if map.get("type").and_then(Value::as_str) == Some("tool_use")
        && let Some(caller) = map.remove("caller")
    {
        let mut meta = Map::new();
        meta.insert("anthropic".into(), json!({ "caller": caller }));
        map.insert("metadata".into(), Value::Object(meta));
    }
    if map.get("type").and_then(Value::as_str) == Some("thinking")
        && map.get("signature").and_then(Value::as_str) == Some("")
    {
        map.remove("signature");
    }
    // Read from a borrow, so a block that does not type is kept without a copy made first.
    let value = Value::Object(map);
    match Content::deserialize(&value) {
        Ok(content) => content,
        Err(_) => {
            let Value::Object(raw) = value else {
                return Content::Unknown(UnknownContent::from_raw(Map::new()));
            };
            Content::Unknown(UnknownContent::from_raw(raw))
        }
    }
}

fn count(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// An Anthropic `usage` object, read typed and leniently: a counter that is not a count
/// reads as absent, the others are kept.
#[derive(Debug, Default)]
pub(crate) struct UsageObject {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    thinking_tokens: Option<u64>,
    service_tier: Option<String>,
    iterations: Option<Vec<Value>>,
}

impl<'de> Deserialize<'de> for UsageObject {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read_object(deserializer, UsageFields)
    }
}

struct UsageFields;

impl ObjectReader for UsageFields {
    type Out = UsageObject;
    const KEYS: &'static [&'static str] = &[
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "output_tokens_details",
        "service_tier",
        "iterations",
    ];

    fn field<'de, A: MapAccess<'de>>(
        &self,
        out: &mut UsageObject,
        key: usize,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match key {
            0 => out.input_tokens = map.next_value::<Count>()?.0,
            1 => out.output_tokens = map.next_value::<Count>()?.0,
            2 => out.cache_read_input_tokens = map.next_value::<Count>()?.0,
            3 => out.cache_creation_input_tokens = map.next_value::<Count>()?.0,
            4 => out.thinking_tokens = map.next_value::<OutputDetails>()?.0,
            5 => out.service_tier = map.next_value::<Text>()?.0,
            _ => {
                out.iterations = match map.next_value::<Value>()? {
                    Value::Array(items) => Some(items),
                    _ => None,
                }
            }
        }
        Ok(())
    }
}

/// `output_tokens_details`: its `thinking_tokens`.
struct OutputDetails(Option<u64>);

struct OutputDetailFields;

impl ObjectReader for OutputDetailFields {
    type Out = Option<u64>;
    const KEYS: &'static [&'static str] = &["thinking_tokens"];

    fn field<'de, A: MapAccess<'de>>(
        &self,
        out: &mut Option<u64>,
        _key: usize,
        map: &mut A,
    ) -> Result<(), A::Error> {
        *out = map.next_value::<Count>()?.0;
        Ok(())
    }
}

impl<'de> Deserialize<'de> for OutputDetails {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read_object(deserializer, OutputDetailFields).map(OutputDetails)
    }
}

/// Reads an Anthropic `usage` object (a full one or a `message_delta` frame) as a snapshot:
/// `message_delta` counts are cumulative totals and a field that is absent is "not
/// applicable here", so only the fields present are reported (they replace the earlier value,
/// see [`UsageReport`]). `iterations` is kept whole. A `usage` that is not an object reports
/// nothing.
pub(crate) fn decode_usage(v: &Value) -> UsageReport {
    usage_report(UsageObject::deserialize(v).unwrap_or_default())
}

fn usage_report(u: UsageObject) -> UsageReport {
    let mut r = UsageReport::default();
    r.input_tokens = u.input_tokens;
    r.output_tokens = u.output_tokens;
    r.cache_read_input_tokens = u.cache_read_input_tokens;
    r.cache_creation_input_tokens = u.cache_creation_input_tokens;
    r.reasoning_tokens = u.thinking_tokens;
    r.service_tier = u.service_tier;
    r.iterations = u.iterations.map(|items| {
        items
            .iter()
            .map(|i| {
                let usage = Usage::new(count(i, "input_tokens"), count(i, "output_tokens"))
                    .with_cache(count(i, "cache_read_input_tokens"), count(i, "cache_creation_input_tokens"));
                let mut step =
                    UsageIteration::new(i.get("type").and_then(Value::as_str).unwrap_or_default(), usage);
                step.model = i.get("model").and_then(Value::as_str).map(str::to_owned);
                step
            })
            .collect()
    });
    r
}

/// Iteration kinds whose tokens the top-level `usage` fields leave out although they are
/// billed: a server-side `compaction` step is a separate sampling run of the same model.
const BILLED_APART: [&str; 1] = ["compaction"];

/// The call's billed usage: the top-level counters plus every iteration they leave out
/// ([`BILLED_APART`]), the iterations kept as they came.
pub(crate) fn billed(top: &Usage) -> Usage {
    let mut total = top.clone();
    for step in top.iterations.iter().filter(|s| BILLED_APART.contains(&s.kind.as_str())) {
        total.input_tokens += step.usage.input_tokens;
        total.output_tokens += step.usage.output_tokens;
        total.cache_read_input_tokens += step.usage.cache_read_input_tokens;
        total.cache_creation_input_tokens += step.usage.cache_creation_input_tokens;
    }
    total
}

/// A whole `message` object, typed; its content blocks are [`ResponseBlock`]s.
#[derive(Debug, Default, Deserialize)]
struct MessageObject<'a> {
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    model: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    stop_sequence: Option<Cow<'a, str>>,
    #[serde(default)]
    stop_details: Option<Value>,
    #[serde(default)]
    usage: Option<UsageObject>,
    #[serde(default)]
    content: Option<Vec<ResponseBlock>>,
    #[serde(default)]
    container: Option<Value>,
    #[serde(default)]
    diagnostics: Option<Value>,
}

/// Decodes a non-streaming response body (the bytes as received).
pub(crate) fn decode_body(body: &[u8]) -> Result<ModelResponse, serde_json::Error> {
    Ok(decode_object(serde_json::from_slice(body)?))
}

/// `message_start` read typed: its message (its own usage left empty) and the usage it
/// reported. `None` when the event is not in the typed shape: the caller reads it as JSON.
pub(crate) fn decode_start(data: &str) -> Option<(ModelResponse, UsageReport)> {
    #[derive(Deserialize)]
    struct Start<'a> {
        #[serde(borrow)]
        message: MessageObject<'a>,
    }
    let mut start: Start<'_> = serde_json::from_str(data).ok()?;
    let report = start.message.usage.take().map(usage_report).unwrap_or_default();
    let mut message = decode_object(start.message);
    message.usage = Usage::default();
    Some((message, report))
}

/// Decodes a full `message` object (`message_start`'s).
pub(crate) fn decode_message(v: Value) -> ModelResponse {
    MessageObject::deserialize(v).map(decode_object).unwrap_or_default()
}

fn decode_object(m: MessageObject<'_>) -> ModelResponse {
    let mut r = ModelResponse::default();
    r.id = m.id.map(Cow::into_owned).unwrap_or_default();
    r.model = m.model.map(Cow::into_owned).unwrap_or_default();
    r.stop_reason = m.stop_reason.as_deref().unwrap_or_default().to_lowercase();
    r.stop_sequence = m.stop_sequence.map(Cow::into_owned);
    r.stop_details = m.stop_details;
    r.usage = m.usage.map(|u| billed(&usage_report(u).to_usage())).unwrap_or_default();
    r.content = m.content.into_iter().flatten().map(|b| b.0).collect();
    for (key, v) in [("container", m.container), ("diagnostics", m.diagnostics)] {
        if let Some(v) = v {
            r.metadata.insert(key.into(), v);
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_keep_what_replay_needs() {
        let text = decode_block(json!({"type": "text", "text": "hi", "citations": null}));
        assert_eq!(text.as_text(), Some("hi"));
        let call = decode_block(
            json!({"type": "tool_use", "id": "t", "name": "n", "input": {}, "caller": {"type": "direct"}}),
        );
        assert_eq!(call.as_tool_use().unwrap().metadata["anthropic"]["caller"]["type"], "direct");
        let result =
            decode_block(json!({"type": "web_fetch_tool_result", "tool_use_id": "s", "content": {"x": 1}}));
        assert_eq!(serde_json::to_value(&result).unwrap()["content"], json!({"x": 1}));
        let future = decode_block(json!({"type": "container_upload", "file_id": "f"}));
        assert_eq!(
            serde_json::to_value(&future).unwrap(),
            json!({"type": "container_upload", "file_id": "f"})
        );
    }

    #[test]
    fn an_odd_usage_field_reads_as_absent_and_keeps_the_others() {
        let body = br#"{"id":"m","content":[],"usage":{"input_tokens":"five","output_tokens":9,
            "output_tokens_details":3,"service_tier":7,"cache_read_input_tokens":-1,"iterations":{}}}"#;
        let r = decode_body(body).unwrap();
        assert_eq!((r.usage.input_tokens, r.usage.output_tokens, r.usage.cache_read_input_tokens), (0, 9, 0));
        assert_eq!((r.usage.reasoning_tokens, r.usage.service_tier.as_deref()), (0, None));
        let report = decode_usage(&json!({"input_tokens": 4, "output_tokens": null, "iterations": "x"}));
        assert_eq!((report.input_tokens, report.output_tokens), (Some(4), None));
        assert!(report.iterations.is_none());
        assert_eq!(decode_usage(&json!("not an object")).input_tokens, None);
    }

    #[test]
    fn usage_maps_every_bucket() {
        let u = decode_usage(&json!({"input_tokens": 5, "output_tokens": 9, "cache_read_input_tokens": 100,
            "cache_creation_input_tokens": 20, "output_tokens_details": {"thinking_tokens": 4}, "service_tier": "standard"}))
        .to_usage();
        assert_eq!(
            (
                u.input_tokens,
                u.output_tokens,
                u.cache_read_input_tokens,
                u.cache_creation_input_tokens,
                u.reasoning_tokens
            ),
            (5, 9, 100, 20, 4)
        );
        assert_eq!(u.service_tier.as_deref(), Some("standard"));
    }
}
