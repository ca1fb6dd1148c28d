//! Chat Completions `chat.completion.chunk` events → [`StreamEvent`]s.
//!
//! Text, refusal and reasoning deltas open one block each as their kind changes; every tool
//! call (by its `index`) is a block of its own, open until the end. `data: [DONE]` ends the
//! response normally even without a `finish_reason` (the stop reason is then inferred:
//! `tool_calls` when calls were made, else `stop`); a stream that ends at bare EOF, without
//! `[DONE]`, is `StreamInterrupted`.

use std::collections::VecDeque;

use dive_core::{
    Content, ContentDelta, LlmErrorKind, MessageDelta, ModelResponse, RefusalContent, StreamEvent,
    ThinkingContent, ToolUse, Usage,
};
use dive_provider::{ProviderError, SseEvent};
use serde_json::{Value, json};

use crate::chat::decode::{decode_usage, reasoning_text};
use crate::events::{Events, Mapper};
use crate::profile::Dialect;
use crate::wire::text;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Simple {
    Thinking,
    Text,
    Refusal,
}

/// The Chat Completions [`Mapper`].
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
}

/// Chat Completions stream events over a stream of SSE events.
pub type ChatEvents<S> = Events<S, ChatMapper>;

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
            out.push_back(StreamEvent::ContentBlockStop { index });
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

impl Mapper for ChatMapper {
    fn provider(&self) -> &'static str {
        self.provider
    }

    fn map(&mut self, event: &SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
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
            return Err(ProviderError::from_stream_error(self.provider, &chunk));
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
            if let Some(thinking) = reasoning_text(delta, &self.dialect) {
                self.simple_delta(Simple::Thinking, thinking, out);
            }
            if let Some(t) = delta.get("content").and_then(Value::as_str) {
                self.simple_delta(Simple::Text, t.to_owned(), out);
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
