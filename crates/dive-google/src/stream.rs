//! `streamGenerateContent?alt=sse` chunks → dive-core [`StreamEvent`]s.
//!
//! Every SSE event is a whole `GenerateContentResponse` holding the *new* parts. Consecutive
//! text parts grow one text block, consecutive thought parts one thinking block; a part that
//! carries a `thoughtSignature` puts it on the block (a `MetadataDelta`, see
//! [`crate`]'s metadata notes) and closes it, so the signature is replayed on a part that
//! ends exactly where Gemini's did. A whole function call is one tool-use block. A call whose
//! arguments are streamed (a request with `streamFunctionCallArguments`) arrives as a named
//! part with `willContinue: true`, then nameless parts carrying `partialArgs`, until a part
//! without `willContinue`: it is one tool-use block whose input (assembled by
//! [`PartialArgs`](crate::partial)) is sent as one `input_json_delta` when the call ends. A
//! nameless call outside such a sequence never reaches the engine: the empty `{}` form is
//! skipped, one with arguments is a `Decode` error. Other parts are kept verbatim.
//! `finishReason` (lowercased) and the last `usageMetadata` make the final `MessageDelta`,
//! which also carries the candidate's `groundingMetadata` (and citation / URL-context
//! metadata) for [`ModelResponse::metadata`]; grounding supports become citations on the text
//! blocks they cite. The end of the HTTP body after a finish reason is `MessageStop`.
//!
//! A text chunk after the first, in the API's own byte shape, is read without the JSON parser
//! (see `exact`); any other chunk goes through serde.
//!
//! [`ChunkDecoder`] is the [`StreamMapper`]; dive-provider's [`Events`] feeds every event to
//! an accumulator, so that an error chunk, a
//! broken connection or a stream that ends without a finish reason becomes a typed
//! [`ProviderError`] carrying the finished part of the response, never a silent success.

mod exact;

use std::borrow::Cow;
use std::collections::VecDeque;

use dive_core::{
    BoxStream, Content, ContentDelta, LlmErrorKind, MessageDelta, ModelResponse, Pricing, StreamEvent,
    TextContent, ThinkingContent, Usage, UsageReport,
};
use dive_provider::{Events, ProviderError, SseEvent, StreamMapper};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::PROVIDER;
use crate::decode::{CallIds, candidate_metadata, decode_part, decode_usage, finish, tool_use, unnamed_call};
use crate::error::refine;
use crate::grounding::grounding_citations;
use crate::meta::part_metadata;
use crate::partial::PartialArgs;
use crate::response::{FunctionCall, Part, PartialArg, Response, UsageMetadata};
use exact::TextShape;

fn decode_error(message: String) -> ProviderError {
    ProviderError::new(PROVIDER, LlmErrorKind::Decode, message)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Text,
    Thought,
}

/// A function call whose arguments are still streaming.
#[derive(Debug)]
struct StreamedCall {
    index: usize,
    args: PartialArgs,
}

/// Turns chunks into events; pure, so tests and benches can drive it without HTTP.
#[derive(Debug, Default)]
pub struct ChunkDecoder {
    started: bool,
    open: Option<(usize, Open)>,
    call: Option<StreamedCall>,
    next_index: usize,
    ids: CallIds,
    usage: Usage,
    /// The usage snapshot of the last text chunk the fast path read: only a chunk through the
    /// serde path reads the usage, so the snapshot is applied there, not on every text chunk.
    snapshot: Option<UsageMetadata>,
    stopped: bool,
    /// The text of every block so far (`None` for other blocks), for grounding citations.
    texts: Vec<Option<String>>,
    /// Candidate metadata (grounding, citations, URL context), the latest non-empty of each.
    metadata: Map<String, Value>,
    /// Every chunk through serde, never the text fast path (for the tests that compare them).
    serde_only: bool,
    /// The text fast path, with the shape of the last text chunk it read.
    text_shape: TextShape,
}

impl ChunkDecoder {
    /// A decoder for one response.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a finish reason (or a prompt block reason) arrived.
    #[must_use]
    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    fn close(&mut self, out: &mut VecDeque<StreamEvent>) {
        if let Some((index, _)) = self.open.take() {
            out.push_back(StreamEvent::ContentBlockStop { index });
        }
        if let Some(call) = self.call.take() {
            let input = call.args.into_value();
            out.push_back(StreamEvent::ContentBlockDelta {
                index: call.index,
                delta: ContentDelta::InputJsonDelta { partial_json: input.to_string() },
            });
            out.push_back(StreamEvent::ContentBlockStop { index: call.index });
        }
    }

    fn start(&mut self, block: Content, out: &mut VecDeque<StreamEvent>) -> usize {
        self.close(out);
        let index = self.next_index;
        self.next_index += 1;
        self.texts.push(if let Content::Text(t) = &block { Some(t.text.clone()) } else { None });
        out.push_back(StreamEvent::block_start(index, block));
        index
    }

    /// Citations for the text blocks the grounding supports point at.
    fn cite(&self, out: &mut VecDeque<StreamEvent>) {
        let Some(grounding) = self.metadata.get("groundingMetadata") else { return };
        let blocks: Vec<Option<&str>> = self.texts.iter().map(Option::as_deref).collect();
        for (index, citation) in grounding_citations(grounding, &blocks) {
            out.push_back(StreamEvent::ContentBlockDelta {
                index,
                delta: ContentDelta::CitationsDelta { citation: Box::new(citation) },
            });
        }
    }

    /// The block of `kind` (opened when another kind is, its start going to `out`) and the
    /// delta of `text` in it (`None` for no text).
    fn text_delta(
        &mut self,
        kind: Open,
        text: Cow<'_, str>,
        out: &mut VecDeque<StreamEvent>,
    ) -> (usize, Option<StreamEvent>) {
        let index = match self.open {
            Some((index, open)) if open == kind => index,
            _ => {
                let block = match kind {
                    Open::Text => Content::Text(TextContent::new("")),
                    Open::Thought => {
                        let mut t = ThinkingContent::new("", None);
                        t.metadata = part_metadata(None, false);
                        Content::Thinking(t)
                    }
                };
                let index = self.start(block, out);
                self.open = Some((index, kind));
                index
            }
        };
        if text.is_empty() {
            return (index, None);
        }
        if let Some(Some(t)) = self.texts.get_mut(index) {
            t.push_str(&text);
        }
        let text = text.into_owned();
        let delta = match kind {
            Open::Text => ContentDelta::TextDelta { text },
            Open::Thought => ContentDelta::ThinkingDelta { thinking: text },
        };
        (index, Some(StreamEvent::ContentBlockDelta { index, delta }))
    }

    fn text_part(
        &mut self,
        kind: Open,
        text: Cow<'_, str>,
        signature: Option<&str>,
        out: &mut VecDeque<StreamEvent>,
    ) {
        let (index, delta) = self.text_delta(kind, text, out);
        out.extend(delta);
        if signature.is_some() {
            let metadata = part_metadata(signature, false);
            out.push_back(StreamEvent::ContentBlockDelta {
                index,
                delta: ContentDelta::MetadataDelta { metadata },
            });
            self.close(out);
        }
    }

    /// The events of one chunk (`data` of one SSE event).
    ///
    /// # Errors
    /// A typed error for an error chunk; `Decode` for JSON that does not parse.
    pub fn chunk(&mut self, data: &str) -> Result<Vec<StreamEvent>, ProviderError> {
        let mut out = VecDeque::new();
        let last = self.chunk_into(&mut data.as_bytes().to_vec(), &mut out)?;
        out.extend(last);
        Ok(out.into())
    }

    /// A usage snapshot (the call's whole usage so far) replaces the counters.
    fn apply_usage(&mut self, u: &UsageMetadata) {
        self.usage.apply_snapshot(&UsageReport::whole(decode_usage(u)));
    }

    /// The events of one chunk, the last returned (see `StreamMapper::map_last`); a text
    /// chunk read by the fast path takes its text out of `data`'s buffer (the rest is dropped).
    fn chunk_into(
        &mut self,
        data: &mut Vec<u8>,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Option<StreamEvent>, ProviderError> {
        // A text chunk after the first, before a finish reason, adds its text and its usage.
        if self.started
            && !self.stopped
            && !self.serde_only
            && let Some(chunk) = self.text_shape.read(data)
        {
            if let Some(u) = chunk.usage.filter(|u| u.total_token_count.is_some()) {
                self.snapshot = Some(u);
            }
            let (_, delta) = self.text_delta(Open::Text, Cow::Owned(chunk.text.take_from(data)), out);
            return Ok(delta);
        }
        self.parsed_chunk_into(data, out).map(|()| None)
    }

    /// The events of a chunk the fast path does not read.
    fn parsed_chunk_into(
        &mut self,
        data: &[u8],
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ProviderError> {
        if let Some(u) = self.snapshot.take() {
            self.apply_usage(&u);
        }
        // Past the byte-shape path, the data is decoded once (as the standard decodes it).
        let body = dive_provider::decode_text(data);
        let data: &str = &body;
        let mut v: Response<'_> = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) => {
                return Err(error_chunk(data)
                    .unwrap_or_else(|| decode_error(format!("stream chunk is not JSON: {e}"))));
            }
        };
        if v.error.is_some() {
            return Err(error_chunk(data).unwrap_or_else(|| decode_error("unreadable error chunk".into())));
        }
        if !self.started {
            self.started = true;
            let mut message = ModelResponse::default();
            message.id = v.response_id.take().map(String::from).unwrap_or_default();
            message.model = v.model_version.take().map(String::from).unwrap_or_default();
            self.ids.set_response_id(&message.id);
            out.push_back(StreamEvent::message_start(message));
        }
        // Each chunk's usageMetadata is the call's whole usage so far (proto3 JSON leaves zero
        // counts out), and a later one may be lower (the last chunk's prompt count is the
        // billed one): it replaces, never a field-wise max. One without any count (only
        // `trafficType`, as early chunks send) says nothing and changes nothing.
        if let Some(u) = v.usage_metadata.as_ref().filter(|u| u.total_token_count.is_some()) {
            self.apply_usage(u);
        }
        let candidate = v.take_candidate();
        for raw in candidate.parts() {
            self.part(raw, out)?;
        }
        let mut late = Map::new();
        candidate_metadata(&candidate, &mut late);
        self.metadata.extend(late.iter().map(|(k, v)| (k.clone(), v.clone())));
        let (reason, details) = finish(&candidate, v.prompt_feedback.as_ref());
        if !reason.is_empty() {
            self.cite(out);
            self.close(out);
            self.stopped = true;
            let mut delta = MessageDelta::stop(reason);
            delta.stop_details = details;
            delta.metadata = self.metadata.clone();
            out.push_back(StreamEvent::message_delta(delta, Some(self.usage.clone())));
        } else if self.stopped && (v.usage_metadata.is_some() || !late.is_empty()) {
            // Usage (or metadata) that trails the finish reason.
            let mut delta = MessageDelta::default();
            delta.metadata = late;
            out.push_back(StreamEvent::message_delta(delta, Some(self.usage.clone())));
        }
        Ok(())
    }

    /// A `functionCall` part: a whole call, the start of a streamed one, or a piece of it.
    fn call_part(
        &mut self,
        raw: &RawValue,
        sig: Option<&str>,
        mut call: FunctionCall<'_>,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ProviderError> {
        let continues = call.continues();
        if call.is_named() {
            self.close(out);
            if !continues && call.pieces().is_empty() {
                let block = Content::ToolUse(tool_use(call, sig, &mut self.ids, true));
                let index = self.start(block, out);
                out.push_back(StreamEvent::ContentBlockStop { index });
                return Ok(());
            }
            let args = PartialArgs::new(call.args.as_ref());
            let pieces = call.partial_args.take().unwrap_or_default();
            let block = Content::ToolUse(tool_use(call, sig, &mut self.ids, false));
            let index = self.start(block, out);
            self.call = Some(StreamedCall { index, args });
            self.apply(&pieces)?;
        } else if self.call.is_some() {
            if let (Some(open), Some(args)) = (&mut self.call, &call.args) {
                open.args.merge_args(args);
            }
            self.apply(call.pieces())?;
        } else {
            unnamed_call(raw)?;
            tracing::debug!("skipped an empty Gemini functionCall part outside a streamed call");
            return Ok(());
        }
        if !continues {
            self.close(out);
        }
        Ok(())
    }

    /// Applies streamed argument pieces to the open call.
    fn apply(&mut self, pieces: &[PartialArg<'_>]) -> Result<(), ProviderError> {
        if let Some(open) = &mut self.call {
            for piece in pieces {
                open.args.apply(piece).map_err(|e| decode_error(format!("streamed function call: {e}")))?;
            }
        }
        Ok(())
    }

    fn part(&mut self, raw: &RawValue, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        let mut part = Part::read(raw).map_err(|e| decode_error(format!("unreadable part: {e}")))?;
        if let Some(call) = part.function_call.take() {
            return self.call_part(raw, part.thought_signature.as_deref(), call, out);
        }
        if let Some(text) = part.text.as_deref() {
            let kind = if part.is_thought() { Open::Thought } else { Open::Text };
            self.text_part(kind, Cow::Borrowed(text), part.thought_signature.as_deref(), out);
            return Ok(());
        }
        let block = decode_part(raw, part, &mut self.ids);
        let index = self.start(block, out);
        out.push_back(StreamEvent::ContentBlockStop { index });
        Ok(())
    }
}

/// The typed error of an error chunk (`{"error": {...}}`), `None` when `data` is not one.
fn error_chunk(data: &str) -> Option<ProviderError> {
    let v: Value = serde_json::from_str(data).ok()?;
    v.get("error")?;
    Some(refine(ProviderError::from_stream_error(PROVIDER, &v), &v))
}

impl StreamMapper for ChunkDecoder {
    type Frame = SseEvent;

    fn map(&mut self, sse: SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        dive_provider::map_by_last(self, sse, out)
    }

    fn map_last(
        &mut self,
        sse: &mut SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Option<StreamEvent>, ProviderError> {
        self.chunk_into(&mut sse.data, out)
    }

    /// The end of the body after a finish reason is the end of the message.
    fn end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        if self.stopped {
            out.push_back(StreamEvent::MessageStop);
        }
        Ok(())
    }

    fn end_marker(&self) -> &'static str {
        "a finish reason"
    }
}

/// The stream of one `streamGenerateContent` call: SSE events in, [`StreamEvent`]s out,
/// with usage priced (`pricing`) and the end of the stream checked (see [`Events`]).
pub fn events(
    sse: BoxStream<Result<SseEvent, ProviderError>>,
    pricing: Option<Pricing>,
) -> Events<ChunkDecoder> {
    Events::new(PROVIDER, sse, ChunkDecoder::new(), pricing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(events: &[StreamEvent]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                StreamEvent::MessageStart { .. } => "start".to_owned(),
                StreamEvent::ContentBlockStart { index, content_block } => {
                    format!("+{index}:{}", content_block.kind())
                }
                StreamEvent::ContentBlockDelta { index, delta } => format!(
                    "~{index}:{}",
                    serde_json::to_value(delta).unwrap()["type"].as_str().unwrap().to_owned()
                ),
                StreamEvent::ContentBlockStop { index } => format!("-{index}"),
                StreamEvent::MessageDelta { delta, .. } => format!("delta:{:?}", delta.stop_reason),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn signatures_close_the_block_they_end() {
        let mut d = ChunkDecoder::new();
        let mut events = d
            .chunk(r#"{"responseId":"r","candidates":[{"content":{"role":"model","parts":[{"text":"plan","thought":true}]}}]}"#)
            .unwrap();
        events.extend(d.chunk(r#"{"candidates":[{"content":{"parts":[{"text":" more","thought":true,"thoughtSignature":"AAA="}]}}]}"#).unwrap());
        events.extend(d.chunk(r#"{"candidates":[{"content":{"parts":[{"text":"Hi"},{"text":" there"},{"text":"","thoughtSignature":"QkJC"}]},"finishReason":"STOP"}]}"#).unwrap());
        assert_eq!(
            kinds(&events),
            [
                "start",
                "+0:thinking",
                "~0:thinking_delta",
                "~0:thinking_delta",
                "~0:metadata_delta",
                "-0",
                "+1:text",
                "~1:text_delta",
                "~1:text_delta",
                "~1:metadata_delta",
                "-1",
                "delta:Some(\"stop\")"
            ]
        );
        assert!(d.is_stopped());
    }

    #[test]
    fn error_chunks_are_typed() {
        let e = ChunkDecoder::new()
            .chunk(r#"{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}"#)
            .unwrap_err();
        assert_eq!((e.kind, e.error_type.as_deref()), (LlmErrorKind::Overloaded, Some("UNAVAILABLE")));
    }
}
