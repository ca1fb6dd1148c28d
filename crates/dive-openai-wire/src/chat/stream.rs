//! Chat Completions `chat.completion.chunk` events → [`StreamEvent`]s.
//!
//! Text, refusal and reasoning deltas open one block each as their kind changes (a `content`
//! array of typed `thinking` / `text` chunks, as Mistral's Magistral models stream it, feeds
//! the same blocks); every tool call (by its `index`) is a block of its own, open until the
//! end. With [`Dialect::reasoning_details`], each streamed reasoning detail (by its `index`)
//! is a thinking block: its text and signature arrive as deltas, and the merged detail is put
//! on the block as metadata when it closes, for replay. `data: [DONE]` ends the
//! response normally even without a `finish_reason` (the stop reason is then inferred:
//! `tool_calls` when calls were made, else `stop`); a stream that ends at bare EOF, without
//! `[DONE]`, is `StreamInterrupted`.

use std::collections::VecDeque;

use dive_core::{
    Content, ContentDelta, LlmErrorKind, MessageDelta, ModelResponse, RefusalContent, StreamEvent,
    ThinkingContent, ToolUse, Usage,
};
use dive_provider::{ProviderError, SseEvent, StreamMapper};
use serde_json::{Map, Value, json};

use crate::chat::decode::{decode_usage, reasoning_text};
use crate::chat::reasoning::{ChunkKind, content_chunks, detail_metadata, detail_text, merge_fragment};
use crate::dialect::Dialect;
use crate::wire::text;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Simple {
    Thinking,
    Text,
    Refusal,
}

/// The Chat Completions [`StreamMapper`].
#[derive(Debug)]
pub struct ChatMapper {
    provider: &'static str,
    dialect: Dialect,
    started: bool,
    next_index: usize,
    simple: Option<(Simple, usize)>,
    tools: Vec<(u64, usize)>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    done: bool,
    saw_tools: bool,
    /// The reasoning detail open in the thinking block: its `index` and what arrived of it.
    detail: Option<(u64, Map<String, Value>)>,
    /// Reasoning details were streamed: the plain `reasoning` text repeats them.
    saw_details: bool,
}

/// Chat Completions stream events over a stream of SSE events.
pub type ChatEvents = dive_provider::Events<ChatMapper>;

impl ChatMapper {
    /// A mapper for this provider name and dialect.
    #[must_use]
    pub fn new(provider: &'static str, dialect: Dialect) -> Self {
        Self {
            provider,
            dialect,
            started: false,
            next_index: 0,
            simple: None,
            tools: Vec::new(),
            finish_reason: None,
            usage: None,
            done: false,
            saw_tools: false,
            detail: None,
            saw_details: false,
        }
    }

    fn open(&mut self, block: Content, out: &mut VecDeque<StreamEvent>) -> usize {
        let index = self.next_index;
        self.next_index += 1;
        out.push_back(StreamEvent::ContentBlockStart { index, content_block: block });
        index
    }

    fn close_simple(&mut self, out: &mut VecDeque<StreamEvent>) {
        if let Some((_, index)) = self.simple.take() {
            if let (Some((_, detail)), Some(key)) = (self.detail.take(), self.dialect.reasoning_details) {
                let metadata = detail_metadata(key, &Value::Object(detail));
                out.push_back(StreamEvent::ContentBlockDelta {
                    index,
                    delta: ContentDelta::MetadataDelta { metadata },
                });
            }
            out.push_back(StreamEvent::ContentBlockStop { index });
        }
    }

    /// One streamed fragment of a reasoning detail.
    fn detail_delta(&mut self, fragment: &Value, out: &mut VecDeque<StreamEvent>) {
        let Some(piece) = fragment.as_object() else { return };
        let at = piece.get("index").and_then(Value::as_u64).unwrap_or(0);
        let index = match (self.simple, &self.detail) {
            (Some((Simple::Thinking, index)), Some((open, _))) if *open == at => index,
            _ => {
                self.close_simple(out);
                let index = self.open(Content::Thinking(ThinkingContent::default()), out);
                self.simple = Some((Simple::Thinking, index));
                self.detail = Some((at, Map::new()));
                index
            }
        };
        let thinking = detail_text(fragment);
        if !thinking.is_empty() {
            let delta = ContentDelta::ThinkingDelta { thinking: thinking.to_owned() };
            out.push_back(StreamEvent::ContentBlockDelta { index, delta });
        }
        if let Some(signature) = piece.get("signature").and_then(Value::as_str).filter(|s| !s.is_empty()) {
            let delta = ContentDelta::SignatureDelta { signature: signature.to_owned() };
            out.push_back(StreamEvent::ContentBlockDelta { index, delta });
        }
        if let Some((_, merged)) = &mut self.detail {
            merge_fragment(merged, piece);
        }
    }

    fn simple_delta(&mut self, kind: Simple, text: String, out: &mut VecDeque<StreamEvent>) {
        if text.is_empty() {
            return;
        }
        let index = match self.simple {
            Some((k, index)) if k == kind => index,
            _ => {
                self.close_simple(out);
                let block = match kind {
                    Simple::Thinking => Content::Thinking(ThinkingContent::default()),
                    Simple::Text => Content::text(""),
                    Simple::Refusal => Content::Refusal(RefusalContent::new("")),
                };
                let index = self.open(block, out);
                self.simple = Some((kind, index));
                index
            }
        };
        let delta = match kind {
            Simple::Thinking => ContentDelta::ThinkingDelta { thinking: text },
            Simple::Text | Simple::Refusal => ContentDelta::TextDelta { text },
        };
        out.push_back(StreamEvent::ContentBlockDelta { index, delta });
    }

    fn tool_delta(&mut self, call: &Value, out: &mut VecDeque<StreamEvent>) {
        let tool_index = call.get("index").and_then(Value::as_u64).unwrap_or(self.tools.len() as u64);
        let function = call.get("function").cloned().unwrap_or_default();
        let index = match self.tools.iter().find(|(t, _)| *t == tool_index) {
            Some((_, index)) => *index,
            None => {
                self.close_simple(out);
                let block = Content::ToolUse(ToolUse::new(
                    text(call, "id").unwrap_or_default(),
                    text(&function, "name").unwrap_or_default(),
                    json!({}),
                ));
                let index = self.open(block, out);
                self.tools.push((tool_index, index));
                index
            }
        };
        if let Some(args) = function.get("arguments").and_then(Value::as_str).filter(|a| !a.is_empty()) {
            out.push_back(StreamEvent::ContentBlockDelta {
                index,
                delta: ContentDelta::InputJsonDelta { partial_json: args.to_owned() },
            });
        }
    }

    fn finish(&mut self, out: &mut VecDeque<StreamEvent>) {
        self.done = true;
        self.close_simple(out);
        for (_, index) in std::mem::take(&mut self.tools) {
            out.push_back(StreamEvent::ContentBlockStop { index });
        }
        let reason = self
            .finish_reason
            .take()
            .unwrap_or_else(|| if self.saw_tools { "tool_calls".to_owned() } else { "stop".to_owned() });
        out.push_back(StreamEvent::MessageDelta {
            delta: MessageDelta::stop(reason),
            usage: self.usage.take(),
        });
        out.push_back(StreamEvent::MessageStop);
    }
}

impl StreamMapper for ChatMapper {
    type Frame = SseEvent;

    fn end_marker(&self) -> &'static str {
        "[DONE]"
    }

    fn map(&mut self, event: SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        let event = &event;
        if self.done {
            return Ok(());
        }
        let data = event.data.trim();
        if data == "[DONE]" {
            self.finish(out);
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            ProviderError::new(self.provider, LlmErrorKind::Decode, format!("stream chunk is not JSON: {e}"))
        })?;
        if chunk.get("error").is_some_and(|e| !e.is_null()) || event.event == "error" {
            return Err(crate::stream_error::stream_error(self.provider, &chunk));
        }
        if !self.started {
            self.started = true;
            let mut message = ModelResponse::default();
            message.id = text(&chunk, "id").unwrap_or_default();
            message.model = text(&chunk, "model").unwrap_or_default();
            out.push_back(StreamEvent::MessageStart { message });
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            let mut u = decode_usage(usage, &self.dialect);
            u.service_tier = text(&chunk, "service_tier");
            self.usage = Some(u);
        }
        let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else { return Ok(()) };
        if let Some(delta) = choice.get("delta") {
            let details = self.dialect.reasoning_details.and_then(|_| delta.get("reasoning_details"));
            if let Some(details) = details.and_then(Value::as_array).filter(|d| !d.is_empty()) {
                self.saw_details = true;
                for fragment in details {
                    self.detail_delta(fragment, out);
                }
            } else if !self.saw_details
                && let Some(thinking) = reasoning_text(delta, &self.dialect)
            {
                self.simple_delta(Simple::Thinking, thinking, out);
            }
            match delta.get("content") {
                Some(Value::String(t)) => self.simple_delta(Simple::Text, t.clone(), out),
                Some(Value::Array(chunks)) => {
                    for (kind, t) in content_chunks(chunks) {
                        let kind = if kind == ChunkKind::Thinking { Simple::Thinking } else { Simple::Text };
                        self.simple_delta(kind, t, out);
                    }
                }
                _ => {}
            }
            if let Some(t) = delta.get("refusal").and_then(Value::as_str) {
                self.simple_delta(Simple::Refusal, t.to_owned(), out);
            }
            for call in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
                self.saw_tools = true;
                self.tool_delta(call, out);
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(self.dialect.stop_reason(reason));
        }
        Ok(())
    }

    fn end(&mut self, _out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        if self.done {
            return Ok(());
        }
        Err(ProviderError::new(self.provider, LlmErrorKind::StreamInterrupted, "stream ended without [DONE]"))
    }
}
