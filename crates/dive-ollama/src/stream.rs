//! `/api/chat` NDJSON lines → dive-core [`StreamEvent`]s.
//!
//! Ollama streams `message.thinking` and `message.content` fragments, whole
//! `message.tool_calls`, and ends with a `done: true` line carrying `done_reason` and the
//! token counts. [`OllamaEvents`] turns fragments into blocks (a new block whenever the kind
//! changes: thinking, text, or `<think>…</think>` inside `content`), feeds every event to a
//! [`ResponseAccumulator`], and turns an `{"error": …}` line, a broken connection or a stream
//! without its `done` line into a typed [`ProviderError`] carrying the finished part of the
//! response, never a silent success.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use dive_core::{
    Content, ContentDelta, LlmErrorKind, MessageDelta, ModelResponse, Pricing, ResponseAccumulator,
    StreamEvent, ThinkingContent,
};
use dive_provider::{ProviderError, classify};
use futures_util::Stream;
use serde_json::Value;

use crate::PROVIDER;
use crate::decode::{decode_tool_call, decode_usage, price, stop_reason};
use crate::think::{ThinkSegment, ThinkSplitter};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
}

/// The stream adapter: NDJSON values in (see [`decode_ndjson`](crate::decode_ndjson)),
/// [`StreamEvent`]s out.
pub struct OllamaEvents<S> {
    inner: S,
    acc: ResponseAccumulator,
    queue: VecDeque<StreamEvent>,
    pricing: Option<Pricing>,
    splitter: ThinkSplitter,
    open: Option<(usize, Kind)>,
    next_index: usize,
    called_tools: bool,
    ended: bool,
    finished: bool,
}

impl<S> std::fmt::Debug for OllamaEvents<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OllamaEvents").field("events", &self.acc.event_count()).finish_non_exhaustive()
    }
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

impl<S> OllamaEvents<S>
where
    S: Stream<Item = Result<Value, ProviderError>> + Unpin,
{
    /// Wraps a stream of NDJSON values; `pricing` sets `Usage::cost` on the final usage.
    pub fn new(inner: S, pricing: Option<Pricing>) -> Self {
        Self {
            inner,
            acc: ResponseAccumulator::new(),
            queue: VecDeque::new(),
            pricing,
            splitter: ThinkSplitter::new(),
            open: None,
            next_index: 0,
            called_tools: false,
            ended: false,
            finished: false,
        }
    }

    fn fail(&mut self, error: ProviderError) -> ProviderError {
        self.finished = true;
        self.queue.clear();
        let acc = std::mem::take(&mut self.acc);
        let error = if acc.has_started() { error.with_partial(acc.into_finished_response()) } else { error };
        tracing::debug!(kind = %error.kind, "Ollama stream failed: {}", error.message);
        error
    }

    fn close(&mut self) {
        if let Some((index, _)) = self.open.take() {
            self.queue.push_back(StreamEvent::ContentBlockStop { index });
        }
    }

    fn append(&mut self, kind: Kind, text: String) {
        if self.open.map(|(_, k)| k) != Some(kind) {
            self.close();
            let index = self.next_index;
            self.next_index += 1;
            let content_block = match kind {
                Kind::Text => Content::text(""),
                Kind::Thinking => Content::Thinking(ThinkingContent::new("", None)),
            };
            self.queue.push_back(StreamEvent::ContentBlockStart { index, content_block });
            self.open = Some((index, kind));
        }
        let index = self.next_index - 1;
        let delta = match kind {
            Kind::Text => ContentDelta::TextDelta { text },
            Kind::Thinking => ContentDelta::ThinkingDelta { thinking: text },
        };
        self.queue.push_back(StreamEvent::ContentBlockDelta { index, delta });
    }

    fn segments(&mut self, segments: Vec<ThinkSegment>) {
        for s in segments {
            match s {
                ThinkSegment::Thinking(t) => self.append(Kind::Thinking, t),
                ThinkSegment::Text(t) => self.append(Kind::Text, t),
            }
        }
    }

    /// Queues the events one line stands for.
    fn line(&mut self, v: &Value) -> Result<(), ProviderError> {
        if let Some(error) = v.get("error").filter(|e| !e.is_null()) {
            return Err(line_error(error));
        }
        if !self.acc.has_started() && self.queue.is_empty() {
            let mut message = ModelResponse::default();
            message.model = v.get("model").and_then(Value::as_str).unwrap_or_default().to_owned();
            self.queue.push_back(StreamEvent::MessageStart { message });
        }
        let m = v.get("message").cloned().unwrap_or_default();
        if let Some(thinking) = m.get("thinking").and_then(Value::as_str).filter(|t| !t.is_empty()) {
            self.append(Kind::Thinking, thinking.to_owned());
        }
        if let Some(text) = m.get("content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
            let segments = self.splitter.push(text);
            self.segments(segments);
        }
        if let Some(calls) = m.get("tool_calls").and_then(Value::as_array).filter(|c| !c.is_empty()) {
            let held = self.splitter.finish();
            self.segments(held);
            self.close();
            for call in calls {
                let call = decode_tool_call(call);
                let partial_json = call.input.to_string();
                let mut start = call;
                start.input = Value::Object(serde_json::Map::new());
                let index = self.next_index;
                self.next_index += 1;
                self.queue.push_back(StreamEvent::ContentBlockStart {
                    index,
                    content_block: Content::ToolUse(start),
                });
                self.queue.push_back(StreamEvent::ContentBlockDelta {
                    index,
                    delta: ContentDelta::InputJsonDelta { partial_json },
                });
                self.queue.push_back(StreamEvent::ContentBlockStop { index });
            }
            self.called_tools = true;
        }
        if v.get("done").and_then(Value::as_bool) == Some(true) {
            let held = self.splitter.finish();
            self.segments(held);
            self.close();
            let mut usage = decode_usage(v);
            price(&mut usage, self.pricing.as_ref());
            let reason = stop_reason(v.get("done_reason").and_then(Value::as_str), self.called_tools);
            self.queue.push_back(StreamEvent::MessageDelta {
                delta: MessageDelta::stop(reason),
                usage: Some(usage),
            });
            self.queue.push_back(StreamEvent::MessageStop);
            self.ended = true;
        }
        Ok(())
    }
}

impl<S> Stream for OllamaEvents<S>
where
    S: Stream<Item = Result<Value, ProviderError>> + Unpin,
{
    type Item = Result<StreamEvent, ProviderError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if this.finished {
                return Poll::Ready(None);
            }
            if let Some(event) = this.queue.pop_front() {
                if let Err(e) = this.acc.add(&event) {
                    let e = ProviderError::new(
                        PROVIDER,
                        LlmErrorKind::Decode,
                        format!("inconsistent stream: {e}"),
                    );
                    return Poll::Ready(Some(Err(this.fail(e))));
                }
                return Poll::Ready(Some(Ok(event)));
            }
            if this.ended {
                // Nothing after the `done` line belongs to this response.
                this.finished = true;
                return Poll::Ready(None);
            }
            let item = match Pin::new(&mut this.inner).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(item) => item,
            };
            match item {
                Some(Ok(line)) => {
                    if let Err(e) = this.line(&line) {
                        return Poll::Ready(Some(Err(this.fail(e))));
                    }
                }
                Some(Err(mut e)) => {
                    if this.acc.has_started() {
                        e.kind = LlmErrorKind::StreamInterrupted;
                        e.message = format!("stream broke after it started: {}", e.message);
                    }
                    return Poll::Ready(Some(Err(this.fail(e))));
                }
                None => {
                    let e = ProviderError::new(
                        PROVIDER,
                        LlmErrorKind::StreamInterrupted,
                        "stream ended without its final `done: true` line",
                    );
                    return Poll::Ready(Some(Err(this.fail(e))));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;
    use serde_json::json;

    fn run(lines: Vec<Value>) -> (Vec<StreamEvent>, Option<ProviderError>, ResponseAccumulator) {
        let inner = futures::stream::iter(lines.into_iter().map(Ok));
        let mut events = OllamaEvents::new(inner, None);
        let mut out = Vec::new();
        let mut acc = ResponseAccumulator::new();
        let mut err = None;
        futures::executor::block_on(async {
            while let Some(item) = events.next().await {
                match item {
                    Ok(e) => {
                        acc.add(&e).unwrap();
                        out.push(e);
                    }
                    Err(e) => err = Some(e),
                }
            }
        });
        (out, err, acc)
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
        let (_, err, _) = run(lines);
        let err = err.unwrap();
        let partial = err.partial_response().unwrap();
        assert_eq!(partial.content.len(), 1, "only the finished thinking block is kept");
        assert!(err.message.contains("unexpected EOF"));
    }

    #[test]
    fn a_stream_without_done_is_interrupted() {
        let (_, err, _) = run(vec![chunk(json!({"role": "assistant", "content": "Hel"}))]);
        assert_eq!(err.unwrap().kind, LlmErrorKind::StreamInterrupted);
    }
}
