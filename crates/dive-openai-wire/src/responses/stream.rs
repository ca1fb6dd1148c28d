//! Responses API stream events → [`StreamEvent`]s.
//!
//! Each reasoning item, message content part and function call is one block; provider-run
//! tool items arrive whole at `response.output_item.done`. Reasoning summary parts are joined
//! with a blank line, the encrypted content becomes the block's signature when the item is
//! done. `response.completed`, `response.incomplete` and `response.failed` end the response;
//! a stream that ends without one of them is `StreamInterrupted`. Unknown events are skipped.

use std::borrow::Cow;
use std::collections::VecDeque;

use dive_core::{
    Content, ContentDelta, LlmErrorKind, MessageDelta, ModelResponse, RefusalContent, StreamEvent,
    ThinkingContent,
};
use dive_provider::{ProviderError, SseEvent, StreamMapper};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::responses::decode::{
    SUMMARY_SEPARATOR, citation, decode_item, decode_response, function_call_block, message_metadata,
    reasoning_metadata, text_block,
};
use crate::stream_error::stream_error;
use crate::wire::text;

mod exact;
use exact::{DeltaKind, DeltaShape};

/// A block's key: the output item index, and the content part index inside a message.
type Key = (u64, Option<u64>);

/// The Responses API [`StreamMapper`].
#[derive(Debug)]
pub struct ResponsesMapper {
    provider: &'static str,
    started: bool,
    next_index: usize,
    open: Vec<(Key, usize)>,
    messages: Vec<(u64, Map<String, Value>)>,
    arguments_seen: Vec<u64>,
    done: bool,
    /// Delta events in the API's own byte shape skip the JSON parser (off in the tests that
    /// hold that path to the serde one).
    exact: bool,
    /// The shape of the last delta event the fast path read.
    delta_shape: DeltaShape,
}

/// Responses API stream events over a stream of SSE events.
pub type ResponsesEvents = dive_provider::Events<ResponsesMapper>;

/// One Responses stream event, typed: the frequent small fields (`type`, indexes, `delta`)
/// are read without a JSON tree; items, parts, annotations and whole responses, which arrive
/// a few times a stream, stay JSON values.
#[derive(Debug, Default, Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    output_index: Option<u64>,
    #[serde(default)]
    content_index: Option<u64>,
    #[serde(default)]
    summary_index: Option<u64>,
    /// Text for every delta event this mapper reads; kept as a value so an event whose
    /// `delta` is something else is skipped, not a decode error.
    #[serde(default)]
    delta: Option<Value>,
    #[serde(default)]
    item: Option<Value>,
    #[serde(default)]
    part: Option<Value>,
    #[serde(default)]
    annotation: Option<Value>,
    #[serde(default)]
    response: Option<Value>,
}

/// The text of a `delta` (empty when it is not text).
fn delta_text(delta: Option<Value>) -> String {
    match delta {
        Some(Value::String(text)) => text,
        _ => String::new(),
    }
}

impl ResponsesMapper {
    /// A mapper reporting errors under this provider name.
    #[must_use]
    pub fn new(provider: &'static str) -> Self {
        Self {
            provider,
            started: false,
            next_index: 0,
            open: Vec::new(),
            messages: Vec::new(),
            arguments_seen: Vec::new(),
            done: false,
            exact: true,
            delta_shape: DeltaShape::default(),
        }
    }

    fn start(&mut self, response: Option<&Value>, out: &mut VecDeque<StreamEvent>) {
        if self.started {
            return;
        }
        self.started = true;
        let mut message = ModelResponse::default();
        if let Some(r) = response {
            message.id = text(r, "id").unwrap_or_default();
            message.model = text(r, "model").unwrap_or_default();
        }
        out.push_back(StreamEvent::message_start(message));
    }

    fn open(&mut self, key: Key, block: Content, out: &mut VecDeque<StreamEvent>) -> usize {
        let index = self.next_index;
        self.next_index += 1;
        self.open.push((key, index));
        out.push_back(StreamEvent::block_start(index, block));
        index
    }

    fn index(&self, key: Key) -> Option<usize> {
        self.open.iter().find(|(k, _)| *k == key).map(|(_, i)| *i)
    }

    fn close(&mut self, key: Key, out: &mut VecDeque<StreamEvent>) {
        if let Some(pos) = self.open.iter().position(|(k, _)| *k == key) {
            let (_, index) = self.open.remove(pos);
            out.push_back(StreamEvent::ContentBlockStop { index });
        }
    }

    fn delta(&self, key: Key, delta: ContentDelta, out: &mut VecDeque<StreamEvent>) {
        out.extend(self.delta_event(key, delta));
    }

    /// The delta of the block at `key`; `None` when no such block is open.
    fn delta_event(&self, key: Key, delta: ContentDelta) -> Option<StreamEvent> {
        self.index(key).map(|index| StreamEvent::ContentBlockDelta { index, delta })
    }

    fn item_added(&mut self, output: u64, item: &Value, out: &mut VecDeque<StreamEvent>) {
        match item.get("type").and_then(Value::as_str) {
            Some("reasoning") => {
                let mut t = ThinkingContent::default();
                t.id = text(item, "id");
                self.open((output, None), Content::Thinking(t), out);
            }
            Some("function_call") => {
                let block = Content::ToolUse(function_call_block(item, false));
                self.open((output, None), block, out);
            }
            Some("message") => self.messages.push((output, message_metadata(item))),
            _ => {}
        }
    }

    fn item_done(&mut self, output: u64, item: &Value, out: &mut VecDeque<StreamEvent>) {
        let key = (output, None);
        match item.get("type").and_then(Value::as_str) {
            Some("reasoning") => {
                if let Some(sig) = text(item, "encrypted_content").filter(|s| !s.is_empty()) {
                    self.delta(key, ContentDelta::SignatureDelta { signature: sig }, out);
                }
                let metadata = reasoning_metadata(item);
                if !metadata.is_empty() {
                    self.delta(key, ContentDelta::MetadataDelta { metadata }, out);
                }
                self.close(key, out);
            }
            Some("function_call") => {
                if !self.arguments_seen.contains(&output)
                    && let Some(args) =
                        item.get("arguments").and_then(Value::as_str).filter(|a| !a.is_empty())
                {
                    self.delta(key, ContentDelta::InputJsonDelta { partial_json: args.to_owned() }, out);
                }
                self.close(key, out);
            }
            Some("message") => {
                let parts: Vec<Key> = self.open.iter().map(|(k, _)| *k).filter(|k| k.0 == output).collect();
                for k in parts {
                    self.close(k, out);
                }
            }
            _ => {
                for block in decode_item(item) {
                    self.open(key, block, out);
                    self.close(key, out);
                }
            }
        }
    }

    fn finish(&mut self, response: &Value, out: &mut VecDeque<StreamEvent>) {
        self.done = true;
        for (_, index) in std::mem::take(&mut self.open) {
            out.push_back(StreamEvent::ContentBlockStop { index });
        }
        let decoded = decode_response(response);
        let mut delta = MessageDelta::stop(decoded.stop_reason);
        delta.stop_details = decoded.stop_details;
        out.push_back(StreamEvent::message_delta(delta, Some(decoded.usage)));
        out.push_back(StreamEvent::MessageStop);
    }
}

impl StreamMapper for ResponsesMapper {
    type Frame = SseEvent;

    fn end_marker(&self) -> &'static str {
        "response.completed"
    }

    fn map(&mut self, event: SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        dive_provider::map_by_last(self, event, out)
    }

    fn map_last(
        &mut self,
        event: &mut SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Option<StreamEvent>, ProviderError> {
        if self.done {
            return Ok(None);
        }
        if self.exact
            && let Some(d) = self.delta_shape.read(&event.data)
        {
            let output = d.output_index.unwrap_or(0);
            let text = d.delta.take_from(&mut event.data);
            return Ok(match d.kind {
                DeltaKind::Text => {
                    self.delta_event((output, d.content_index), ContentDelta::TextDelta { text })
                }
                DeltaKind::Summary => {
                    self.delta_event((output, None), ContentDelta::ThinkingDelta { thinking: text })
                }
                DeltaKind::Arguments => {
                    self.arguments_seen.push(output);
                    self.delta_event((output, None), ContentDelta::InputJsonDelta { partial_json: text })
                }
            });
        }
        self.map_event(event, out).map(|()| None)
    }

    fn end(&mut self, _out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        if self.done {
            return Ok(());
        }
        Err(ProviderError::new(
            self.provider,
            LlmErrorKind::StreamInterrupted,
            "stream ended before response.completed",
        ))
    }
}

impl ResponsesMapper {
    /// Any event but a delta read by its byte shape: its events go to `out`.
    fn map_event(&mut self, event: &SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        // Past the byte-shape path, the data is decoded once (as the standard decodes it).
        let body = event.text();
        if body.trim().is_empty() || body.trim() == "[DONE]" {
            return Ok(());
        }
        let mut data: Event<'_> = serde_json::from_str(&body).map_err(|e| {
            ProviderError::new(self.provider, LlmErrorKind::Decode, format!("stream event is not JSON: {e}"))
        })?;
        let kind = data.kind.take();
        let output = data.output_index.unwrap_or(0);
        let part = data.content_index;
        match kind.as_deref().unwrap_or(&event.event) {
            "response.created" | "response.in_progress" | "response.queued" => {
                self.start(data.response.as_ref(), out);
            }
            "response.output_item.added" => {
                self.start(None, out);
                self.item_added(output, data.item.as_ref().unwrap_or(&Value::Null), out);
            }
            "response.content_part.added" => {
                self.start(None, out);
                let p = data.part.unwrap_or_default();
                let meta = self
                    .messages
                    .iter()
                    .find(|(o, _)| *o == output)
                    .map(|(_, m)| m.clone())
                    .unwrap_or_default();
                let block = match p.get("type").and_then(Value::as_str) {
                    Some("output_text") => {
                        let mut t = text_block(&p, &meta);
                        t.text.clear();
                        t.citations.clear();
                        Content::Text(t)
                    }
                    Some("refusal") => Content::Refusal(RefusalContent::new("")),
                    _ => return Ok(()),
                };
                self.open((output, part), block, out);
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let text = delta_text(data.delta);
                self.delta((output, part), ContentDelta::TextDelta { text }, out);
            }
            "response.output_text.annotation.added" => {
                if let Some(c) = data.annotation.as_ref().and_then(citation) {
                    self.delta((output, part), ContentDelta::CitationsDelta { citation: Box::new(c) }, out);
                }
            }
            "response.content_part.done" => self.close((output, part), out),
            "response.reasoning_summary_part.added" => {
                if data.summary_index.is_some_and(|i| i > 0) {
                    let thinking = SUMMARY_SEPARATOR.to_owned();
                    self.delta((output, None), ContentDelta::ThinkingDelta { thinking }, out);
                }
            }
            "response.reasoning_summary_text.delta" => {
                let thinking = delta_text(data.delta);
                self.delta((output, None), ContentDelta::ThinkingDelta { thinking }, out);
            }
            "response.function_call_arguments.delta" => {
                self.arguments_seen.push(output);
                let partial_json = delta_text(data.delta);
                self.delta((output, None), ContentDelta::InputJsonDelta { partial_json }, out);
            }
            "response.output_item.done" => {
                self.start(None, out);
                self.item_done(output, data.item.as_ref().unwrap_or(&Value::Null), out);
            }
            "response.completed" | "response.incomplete" => {
                let response = data.response.unwrap_or_default();
                self.start(Some(&response), out);
                self.finish(&response, out);
            }
            "response.failed" => {
                // `response.error` is `{code, message}`; a failed response without one still
                // fails, in words that say so.
                let error = data.response.as_ref().and_then(|r| r.get("error")).filter(|e| e.is_object()).cloned().unwrap_or_else(
                    || serde_json::json!({"code": "response_failed", "message": "the response failed without an error"}),
                );
                return Err(stream_error(self.provider, &serde_json::json!({ "error": error })));
            }
            "error" => {
                let whole: Value = serde_json::from_str(&body).unwrap_or_default();
                return Err(stream_error(self.provider, &whole));
            }
            other => tracing::trace!(event = other, "skipping Responses stream event"),
        }
        Ok(())
    }
}
