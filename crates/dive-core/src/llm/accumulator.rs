//! [`ResponseAccumulator`]: assembles a [`ModelResponse`] from [`StreamEvent`]s.

use serde_json::Value;

use super::event::{ContentDelta, StreamEvent};
use super::response::ModelResponse;
use crate::message::{Citation, Content};

/// An event the accumulator cannot apply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AccumulateError {
    /// A delta or stop named a block that never started.
    #[error("stream event for content block {index}, which never started")]
    UnknownBlock {
        /// The index.
        index: usize,
    },
    /// A delta does not fit the block it targets.
    #[error("a {delta} delta cannot apply to a {block} block at index {index}")]
    DeltaMismatch {
        /// The index.
        index: usize,
        /// The delta kind.
        delta: &'static str,
        /// The block kind.
        block: String,
    },
}

#[derive(Debug, Clone)]
struct Slot {
    index: usize,
    block: Content,
    partial_json: String,
    finished: bool,
    malformed: bool,
}

/// Assembles a response from stream events.
///
/// The usage on `message_start` and on a `message_delta` is the call's complete usage so far
/// (each provider's stream adapter has already applied its wire semantics, see
/// [`UsageReport`](super::UsageReport)), so each one replaces the one before: a provider that
/// repeats cumulative counts is not double counted, and a count that goes down stays down.
/// Blocks that started but never stopped are reported by
/// [`unfinished_blocks`](Self::unfinished_blocks); tool calls whose streamed input is not
/// valid JSON by [`malformed_tool_calls`](Self::malformed_tool_calls).
///
/// ```
/// use dive_core::{ModelResponse, ResponseAccumulator, StreamEvent};
/// let mut acc = ResponseAccumulator::new();
/// for event in StreamEvent::sequence_for(&ModelResponse::text("hello")) {
///     acc.add(&event).unwrap();
/// }
/// assert!(acc.is_complete());
/// assert_eq!(acc.into_response().text_content(), "hello");
/// ```
#[derive(Debug, Clone, Default)]
pub struct ResponseAccumulator {
    response: ModelResponse,
    slots: Vec<Slot>,
    started: bool,
    complete: bool,
    events: u64,
}

impl ResponseAccumulator {
    /// An empty accumulator.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event.
    ///
    /// # Errors
    /// [`AccumulateError`] when the event targets a block that never started or does not fit it;
    /// the accumulator is unchanged by a rejected event.
    pub fn add(&mut self, event: &StreamEvent) -> Result<(), AccumulateError> {
        self.events += 1;
        match event {
            StreamEvent::MessageStart { message } => {
                self.started = true;
                if !message.id.is_empty() {
                    self.response.id.clone_from(&message.id);
                }
                if !message.model.is_empty() {
                    self.response.model.clone_from(&message.model);
                }
                self.response.usage.clone_from(&message.usage);
                for (k, v) in &message.metadata {
                    self.response.metadata.insert(k.clone(), v.clone());
                }
                for block in &message.content {
                    let index = self.slots.last().map_or(0, |s| s.index + 1);
                    self.slots.push(Slot::new(index, block.clone(), true));
                }
            }
            StreamEvent::ContentBlockStart { index, content_block } => {
                self.started = true;
                let slot = Slot::new(*index, Content::clone(content_block), false);
                match self.position(*index) {
                    Some(pos) => self.slots[pos] = slot,
                    None => self.slots.push(slot),
                }
            }
            StreamEvent::ContentBlockDelta { index, delta } => {
                let pos = self.position(*index).ok_or(AccumulateError::UnknownBlock { index: *index })?;
                self.slots[pos].apply(delta)?;
            }
            StreamEvent::ContentBlockStop { index } => {
                let pos = self.position(*index).ok_or(AccumulateError::UnknownBlock { index: *index })?;
                self.slots[pos].finish();
            }
            StreamEvent::MessageDelta { delta, usage } => {
                if let Some(reason) = &delta.stop_reason {
                    self.response.stop_reason = reason.to_lowercase();
                }
                if delta.stop_sequence.is_some() {
                    self.response.stop_sequence.clone_from(&delta.stop_sequence);
                }
                if delta.stop_details.is_some() {
                    self.response.stop_details.clone_from(&delta.stop_details);
                }
                for (k, v) in &delta.metadata {
                    self.response.metadata.insert(k.clone(), v.clone());
                }
                if let Some(usage) = usage {
                    self.response.usage.clone_from(&**usage);
                }
            }
            StreamEvent::MessageStop => self.complete = true,
            StreamEvent::Ping => {}
        }
        Ok(())
    }

    fn position(&self, index: usize) -> Option<usize> {
        match self.slots.last() {
            Some(last) if last.index == index => Some(self.slots.len() - 1),
            _ => self.slots.iter().position(|s| s.index == index),
        }
    }

    /// True once any event other than a ping arrived.
    #[must_use]
    pub fn has_started(&self) -> bool {
        self.started
    }

    /// True once `message_stop` arrived.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Number of events applied.
    #[must_use]
    pub fn event_count(&self) -> u64 {
        self.events
    }

    /// Indexes of blocks that started but never stopped.
    #[must_use]
    pub fn unfinished_blocks(&self) -> Vec<usize> {
        self.slots.iter().filter(|s| !s.finished).map(|s| s.index).collect()
    }

    /// Ids of finished tool calls whose streamed input was not valid JSON (their input is
    /// left as the raw string).
    #[must_use]
    pub fn malformed_tool_calls(&self) -> Vec<String> {
        self.slots
            .iter()
            .filter(|s| s.malformed)
            .filter_map(|s| s.block.as_tool_use().map(|t| t.id.clone()))
            .collect()
    }

    /// The response so far, including unfinished blocks.
    #[must_use]
    pub fn snapshot(&self) -> ModelResponse {
        let mut response = self.response.clone();
        response.content = self.slots.iter().map(Slot::current).collect();
        response
    }

    /// The response, including unfinished blocks as they stand (tool inputs parsed where
    /// they are valid JSON).
    #[must_use]
    pub fn into_response(mut self) -> ModelResponse {
        for slot in &mut self.slots {
            if !slot.finished {
                slot.finish();
            }
        }
        self.response.content = self.slots.into_iter().map(|s| s.block).collect();
        self.response
    }

    /// The response with unfinished blocks dropped: what is safe to keep after an
    /// interrupted stream.
    #[must_use]
    pub fn into_finished_response(mut self) -> ModelResponse {
        self.response.content = self.slots.into_iter().filter(|s| s.finished).map(|s| s.block).collect();
        self.response
    }

    /// What to keep of an interrupted stream: every finished block,
    /// plus a still-streaming text block when `keep_partial_text` is set. A still-streaming
    /// tool call, thinking block (its signature comes last) or other block is dropped, and so
    /// is a finished tool call whose input did not parse.
    #[must_use]
    pub fn into_partial_response(mut self, keep_partial_text: bool) -> ModelResponse {
        self.response.content = self
            .slots
            .into_iter()
            .filter(|s| {
                (s.finished && !s.malformed) || (keep_partial_text && matches!(s.block, Content::Text(_)))
            })
            .map(|s| s.block)
            .collect();
        self.response
    }
}

impl Slot {
    fn new(index: usize, block: Content, finished: bool) -> Self {
        Self { index, block, partial_json: String::new(), finished, malformed: false }
    }

    fn apply(&mut self, delta: &ContentDelta) -> Result<(), AccumulateError> {
        let mismatch = |delta: &'static str, block: &Content| AccumulateError::DeltaMismatch {
            index: self.index,
            delta,
            block: block.kind().to_owned(),
        };
        match (delta, &mut self.block) {
            (ContentDelta::TextDelta { text }, Content::Text(t)) => t.text.push_str(text),
            (ContentDelta::TextDelta { text }, Content::Refusal(r)) => r.refusal.push_str(text),
            (ContentDelta::TextDelta { text }, Content::Summary(s)) => s.text.push_str(text),
            (
                ContentDelta::InputJsonDelta { partial_json },
                Content::ToolUse(_) | Content::ServerToolUse(_),
            ) => {
                self.partial_json.push_str(partial_json);
            }
            (ContentDelta::ThinkingDelta { thinking }, Content::Thinking(t)) => t.thinking.push_str(thinking),
            (ContentDelta::SignatureDelta { signature }, Content::Thinking(t)) => {
                t.signature.get_or_insert_with(String::new).push_str(signature);
            }
            (ContentDelta::CitationsDelta { citation }, Content::Text(t)) => {
                t.citations.push(Citation::clone(citation))
            }
            (ContentDelta::MetadataDelta { metadata }, block) => {
                let target = match block {
                    Content::Text(t) => &mut t.metadata,
                    Content::ToolUse(t) => &mut t.metadata,
                    Content::Thinking(t) => &mut t.metadata,
                    other => return Err(mismatch("metadata_delta", other)),
                };
                target.extend(metadata.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            (d, block) => {
                let name = match d {
                    ContentDelta::TextDelta { .. } => "text_delta",
                    ContentDelta::InputJsonDelta { .. } => "input_json_delta",
                    ContentDelta::ThinkingDelta { .. } => "thinking_delta",
                    ContentDelta::SignatureDelta { .. } => "signature_delta",
                    ContentDelta::CitationsDelta { .. } => "citations_delta",
                    ContentDelta::MetadataDelta { .. } => "metadata_delta",
                };
                return Err(mismatch(name, block));
            }
        }
        Ok(())
    }

    fn parsed_input(&self) -> Option<Result<Value, ()>> {
        if self.partial_json.trim().is_empty() {
            return None;
        }
        Some(serde_json::from_str(&self.partial_json).map_err(|_| ()))
    }

    fn finish(&mut self) {
        self.finished = true;
        let parsed = self.parsed_input();
        let input = match &mut self.block {
            Content::ToolUse(t) => &mut t.input,
            Content::ServerToolUse(t) => &mut t.input,
            _ => return,
        };
        match parsed {
            None => {}
            Some(Ok(value)) => *input = value,
            Some(Err(())) => {
                self.malformed = true;
                *input = Value::String(std::mem::take(&mut self.partial_json));
            }
        }
    }

    fn current(&self) -> Content {
        let mut block = self.block.clone();
        if let (Some(Ok(value)), Content::ToolUse(t)) = (self.parsed_input(), &mut block) {
            t.input = value.into();
        }
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::event::MessageDelta;
    use crate::llm::usage::Usage;
    use crate::message::{TextContent, ToolUse};
    use serde_json::json;

    fn start_text(index: usize) -> StreamEvent {
        StreamEvent::block_start(index, Content::Text(TextContent::new("")))
    }

    #[test]
    fn round_trips_synthesised_sequences() {
        let response = ModelResponse::tool_calls(vec![ToolUse::new("c1", "read", json!({"path": "a"}))])
            .with_usage(Usage { input_tokens: 5, output_tokens: 7, ..Usage::default() });
        let mut acc = ResponseAccumulator::new();
        for e in StreamEvent::sequence_for(&response) {
            acc.add(&e).unwrap();
        }
        assert_eq!(acc.into_response(), response);
    }

    #[test]
    fn usage_snapshots_are_not_double_counted() {
        let mut acc = ResponseAccumulator::new();
        let start = ModelResponse::default().with_usage(Usage::new(100, 1));
        acc.add(&StreamEvent::message_start(start)).unwrap();
        for out in [10, 20] {
            acc.add(&StreamEvent::message_delta(
                MessageDelta::default(),
                Some(Usage { input_tokens: 100, output_tokens: out, ..Usage::default() }),
            ))
            .unwrap();
        }
        let r = acc.into_response();
        assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (100, 20));
    }

    #[test]
    fn a_later_usage_replaces_a_larger_earlier_one() {
        // An adapter's start usage counted a compaction step's cache reads that its final
        // usage no longer counts: the final one is the call's usage, not the field-wise max.
        let mut acc = ResponseAccumulator::new();
        let start = ModelResponse::default().with_usage(Usage::new(30, 1).with_cache(5_000, 0));
        acc.add(&StreamEvent::message_start(start)).unwrap();
        let last = Usage::new(28, 8);
        acc.add(&StreamEvent::message_delta(MessageDelta::stop("end_turn"), Some(last.clone()))).unwrap();
        acc.add(&StreamEvent::message_delta(MessageDelta::default(), None)).unwrap();
        assert_eq!(acc.into_response().usage, last);
    }

    #[test]
    fn late_response_metadata_is_merged() {
        let mut acc = ResponseAccumulator::new();
        let mut start = ModelResponse::default();
        start.metadata.insert("a".into(), json!(1));
        acc.add(&StreamEvent::message_start(start)).unwrap();
        let mut delta = MessageDelta::stop("stop");
        delta.metadata.insert("groundingMetadata".into(), json!({"webSearchQueries": ["q"]}));
        acc.add(&StreamEvent::message_delta(delta, None)).unwrap();
        let r = acc.into_response();
        assert_eq!(r.metadata["a"], 1);
        assert_eq!(r.metadata["groundingMetadata"]["webSearchQueries"][0], "q");
    }

    #[test]
    fn reports_unfinished_and_malformed_blocks() {
        let mut acc = ResponseAccumulator::new();
        acc.add(&start_text(0)).unwrap();
        acc.add(&StreamEvent::ContentBlockStop { index: 0 }).unwrap();
        acc.add(&StreamEvent::block_start(1, Content::ToolUse(ToolUse::new("c1", "t", json!({}))))).unwrap();
        acc.add(&StreamEvent::ContentBlockDelta {
            index: 1,
            delta: ContentDelta::InputJsonDelta { partial_json: "{\"a\":".into() },
        })
        .unwrap();
        assert_eq!(acc.unfinished_blocks(), vec![1]);
        assert!(!acc.is_complete());
        acc.add(&StreamEvent::ContentBlockStop { index: 1 }).unwrap();
        assert_eq!(acc.malformed_tool_calls(), vec!["c1".to_string()]);
    }

    #[test]
    fn finished_response_drops_half_streamed_blocks() {
        let mut acc = ResponseAccumulator::new();
        acc.add(&start_text(0)).unwrap();
        acc.add(&StreamEvent::ContentBlockDelta {
            index: 0,
            delta: ContentDelta::TextDelta { text: "a".into() },
        })
        .unwrap();
        acc.add(&StreamEvent::ContentBlockStop { index: 0 }).unwrap();
        acc.add(&start_text(1)).unwrap();
        assert_eq!(acc.snapshot().content.len(), 2);
        assert_eq!(acc.into_finished_response().content.len(), 1);
    }

    #[test]
    fn partial_response_keeps_streaming_text_but_not_tool_calls() {
        let mut acc = ResponseAccumulator::new();
        acc.add(&start_text(0)).unwrap();
        acc.add(&StreamEvent::ContentBlockDelta {
            index: 0,
            delta: ContentDelta::TextDelta { text: "half an ans".into() },
        })
        .unwrap();
        acc.add(&StreamEvent::block_start(1, Content::ToolUse(ToolUse::new("c1", "t", json!({}))))).unwrap();
        let kept = acc.clone().into_partial_response(true);
        assert_eq!(kept.content.len(), 1);
        assert_eq!(kept.content[0].as_text(), Some("half an ans"));
        assert!(acc.into_partial_response(false).content.is_empty());
    }

    #[test]
    fn rejects_deltas_for_unknown_or_mismatched_blocks() {
        let mut acc = ResponseAccumulator::new();
        let delta = ContentDelta::TextDelta { text: "x".into() };
        assert_eq!(
            acc.add(&StreamEvent::ContentBlockDelta { index: 3, delta: delta.clone() }),
            Err(AccumulateError::UnknownBlock { index: 3 })
        );
        acc.add(&StreamEvent::block_start(0, Content::ToolUse(ToolUse::new("c", "t", json!({}))))).unwrap();
        assert!(matches!(
            acc.add(&StreamEvent::ContentBlockDelta { index: 0, delta }),
            Err(AccumulateError::DeltaMismatch { .. })
        ));
    }
}
