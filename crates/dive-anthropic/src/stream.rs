//! Messages API stream events → dive-core [`StreamEvent`]s.
//!
//! Every event type is handled: `message_start`, `content_block_start`,
//! `content_block_delta` (`text_delta`, `input_json_delta`, `thinking_delta`,
//! `signature_delta`, `citations_delta`), `content_block_stop`, `message_delta`,
//! `message_stop`, `ping` and `error`. Unknown event types are skipped (logged at debug), so
//! a new API event never breaks an old client.
//!
//! [`MessagesMapper`] keeps what one event cannot say alone:
//! - **Usage** is a snapshot: `message_delta` counts are cumulative and a field that is
//!   present replaces the earlier value (even a lower one), one that is absent keeps it. The
//!   usage sent on is the call's billed total: the top-level counters plus the
//!   `usage.iterations` they leave out (a `compaction` step), priced from the catalog.
//! - **Blocks this version cannot type** (`compaction`, a future block) are held from their
//!   `content_block_start` to their `content_block_stop`, every delta merged in, and sent
//!   on whole as [`Content::Unknown`](dive_core::Content::Unknown), so they replay byte for
//!   byte ([`merge_delta`] says how a delta merges).
//! - An `error` event becomes a typed [`ProviderError`]; [`Events`] adds the finished part of
//!   the response, and turns a broken connection or a stream that ends without
//!   `message_stop` into one too, never a silent success.

use std::borrow::Cow;
use std::collections::VecDeque;

use dive_core::{
    BoxStream, Citation, Content, ContentDelta, LlmErrorKind, MessageDelta, Pricing, StreamEvent,
    UnknownContent, Usage, UsageReport,
};
use dive_provider::{Events, ProviderError, SseEvent, StreamMapper};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::PROVIDER;
use crate::block::ResponseBlock;
use crate::decode::{billed, decode_block, decode_message, decode_start, decode_usage};

mod exact;
use exact::{exact_delta, exact_delta_owned};

fn decode_error(message: String) -> ProviderError {
    ProviderError::new(PROVIDER, LlmErrorKind::Decode, message)
}

fn index(v: &Value) -> Result<usize, ProviderError> {
    v.get("index")
        .and_then(Value::as_u64)
        .and_then(|i| usize::try_from(i).ok())
        .ok_or_else(|| decode_error("stream event without a content block index".into()))
}

fn text_field(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// The hot path: `content_block_delta` events are most of a stream, so they are read into a
/// borrowed struct instead of a `serde_json::Value` tree.
#[derive(Deserialize)]
struct FastDelta<'a> {
    index: usize,
    #[serde(borrow)]
    delta: FastDeltaBody<'a>,
}

#[derive(Deserialize)]
struct FastDeltaBody<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    text: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    partial_json: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    thinking: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    signature: Option<Cow<'a, str>>,
}

fn fast_delta(data: &str) -> Option<StreamEvent> {
    let d: FastDelta<'_> = serde_json::from_str(data).ok()?;
    let own = |v: Option<Cow<'_, str>>| v.map(Cow::into_owned);
    let delta = match d.delta.kind.as_ref() {
        "text_delta" => ContentDelta::TextDelta { text: own(d.delta.text)? },
        "input_json_delta" => ContentDelta::InputJsonDelta { partial_json: own(d.delta.partial_json)? },
        "thinking_delta" => ContentDelta::ThinkingDelta { thinking: own(d.delta.thinking)? },
        "signature_delta" => ContentDelta::SignatureDelta { signature: own(d.delta.signature)? },
        _ => return None,
    };
    Some(StreamEvent::ContentBlockDelta { index: d.index, delta })
}

/// What one SSE event means, before the adapter's state is applied.
#[derive(Debug)]
enum Mapped {
    /// A stream event as it stands.
    Event(StreamEvent),
    /// `message_start`: the message (its usage still empty) and the usage it reported.
    Start(StreamEvent, UsageReport),
    /// `message_delta`: the stop fields and the usage it reported.
    Delta(MessageDelta, Option<UsageReport>),
    /// A block this version cannot type starts; `raw` is its JSON object.
    HeldStart { index: usize, raw: Map<String, Value> },
    /// A delta of a type this version does not model.
    RawDelta { index: usize },
    /// Nothing for the caller.
    Skip,
}

/// The event's `type` alone (the rest of the object is skipped, not built).
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    kind: Option<Cow<'a, str>>,
}

/// `content_block_stop`.
#[derive(Deserialize)]
struct BlockStop {
    index: usize,
}

/// `message_delta`: the stop fields, typed; `usage` stays JSON for [`decode_usage`], which
/// reads every counter on its own (one odd field never loses the others).
#[derive(Deserialize)]
struct WireMessageDelta<'a> {
    #[serde(default, borrow)]
    delta: WireStop<'a>,
    #[serde(default)]
    usage: Option<Value>,
}

#[derive(Deserialize, Default)]
struct WireStop<'a> {
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    stop_reason: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    stop_sequence: Option<Cow<'a, str>>,
    #[serde(default)]
    stop_details: Option<Value>,
}

fn typed<'a, T: Deserialize<'a>>(event: &SseEvent, data: &'a str) -> Result<T, ProviderError> {
    serde_json::from_str(data)
        .map_err(|e| decode_error(format!("stream event {:?} does not match its type: {e}", event.event)))
}

fn map_raw(event: &SseEvent) -> Result<Mapped, ProviderError> {
    if let Some((index, kind, text)) = exact_delta(&event.data) {
        let delta = kind.delta(text.to_string_in(&event.data));
        return Ok(Mapped::Event(StreamEvent::ContentBlockDelta { index, delta }));
    }
    // Past the byte-shape path, the data is decoded once (as the standard decodes it).
    let data = event.text();
    if event.event == "content_block_delta"
        && let Some(fast) = fast_delta(&data)
    {
        return Ok(Mapped::Event(fast));
    }
    let envelope: Envelope<'_> = serde_json::from_str(&data)
        .map_err(|e| decode_error(format!("stream event {:?} is not JSON: {e}", event.event)))?;
    let kind = envelope.kind.as_deref().unwrap_or(&event.event);
    // Typed events first; message and block bodies stay JSON, since a block this version
    // cannot type is kept verbatim.
    let out = match kind {
        "content_block_stop" => {
            let stop: BlockStop = typed(event, &data)
                .map_err(|_| decode_error("stream event without a content block index".into()))?;
            StreamEvent::ContentBlockStop { index: stop.index }
        }
        "message_delta" => {
            let d: WireMessageDelta<'_> = typed(event, &data)?;
            let mut delta = MessageDelta::default();
            delta.stop_reason = d.delta.stop_reason.map(Cow::into_owned);
            delta.stop_sequence = d.delta.stop_sequence.map(Cow::into_owned);
            delta.stop_details = d.delta.stop_details.filter(|v| !v.is_null());
            return Ok(Mapped::Delta(delta, d.usage.as_ref().map(decode_usage)));
        }
        "message_stop" => StreamEvent::MessageStop,
        "ping" => StreamEvent::Ping,
        "message_start" => match decode_start(&data) {
            Some((message, report)) => return Ok(Mapped::Start(StreamEvent::message_start(message), report)),
            None => return map_json(event),
        },
        "content_block_start" => match serde_json::from_str::<WireBlockStart>(&data) {
            Ok(start) => return Ok(held_or_started(start.index, start.content_block.0)),
            Err(_) => return map_json(event),
        },
        "content_block_delta" | "error" => return map_json(event),
        other => {
            tracing::debug!(event = other, "skipping unknown Anthropic stream event");
            return Ok(Mapped::Skip);
        }
    };
    Ok(Mapped::Event(out))
}

/// `content_block_start`, typed (its block read as a response's blocks are).
#[derive(Deserialize)]
struct WireBlockStart {
    index: usize,
    content_block: ResponseBlock,
}

/// A block that starts: held when this version cannot type it (its deltas are merged into
/// its JSON), else started.
fn held_or_started(index: usize, block: Content) -> Mapped {
    match block {
        Content::Unknown(u) => Mapped::HeldStart { index, raw: u.raw },
        content_block => Mapped::Event(StreamEvent::block_start(index, content_block)),
    }
}

/// The events whose bodies are read as JSON: `message_start` and `content_block_start` when
/// their typed reading refused them, a delta the fast path did not take, an error object.
fn map_json(event: &SseEvent) -> Result<Mapped, ProviderError> {
    let mut data: Value = serde_json::from_str(&event.text())
        .map_err(|e| decode_error(format!("stream event {:?} is not JSON: {e}", event.event)))?;
    let kind = data.get("type").and_then(Value::as_str).unwrap_or(&event.event).to_owned();
    let out = match kind.as_str() {
        "message_start" => {
            let mut message = data.get_mut("message").map(Value::take).unwrap_or_default();
            let report = message.get_mut("usage").map(|u| decode_usage(&u.take())).unwrap_or_default();
            let mut message = decode_message(message);
            message.usage = Usage::default();
            return Ok(Mapped::Start(StreamEvent::message_start(message), report));
        }
        "content_block_start" => {
            let index = index(&data)?;
            let block = data.get_mut("content_block").map(Value::take).unwrap_or_default();
            return Ok(held_or_started(index, decode_block(block)));
        }
        "content_block_delta" => {
            let index = index(&data)?;
            let d = data.get_mut("delta").map(Value::take).unwrap_or_default();
            let delta = match d.get("type").and_then(Value::as_str).unwrap_or_default() {
                "text_delta" => ContentDelta::TextDelta { text: text_field(&d, "text") },
                "input_json_delta" => {
                    ContentDelta::InputJsonDelta { partial_json: text_field(&d, "partial_json") }
                }
                "thinking_delta" => ContentDelta::ThinkingDelta { thinking: text_field(&d, "thinking") },
                "signature_delta" => ContentDelta::SignatureDelta { signature: text_field(&d, "signature") },
                "citations_delta" => {
                    let citation: Citation = d
                        .get("citation")
                        .cloned()
                        .and_then(|c| serde_json::from_value(c).ok())
                        .ok_or_else(|| decode_error("citations_delta without a citation".into()))?;
                    ContentDelta::CitationsDelta { citation: Box::new(citation) }
                }
                _ => return Ok(Mapped::RawDelta { index }),
            };
            StreamEvent::ContentBlockDelta { index, delta }
        }
        _ => return Err(ProviderError::from_stream_error(PROVIDER, &data)),
    };
    Ok(Mapped::Event(out))
}

/// Maps one SSE event on its own. `Ok(None)` for events that carry nothing for the caller.
///
/// Without the rest of the stream an event can only say what it says itself: a usage frame
/// is returned as that frame's counts (absent fields as zero), a block this version cannot
/// type is returned as it started and a delta of a type this version does not model is
/// skipped. [`MessagesMapper`] applies the stream's state (usage snapshots, held blocks).
///
/// # Errors
/// A typed error for an `error` event; `Decode` for JSON that does not parse.
pub fn map_event(event: &SseEvent) -> Result<Option<StreamEvent>, ProviderError> {
    Ok(match map_raw(event)? {
        Mapped::Event(e) => Some(e),
        Mapped::Start(mut e, report) => {
            if let StreamEvent::MessageStart { message } = &mut e {
                message.usage = billed(&report.to_usage());
            }
            Some(e)
        }
        Mapped::Delta(delta, report) => {
            Some(StreamEvent::message_delta(delta, report.map(|r| billed(&r.to_usage()))))
        }
        Mapped::HeldStart { index, raw } => {
            Some(StreamEvent::block_start(index, Content::Unknown(UnknownContent::from_raw(raw))))
        }
        Mapped::RawDelta { index } => {
            tracing::debug!(index, "skipping a delta of a type this version does not model");
            None
        }
        Mapped::Skip => None,
    })
}

/// Merges one `content_block_delta` into a block this version cannot type (its JSON object).
///
/// A `compaction` block's `compaction_delta` appends its `content` to the summary (a
/// summary may come in pieces) and replaces every other field it carries
/// (`encrypted_content` is one opaque value, sent whole). For any other block:
/// `input_json_delta` pieces are joined and parsed into `input` when the block stops
/// (`partial` holds them), a `citations_delta` is appended to `citations`, and every other
/// field of the delta appends to a string field of the same name or replaces the field. Null
/// values carry nothing.
pub(crate) fn merge_delta(block: &mut Map<String, Value>, delta: Map<String, Value>, partial: &mut String) {
    let kind = delta.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
    let compaction = block.get("type").and_then(Value::as_str) == Some("compaction");
    for (key, value) in delta {
        if key == "type" || value.is_null() {
            continue;
        }
        match (kind.as_str(), key.as_str()) {
            ("input_json_delta", "partial_json") => partial.push_str(value.as_str().unwrap_or_default()),
            ("citations_delta", "citation") => match block.get_mut("citations") {
                Some(Value::Array(list)) => list.push(value),
                _ => {
                    block.insert("citations".into(), Value::Array(vec![value]));
                }
            },
            ("compaction_delta", k) if compaction && k != "content" => {
                block.insert(key, value);
            }
            _ => match (block.get_mut(&key), &value) {
                (Some(Value::String(have)), Value::String(more)) => have.push_str(more),
                _ => {
                    block.insert(key, value);
                }
            },
        }
    }
}

/// A block this version cannot type, held until its `content_block_stop`.
#[derive(Debug)]
struct Held {
    index: usize,
    raw: Map<String, Value>,
    partial_json: String,
}

impl Held {
    fn into_block(mut self) -> Content {
        if !self.partial_json.trim().is_empty() {
            let input = serde_json::from_str(&self.partial_json).unwrap_or(Value::String(self.partial_json));
            self.raw.insert("input".into(), input);
        }
        decode_block(Value::Object(self.raw))
    }
}

/// The delta object of a `content_block_delta` for a held block, if `data` is one.
fn held_delta(data: &str, held: &[Held]) -> Option<(usize, Map<String, Value>)> {
    let mut v: Value = serde_json::from_str(data).ok()?;
    let index = usize::try_from(v.get("index")?.as_u64()?).ok()?;
    if !held.iter().any(|h| h.index == index) {
        return None;
    }
    match v.get_mut("delta").map(Value::take) {
        Some(Value::Object(delta)) => Some((index, delta)),
        _ => None,
    }
}

/// The Messages API's [`StreamMapper`]: usage applied as snapshots (iterations billed),
/// blocks this version cannot type kept whole until they stop. Accumulating, pricing and the
/// end-of-stream check (`message_stop`) are [`Events`]'s.
#[derive(Debug, Default)]
pub struct MessagesMapper {
    /// The top-level usage as reported so far (iterations included, not yet added).
    usage: Usage,
    held: Vec<Held>,
}

impl MessagesMapper {
    /// A mapper for one stream.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies a usage report and returns the call's billed usage so far.
    fn snapshot(&mut self, report: &UsageReport) -> Usage {
        self.usage.apply_snapshot(report);
        billed(&self.usage)
    }
}

impl StreamMapper for MessagesMapper {
    type Frame = SseEvent;

    fn map(&mut self, sse: SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        dive_provider::map_by_last(self, sse, out)
    }

    fn map_last(
        &mut self,
        sse: &mut SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Option<StreamEvent>, ProviderError> {
        if self.held.is_empty()
            && let Some((index, delta)) = exact_delta_owned(&mut sse.data)
        {
            return Ok(Some(StreamEvent::ContentBlockDelta { index, delta }));
        }
        if !self.held.is_empty()
            && sse.event == "content_block_delta"
            && let Some((index, delta)) = held_delta(&sse.text(), &self.held)
            && let Some(h) = self.held.iter_mut().find(|h| h.index == index)
        {
            merge_delta(&mut h.raw, delta, &mut h.partial_json);
            return Ok(None);
        }
        let event = match map_raw(sse)? {
            Mapped::Event(StreamEvent::ContentBlockStop { index }) => {
                if let Some(pos) = self.held.iter().position(|h| h.index == index) {
                    let content_block = self.held.remove(pos).into_block();
                    out.push_back(StreamEvent::block_start(index, content_block));
                }
                StreamEvent::ContentBlockStop { index }
            }
            Mapped::Event(event) => event,
            Mapped::Start(mut event, report) => {
                let usage = self.snapshot(&report);
                if let StreamEvent::MessageStart { message } = &mut event {
                    message.usage = usage;
                }
                event
            }
            Mapped::Delta(delta, report) => {
                let usage = report.map(|r| self.snapshot(&r));
                StreamEvent::message_delta(delta, usage)
            }
            Mapped::HeldStart { index, raw } => {
                self.held.push(Held { index, raw, partial_json: String::new() });
                return Ok(None);
            }
            Mapped::RawDelta { index } => {
                tracing::debug!(index, "skipping a delta of a type this version does not model");
                return Ok(None);
            }
            Mapped::Skip => return Ok(None),
        };
        Ok(Some(event))
    }

    fn end_marker(&self) -> &'static str {
        "message_stop"
    }
}

/// The Messages API stream over already-framed SSE events: [`MessagesMapper`] in the shared
/// [`Events`] adapter; `pricing` sets `Usage::cost` on usage.
pub fn events(
    sse: BoxStream<Result<SseEvent, ProviderError>>,
    pricing: Option<Pricing>,
) -> Events<MessagesMapper> {
    Events::new(PROVIDER, sse, MessagesMapper::new(), pricing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sse(event: &str, data: &str) -> SseEvent {
        let mut e = SseEvent::default();
        e.event = event.into();
        e.data = data.as_bytes().to_vec();
        e
    }

    /// Every `message_start` and `content_block_start` of the fixtures, read typed and as
    /// JSON, means the same.
    #[test]
    fn typed_and_json_start_events_agree() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures"));
        let mut files = vec![dir.to_path_buf()];
        let mut seen = std::collections::BTreeMap::<String, usize>::new();
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for data in text.lines().filter_map(|l| l.strip_prefix("data: ")) {
                let kind = serde_json::from_str::<Value>(data)
                    .ok()
                    .and_then(|v| v["type"].as_str().map(str::to_owned));
                let Some(kind) =
                    kind.filter(|k| matches!(k.as_str(), "message_start" | "content_block_start"))
                else {
                    continue;
                };
                let event = sse(&kind, data);
                let typed = format!("{:?}", map_raw(&event).map_err(|e| e.message));
                let json = format!("{:?}", map_json(&event).map_err(|e| e.message));
                assert_eq!(typed, json, "{data}");
                *seen.entry(kind).or_default() += 1;
            }
        }
        assert!(seen.get("message_start").is_some_and(|n| *n >= 5), "{seen:?}");
        assert!(seen.get("content_block_start").is_some_and(|n| *n >= 10), "{seen:?}");
        for odd in [
            r#"{"type":"message_start","message":{"id":7}}"#,
            r#"{"type":"message_start"}"#,
            r#"{"type":"content_block_start","index":1}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"s","name":"web_search","input":{}}}"#,
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"future_block","x":[1]}}"#,
        ] {
            let kind = if odd.contains("message_start") { "message_start" } else { "content_block_start" };
            let event = sse(kind, odd);
            assert_eq!(
                format!("{:?}", map_raw(&event).map_err(|e| e.message)),
                format!("{:?}", map_json(&event).map_err(|e| e.message)),
                "{odd}"
            );
        }
    }

    #[test]
    fn fast_and_general_delta_paths_agree() {
        for delta in [
            r#"{"type":"text_delta","text":"a \"quoted\" \u00e9 line\n"}"#,
            r#"{"type":"input_json_delta","partial_json":"{\"x\": "}"#,
            r#"{"type":"thinking_delta","thinking":"hm"}"#,
            r#"{"type":"signature_delta","signature":"c2ln"}"#,
        ] {
            let data = format!(r#"{{"type":"content_block_delta","index":3,"delta":{delta}}}"#);
            let fast = map_event(&sse("content_block_delta", &data)).unwrap();
            let general = map_event(&sse("message", &data)).unwrap();
            assert!(fast.is_some());
            assert_eq!(fast, general, "{delta}");
        }
        let unknown = r#"{"type":"content_block_delta","index":0,"delta":{"type":"future_delta","x":1}}"#;
        assert_eq!(map_event(&sse("content_block_delta", unknown)).unwrap(), None);
    }

    #[test]
    fn typed_events_read_stop_fields_and_fall_back_to_the_sse_name() {
        let data = r#"{"delta":{"stop_reason":"pause_turn","stop_sequence":null,"stop_details":null},"usage":{"output_tokens":7}}"#;
        let Some(StreamEvent::MessageDelta { delta, usage }) =
            map_event(&sse("message_delta", data)).unwrap()
        else {
            panic!("a message_delta")
        };
        assert_eq!(
            (delta.stop_reason.as_deref(), delta.stop_sequence, delta.stop_details),
            (Some("pause_turn"), None, None)
        );
        assert_eq!(usage.map(|u| u.output_tokens), Some(7));
        let stop = map_event(&sse("message", r#"{"type":"content_block_stop","index":4}"#)).unwrap();
        assert_eq!(stop, Some(StreamEvent::ContentBlockStop { index: 4 }));
        let e = map_event(&sse("content_block_stop", r#"{"type":"content_block_stop"}"#)).unwrap_err();
        assert_eq!(
            (e.kind, e.message.as_str()),
            (LlmErrorKind::Decode, "stream event without a content block index")
        );
        let e = map_event(&sse(
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#,
        ))
        .unwrap_err();
        assert_eq!(e.kind, LlmErrorKind::Overloaded);
        assert_eq!(map_event(&sse("future", r#"{"type":"future_event"}"#)).unwrap(), None);
    }

    fn run(events: &[(&str, &str)], pricing: Option<Pricing>) -> dive_core::ModelResponse {
        let items: Vec<Result<SseEvent, ProviderError>> = events.iter().map(|(e, d)| Ok(sse(e, d))).collect();
        let mut stream = super::events(Box::pin(futures_util::stream::iter(items)), pricing);
        let mut acc = dive_core::ResponseAccumulator::new();
        futures::executor::block_on(async {
            use futures_util::StreamExt;
            while let Some(event) = stream.next().await {
                acc.add(&event.unwrap()).unwrap();
            }
        });
        acc.into_response()
    }

    /// A compaction step's usage: message_start reports the compaction step's counts, the final
    /// message_delta the answer's, with the step itemised in `iterations` (the top-level fields
    /// leave it out). The event pair is the one a public gateway (maximhq/bifrost) tests its
    /// Anthropic passthrough usage with; the totals follow from the documented rule.
    const COMPACTION_START: &str = r#"{"type":"message_start","message":{"id":"msg_c","model":"claude-opus-4-6","content":[],"usage":{"input_tokens":106576,"output_tokens":5,"cache_creation_input_tokens":3146}}}"#;
    const COMPACTION_DELTA: &str = r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":2,"output_tokens":74,"cache_creation_input_tokens":445,"cache_read_input_tokens":3146,"output_tokens_details":{"thinking_tokens":50},"iterations":[{"type":"compaction","input_tokens":106576,"output_tokens":312,"cache_creation_input_tokens":3146},{"type":"message","input_tokens":2,"output_tokens":74,"cache_creation_input_tokens":445,"cache_read_input_tokens":3146}]}}"#;

    #[test]
    fn a_compaction_step_is_billed_once_and_lower_final_counts_win() {
        let pricing = Pricing::new(5.0, 25.0).with_cache(0.5, 6.25);
        let r = run(
            &[
                ("message_start", COMPACTION_START),
                ("message_delta", COMPACTION_DELTA),
                ("message_stop", r#"{"type":"message_stop"}"#),
            ],
            Some(pricing.clone()),
        );
        let u = &r.usage;
        // answer + compaction step: 2 + 106576, 74 + 312, cache writes 445 + 3146, reads 3146 + 0.
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens),
            (106_578, 386, 3_591, 3_146)
        );
        assert_eq!(u.reasoning_tokens, 50);
        assert_eq!(
            u.iterations.iter().map(|i| i.kind.as_str()).collect::<Vec<_>>(),
            ["compaction", "message"]
        );
        let mut tokens_only = u.clone();
        tokens_only.cost = None;
        assert_eq!(u.cost, Some(pricing.cost_of(&tokens_only)), "cost follows the final usage");
    }

    #[test]
    fn unknown_blocks_keep_every_delta() {
        let r = run(
            &[
                (
                    "message_start",
                    r#"{"type":"message_start","message":{"id":"m","model":"x","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}"#,
                ),
                (
                    "content_block_start",
                    r#"{"type":"content_block_start","index":0,"content_block":{"type":"future_block","note":"","input":{}}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"future_delta","note":"a","level":1}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","note":"b"}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"q\":"}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"1}"}}"#,
                ),
                (
                    "content_block_delta",
                    r#"{"type":"content_block_delta","index":0,"delta":{"type":"future_delta","level":2}}"#,
                ),
                ("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
                (
                    "message_delta",
                    r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#,
                ),
                ("message_stop", r#"{"type":"message_stop"}"#),
            ],
            None,
        );
        assert_eq!(
            serde_json::to_value(&r.content[0]).unwrap(),
            serde_json::json!({"type": "future_block", "note": "ab", "level": 2, "input": {"q": 1}})
        );
    }
}
