//! `/api/chat` NDJSON lines → dive-core [`StreamEvent`]s.
//!
//! Ollama streams `message.thinking` and `message.content` fragments, whole
//! `message.tool_calls`, and ends with a `done: true` line carrying `done_reason` and the
//! token counts. [`ChatMapper`] reads each line as a typed [`Line`] and turns fragments into
//! blocks (a new block whenever the kind changes: thinking, text, or `<think>…</think>`
//! inside `content`); dive-provider's [`Events`] accumulates them and turns an
//! `{"error": …}` line, a broken connection or a stream without its `done` line into a typed
//! [`ProviderError`] carrying the finished part of the response, never a silent success.

use std::collections::VecDeque;

use dive_core::{
    BoxStream, Content, ContentDelta, LlmErrorKind, MessageDelta, ModelResponse, Pricing, StreamEvent,
    ThinkingContent,
};
use dive_provider::{Events, NdjsonLine, ProviderError, StreamMapper, classify};
use futures_util::StreamExt;
use serde_json::Value;

use crate::PROVIDER;
use crate::decode::{decode_tool_call, decode_usage, stop_reason};
use crate::response::Line;
use crate::think::{ThinkSegment, ThinkSplitter};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
}

/// The error an `{"error": …}` line stands for. Ollama sends a bare message; one that
/// [`classify`] cannot place is a failure of the server while generating (`Server`, which
/// is retried when it arrives before any output), and "overloaded"/"busy" is `Overloaded`.
pub(crate) fn line_error(error: &Value) -> ProviderError {
    match error {
        Value::String(message) => {
            let lower = message.to_ascii_lowercase();
            let kind = match classify(None, None, message) {
                LlmErrorKind::Other if lower.contains("overloaded") || lower.contains("busy") => {
                    LlmErrorKind::Overloaded
                }
                LlmErrorKind::Other => LlmErrorKind::Server,
                kind => kind,
            };
            ProviderError::new(PROVIDER, kind, message.clone())
        }
        other => ProviderError::from_stream_error(PROVIDER, other),
    }
}

/// Maps the NDJSON lines of one `/api/chat` stream (see [`events`]).
#[derive(Debug, Default)]
pub struct ChatMapper {
    started: bool,
    splitter: ThinkSplitter,
    open: Option<(usize, Kind)>,
    next_index: usize,
    called_tools: bool,
}

impl ChatMapper {
    /// A mapper for one stream.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn close(&mut self, out: &mut VecDeque<StreamEvent>) {
        if let Some((index, _)) = self.open.take() {
            out.push_back(StreamEvent::ContentBlockStop { index });
        }
    }

    fn append(&mut self, kind: Kind, text: String, out: &mut VecDeque<StreamEvent>) {
        if self.open.map(|(_, k)| k) != Some(kind) {
            self.close(out);
            let index = self.next_index;
            self.next_index += 1;
            let content_block = match kind {
                Kind::Text => Content::text(""),
                Kind::Thinking => Content::Thinking(ThinkingContent::new("", None)),
            };
            out.push_back(StreamEvent::block_start(index, content_block));
            self.open = Some((index, kind));
        }
        let index = self.next_index - 1;
        let delta = match kind {
            Kind::Text => ContentDelta::TextDelta { text },
            Kind::Thinking => ContentDelta::ThinkingDelta { thinking: text },
        };
        out.push_back(StreamEvent::ContentBlockDelta { index, delta });
    }

    fn segments(&mut self, segments: Vec<ThinkSegment>, out: &mut VecDeque<StreamEvent>) {
        for s in segments {
            match s {
                ThinkSegment::Thinking(t) => self.append(Kind::Thinking, t, out),
                ThinkSegment::Text(t) => self.append(Kind::Text, t, out),
            }
        }
    }
}

impl StreamMapper for ChatMapper {
    type Frame = NdjsonLine;

    fn map(&mut self, frame: NdjsonLine, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        let line = Line::parse(frame.as_bytes()).map_err(|e| {
            ProviderError::new(PROVIDER, LlmErrorKind::Decode, format!("unreadable stream line: {e}"))
        })?;
        if let Some(error) = &line.error {
            return Err(line_error(error));
        }
        if !self.started {
            self.started = true;
            let mut message = ModelResponse::default();
            message.model = line.model.as_deref().unwrap_or_default().to_owned();
            out.push_back(StreamEvent::message_start(message));
        }
        let done = line.is_done();
        let usage = decode_usage(&line);
        let done_reason = line.done_reason;
        let m = line.message.unwrap_or_default();
        if let Some(thinking) = m.thinking.filter(|t| !t.is_empty()) {
            self.append(Kind::Thinking, thinking.into_owned(), out);
        }
        if let Some(text) = m.content.filter(|t| !t.is_empty()) {
            let segments = self.splitter.push(&text);
            self.segments(segments, out);
        }
        if let Some(calls) = m.tool_calls.filter(|c| !c.is_empty()) {
            let held = self.splitter.finish();
            self.segments(held, out);
            self.close(out);
            for call in calls {
                let call = decode_tool_call(call);
                let partial_json = call.input.to_string();
                let mut start = call;
                start.input = Value::Object(serde_json::Map::new()).into();
                let index = self.next_index;
                self.next_index += 1;
                out.push_back(StreamEvent::block_start(index, Content::ToolUse(start)));
                out.push_back(StreamEvent::ContentBlockDelta {
                    index,
                    delta: ContentDelta::InputJsonDelta { partial_json },
                });
                out.push_back(StreamEvent::ContentBlockStop { index });
            }
            self.called_tools = true;
        }
        if done {
            let held = self.splitter.finish();
            self.segments(held, out);
            self.close(out);
            let reason = stop_reason(done_reason.as_deref(), self.called_tools);
            out.push_back(StreamEvent::message_delta(MessageDelta::stop(reason), Some(usage)));
            out.push_back(StreamEvent::MessageStop);
        }
        Ok(())
    }

    fn end_marker(&self) -> &'static str {
        "its final `done: true` line"
    }
}

/// The stream of one `/api/chat` call: NDJSON lines in (see
/// [`decode_ndjson_lines`](dive_provider::decode_ndjson_lines)), each read straight into
/// typed structs, [`StreamEvent`]s out, with the final usage priced (`pricing`) and the end
/// of the stream checked (see [`Events`]). This is what the provider runs.
pub fn line_events(
    lines: BoxStream<Result<NdjsonLine, ProviderError>>,
    pricing: Option<Pricing>,
) -> Events<ChatMapper> {
    Events::new(PROVIDER, lines, ChatMapper::new(), pricing)
}

/// [`line_events`] for lines already decoded as JSON values (see
/// [`decode_ndjson`](dive_provider::decode_ndjson)); each is written back as a line first.
pub fn events(
    lines: BoxStream<Result<Value, ProviderError>>,
    pricing: Option<Pricing>,
) -> Events<ChatMapper> {
    line_events(Box::pin(lines.map(|line| line.map(NdjsonLine::from))), pricing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive_core::{EventStream, LlmError};
    use futures::StreamExt;
    use serde_json::json;

    fn run(lines: Vec<Value>) -> (Vec<StreamEvent>, Option<LlmError>, EventStream) {
        let inner = futures::stream::iter(lines.into_iter().map(Ok));
        let mut events = events(Box::pin(inner), None).into_event_stream();
        let mut out = Vec::new();
        let mut err = None;
        futures::executor::block_on(async {
            while let Some(item) = events.next().await {
                match item {
                    Ok(e) => out.push(e),
                    Err(e) => err = Some(e),
                }
            }
        });
        (out, err, events)
    }

    fn chunk(message: Value) -> Value {
        json!({"model": "m", "message": message, "done": false})
    }

    #[test]
    fn think_tags_split_across_lines_become_a_thinking_block() {
        let lines = vec![
            chunk(json!({"role": "assistant", "content": "<thi"})),
            chunk(json!({"role": "assistant", "content": "nk>plan"})),
            chunk(json!({"role": "assistant", "content": "</think>\n\nHi"})),
            json!({"model": "m", "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
                   "prompt_eval_count": 3, "eval_count": 4}),
        ];
        let (_, err, acc) = run(lines);
        assert!(err.is_none());
        let r = acc.into_response();
        let kinds: Vec<&str> = r.content.iter().map(Content::kind).collect();
        assert_eq!(kinds, ["thinking", "text"]);
        assert_eq!(r.text_content(), "Hi");
        assert_eq!(r.stop_reason, "stop");
        assert_eq!(r.usage.output_tokens, 4);
    }

    #[test]
    fn an_error_line_mid_stream_keeps_the_finished_blocks() {
        let lines = vec![
            chunk(json!({"role": "assistant", "thinking": "hm"})),
            chunk(json!({"role": "assistant", "content": "Hel"})),
            json!({"error": "an error was encountered while running the model: unexpected EOF"}),
        ];
        let (_, err, events) = run(lines);
        let err = err.unwrap();
        assert!(events.has_started());
        let partial = events.into_partial_response(false);
        assert_eq!(partial.content.len(), 1, "only the finished thinking block is kept");
        assert!(err.message.contains("unexpected EOF"));
    }

    #[test]
    fn a_stream_without_done_is_interrupted() {
        let (_, err, _) = run(vec![chunk(json!({"role": "assistant", "content": "Hel"}))]);
        assert_eq!(err.unwrap().kind, LlmErrorKind::StreamInterrupted);
    }
}
