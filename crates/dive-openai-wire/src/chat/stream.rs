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

use crate::chat::chunk::{Chunk, Delta, DeltaContent, ToolCallDelta, typed_reasoning};
use crate::chat::decode::{decode_usage, reasoning_text};
use crate::chat::reasoning::{ChunkKind, content_chunks, detail_metadata, detail_text, merge_fragment};
use crate::chat::usage::typed_cost;
use crate::dialect::Dialect;

mod exact;
use exact::{ChunkShape, ExactChunk};

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
    /// Text and tool-argument chunks in the API's own byte shape skip the JSON parser (off in
    /// the tests that hold that path to the serde one).
    exact: bool,
    /// The shape of the last text or tool-argument chunk the fast path read.
    chunk_shape: ChunkShape,
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
            exact: true,
            chunk_shape: ChunkShape::default(),
        }
    }

    fn open(&mut self, block: Content, out: &mut VecDeque<StreamEvent>) -> usize {
        let index = self.next_index;
        self.next_index += 1;
        out.push_back(StreamEvent::block_start(index, block));
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
        if let Some(delta) = self.simple_delta_event(kind, text, out) {
            out.push_back(delta);
        }
    }

    /// A text, refusal or reasoning delta: the events that open its block (when the kind
    /// changes) go to `out`, the delta is returned.
    fn simple_delta_event(
        &mut self,
        kind: Simple,
        text: String,
        out: &mut VecDeque<StreamEvent>,
    ) -> Option<StreamEvent> {
        if text.is_empty() {
            return None;
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
        Some(StreamEvent::ContentBlockDelta { index, delta })
    }

    /// The block index of the tool call the stream numbers `tool`, when it is open.
    fn tool_block(&self, tool: u64) -> Option<usize> {
        self.tools.iter().find(|(t, _)| *t == tool).map(|&(_, index)| index)
    }

    fn tool_delta(&mut self, call: ToolCallDelta, out: &mut VecDeque<StreamEvent>) {
        let tool_index = call.index.unwrap_or(self.tools.len() as u64);
        let function = call.function.unwrap_or_default();
        let index = match self.tool_block(tool_index) {
            Some(index) => index,
            None => {
                self.close_simple(out);
                let block = Content::ToolUse(ToolUse::new(
                    call.id.unwrap_or_default(),
                    function.name.unwrap_or_default(),
                    json!({}),
                ));
                let index = self.open(block, out);
                self.tools.push((tool_index, index));
                index
            }
        };
        if let Some(partial_json) = function.arguments.filter(|a| !a.is_empty()) {
            out.push_back(StreamEvent::ContentBlockDelta {
                index,
                delta: ContentDelta::InputJsonDelta { partial_json },
            });
        }
    }

    /// The delta's reasoning text: from the typed fields, or — for a dialect naming other
    /// fields — from the chunk read as JSON.
    fn reasoning(&self, delta: &mut Delta, data: &str) -> Option<String> {
        if typed_reasoning(&self.dialect) {
            return delta.take_reasoning(&self.dialect);
        }
        let chunk: Value = serde_json::from_str(data).ok()?;
        reasoning_text(chunk.pointer("/choices/0/delta")?, &self.dialect)
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
        out.push_back(StreamEvent::message_delta(MessageDelta::stop(reason), self.usage.take()));
        out.push_back(StreamEvent::MessageStop);
    }
}

impl StreamMapper for ChatMapper {
    type Frame = SseEvent;

    fn end_marker(&self) -> &'static str {
        "[DONE]"
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
        // A text or tool-argument chunk after the first adds only its text (no id, usage,
        // reasoning or error).
        if self.exact && self.started && event.event != "error" && typed_reasoning(&self.dialect) {
            match self.chunk_shape.read(&event.data) {
                Some(ExactChunk::Content(text)) => {
                    let text = text.take_from(&mut event.data);
                    return Ok(self.simple_delta_event(Simple::Text, text, out));
                }
                // A piece of a call already open (one that opens a call is the serde path's).
                Some(ExactChunk::Arguments { tool, arguments }) => {
                    if let Some(index) = self.tool_block(tool) {
                        self.saw_tools = true;
                        let partial_json = arguments.take_from(&mut event.data);
                        return Ok((!partial_json.is_empty()).then_some(StreamEvent::ContentBlockDelta {
                            index,
                            delta: ContentDelta::InputJsonDelta { partial_json },
                        }));
                    }
                }
                None => {}
            }
        }
        self.map_chunk(event, out).map(|()| None)
    }

    fn end(&mut self, _out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        if self.done {
            return Ok(());
        }
        Err(ProviderError::new(self.provider, LlmErrorKind::StreamInterrupted, "stream ended without [DONE]"))
    }
}

impl ChatMapper {
    /// Any chunk but a text chunk read by its byte shape: its events go to `out`.
    fn map_chunk(&mut self, event: &SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        // Past the byte-shape path, the data is decoded once (as the standard decodes it).
        let body = event.text();
        let data = body.trim();
        if data == "[DONE]" {
            self.finish(out);
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let not_json = |e: serde_json::Error| {
            ProviderError::new(self.provider, LlmErrorKind::Decode, format!("stream chunk is not JSON: {e}"))
        };
        let chunk: Chunk<'_> = serde_json::from_str(data).map_err(not_json)?;
        if chunk.error.as_ref().is_some_and(|e| !e.is_null()) || event.event == "error" {
            let whole: Value = serde_json::from_str(data).map_err(not_json)?;
            return Err(crate::stream_error::stream_error(self.provider, &whole));
        }
        if !self.started {
            self.started = true;
            let mut message = ModelResponse::default();
            message.id = chunk.id.as_deref().unwrap_or_default().to_owned();
            message.model = chunk.model.as_deref().unwrap_or_default().to_owned();
            out.push_back(StreamEvent::message_start(message));
        }
        if let Some(usage) = chunk.usage.as_ref().filter(|u| u.object) {
            let mut u = if typed_cost(&self.dialect) {
                usage.to_usage(&self.dialect)
            } else {
                // A cost field the typed usage does not read.
                let whole: Value = serde_json::from_str(data).map_err(not_json)?;
                decode_usage(&whole["usage"], &self.dialect)
            };
            u.service_tier = chunk.service_tier.as_deref().map(str::to_owned);
            self.usage = Some(u);
        }
        let Some(choice) = chunk.choices else { return Ok(()) };
        if let Some(mut delta) = choice.delta {
            let details = self.dialect.reasoning_details.and(delta.reasoning_details.take());
            if let Some(details) = details.filter(|d| !d.is_empty()) {
                self.saw_details = true;
                for fragment in &details {
                    self.detail_delta(fragment, out);
                }
            } else if !self.saw_details
                && let Some(thinking) = self.reasoning(&mut delta, data)
            {
                self.simple_delta(Simple::Thinking, thinking, out);
            }
            match delta.content {
                Some(DeltaContent::Text(t)) => self.simple_delta(Simple::Text, t, out),
                Some(DeltaContent::Chunks(chunks)) => {
                    for (kind, t) in content_chunks(&chunks) {
                        let kind = if kind == ChunkKind::Thinking { Simple::Thinking } else { Simple::Text };
                        self.simple_delta(kind, t, out);
                    }
                }
                Some(DeltaContent::Other) | None => {}
            }
            if let Some(t) = delta.refusal {
                self.simple_delta(Simple::Refusal, t, out);
            }
            for call in delta.tool_calls.into_iter().flatten() {
                self.saw_tools = true;
                self.tool_delta(call, out);
            }
        }
        if let Some(reason) = choice.finish_reason.as_deref() {
            self.finish_reason = Some(self.dialect.stop_reason(reason));
        }
        Ok(())
    }
}
