//! [`EventStream`]: a model's stream of [`StreamEvent`]s, accumulated once as it is read.
//!
//! Every stream a caller reads goes through one [`ResponseAccumulator`], owned here: a
//! provider only maps its wire events, and the engine reads the response (or what to keep of
//! a failed stream) from the stream itself instead of accumulating the events a second time.

use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll};

use futures_core::Stream;

use super::accumulator::ResponseAccumulator;
use super::event::StreamEvent;
use super::response::ModelResponse;
use crate::error::{LlmError, LlmErrorKind};
use crate::future::{BoxStream, iter_stream};

/// The events of one streamed model call, and the response they add up to.
///
/// Wraps any stream of `Result<StreamEvent, LlmError>` ([`new`](Self::new)) and passes its
/// items through unchanged while feeding each event to the one [`ResponseAccumulator`] of the
/// call. It also enforces the stream contract for every provider:
///
/// - an event that does not fit what came before (a delta for a block that never started, a
///   text delta on a tool call) ends the stream with an [`LlmErrorKind::Decode`] error;
/// - a stream that ends without [`StreamEvent::MessageStop`] ends with an
///   [`LlmErrorKind::StreamInterrupted`] error, never a short success;
/// - the stream ends after its first error and after `MessageStop` (nothing later belongs to
///   this response).
///
/// Once the stream has ended, [`into_response`](Self::into_response) hands back the response;
/// after a failure (or when the reader gives up early), [`has_started`](Self::has_started)
/// says whether any output arrived and [`into_partial_response`](Self::into_partial_response)
/// what is safe to keep of it.
///
/// ```
/// use dive_core::{EventStream, ModelResponse};
/// use futures::StreamExt;
///
/// # futures::executor::block_on(async {
/// let mut events = EventStream::replay(&ModelResponse::text("hello"));
/// while let Some(event) = events.next().await {
///     let _event = event?; // show it as it arrives
/// }
/// assert!(events.is_complete());
/// assert_eq!(events.into_response().text_content(), "hello");
/// # Ok::<(), dive_core::LlmError>(())
/// # }).unwrap();
/// ```
#[must_use = "streams do nothing unless polled"]
pub struct EventStream {
    /// Only ever reached through `&mut` (`Mutex::get_mut`, no locking): the mutex makes the
    /// stream `Sync` without asking the provider's stream to be, so a value holding an
    /// `EventStream` can still be shared by reference across an `await`.
    inner: Mutex<BoxStream<Result<StreamEvent, LlmError>>>,
    acc: ResponseAccumulator,
    ended: bool,
}

impl std::fmt::Debug for EventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventStream")
            .field("events", &self.acc.event_count())
            .field("started", &self.acc.has_started())
            .field("complete", &self.acc.is_complete())
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl EventStream {
    /// Wraps a stream of events (boxed once here, for the whole call).
    pub fn new(stream: impl Stream<Item = Result<StreamEvent, LlmError>> + Send + 'static) -> Self {
        Self::from_boxed(Box::pin(stream))
    }

    fn from_boxed(inner: BoxStream<Result<StreamEvent, LlmError>>) -> Self {
        Self { inner: Mutex::new(inner), acc: ResponseAccumulator::new(), ended: false }
    }

    /// A stream yielding these items in order (a test double's script, a recorded call).
    pub fn from_events<I>(items: I) -> Self
    where
        I: IntoIterator<Item = Result<StreamEvent, LlmError>>,
        I::IntoIter: Send + 'static,
    {
        Self::from_boxed(iter_stream(items))
    }

    /// A complete response replayed as the events that build it
    /// ([`StreamEvent::sequence_for`]): what [`Llm::stream`](super::Llm::stream) does for a
    /// provider that does not stream.
    pub fn replay(response: &ModelResponse) -> Self {
        Self::from_events(StreamEvent::sequence_for(response).into_iter().map(Ok))
    }

    /// True once any output arrived (a `message_start` or a content block).
    #[must_use]
    pub fn has_started(&self) -> bool {
        self.acc.has_started()
    }

    /// True once `message_stop` arrived: the response is whole.
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.acc.is_complete()
    }

    /// True once the stream has yielded its last item.
    #[must_use]
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// The response so far, including blocks still streaming (a copy).
    #[must_use]
    pub fn snapshot(&self) -> ModelResponse {
        self.acc.snapshot()
    }

    /// The response the events added up to. Read it once the stream has ended without an
    /// error; called earlier, blocks still streaming are included as they stand.
    #[must_use]
    pub fn into_response(self) -> ModelResponse {
        self.acc.into_response()
    }

    /// What to keep of a stream that failed or was given up: every finished block, plus a
    /// still-streaming text block when `keep_partial_text` is set (a half-streamed tool call,
    /// thinking block or other block is dropped, and so is a finished tool call whose input
    /// did not parse), with the usage reported so far.
    #[must_use]
    pub fn into_partial_response(self, keep_partial_text: bool) -> ModelResponse {
        self.acc.into_partial_response(keep_partial_text)
    }

    /// Reads the stream to its end and returns the response: a non-streaming caller's
    /// [`generate`](super::Llm::generate) over a stream.
    ///
    /// # Errors
    /// The error that ended the stream (the provider's, or the contract errors above).
    pub async fn collect_response(mut self) -> Result<ModelResponse, LlmError> {
        while let Some(item) = std::future::poll_fn(|cx| Pin::new(&mut self).poll_next(cx)).await {
            item?;
        }
        Ok(self.into_response())
    }

    fn fail(&mut self, error: LlmError) -> Poll<Option<Result<StreamEvent, LlmError>>> {
        self.ended = true;
        Poll::Ready(Some(Err(error)))
    }
}

impl From<BoxStream<Result<StreamEvent, LlmError>>> for EventStream {
    fn from(inner: BoxStream<Result<StreamEvent, LlmError>>) -> Self {
        Self::from_boxed(inner)
    }
}

impl Stream for EventStream {
    type Item = Result<StreamEvent, LlmError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.ended {
            return Poll::Ready(None);
        }
        let inner = this.inner.get_mut().unwrap_or_else(PoisonError::into_inner);
        let item = match inner.as_mut().poll_next(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(item) => item,
        };
        match item {
            Some(Ok(event)) => {
                if let Err(e) = this.acc.add(&event) {
                    return this
                        .fail(LlmError::new(LlmErrorKind::Decode, format!("inconsistent stream: {e}")));
                }
                this.ended = matches!(event, StreamEvent::MessageStop);
                Poll::Ready(Some(Ok(event)))
            }
            Some(Err(e)) => this.fail(e),
            None if this.acc.is_complete() => {
                this.ended = true;
                Poll::Ready(None)
            }
            None => this.fail(LlmError::new(
                LlmErrorKind::StreamInterrupted,
                "the model stream ended before its final event",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::event::ContentDelta;
    use crate::message::{Content, TextContent, ToolUse};
    use futures::StreamExt;
    use futures::executor::block_on;
    use serde_json::json;

    fn drain(events: &mut EventStream) -> Vec<Result<StreamEvent, LlmError>> {
        block_on(async { events.collect::<Vec<_>>().await })
    }

    fn text_start(index: usize) -> StreamEvent {
        StreamEvent::block_start(index, Content::Text(TextContent::new("")))
    }

    fn text_delta(index: usize, text: &str) -> StreamEvent {
        StreamEvent::ContentBlockDelta { index, delta: ContentDelta::TextDelta { text: text.into() } }
    }

    #[test]
    fn is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<EventStream>();
    }

    #[test]
    fn passes_events_through_and_hands_back_the_response() {
        let response = ModelResponse::tool_calls(vec![ToolUse::new("c1", "read", json!({"path": "a"}))]);
        let mut events = EventStream::replay(&response);
        let seen = drain(&mut events);
        assert_eq!(seen.len(), StreamEvent::sequence_for(&response).len());
        assert!(seen.iter().all(Result::is_ok));
        assert!(events.is_ended() && events.is_complete());
        assert_eq!(events.into_response(), response);
    }

    #[test]
    fn an_end_without_message_stop_is_interrupted_and_keeps_finished_blocks() {
        let mut events = EventStream::from_events(
            [text_start(0), text_delta(0, "done"), StreamEvent::ContentBlockStop { index: 0 }, text_start(1)]
                .map(Ok),
        );
        let seen = drain(&mut events);
        let last = seen.last().unwrap().as_ref().unwrap_err();
        assert_eq!(last.kind, LlmErrorKind::StreamInterrupted);
        assert!(events.has_started());
        assert_eq!(events.into_partial_response(false).text_content(), "done");
    }

    #[test]
    fn an_inconsistent_event_is_a_decode_error_and_ends_the_stream() {
        let mut events = EventStream::from_events([text_delta(3, "x"), text_start(0)].map(Ok));
        let seen = drain(&mut events);
        assert_eq!(seen.len(), 1, "nothing after the error: {seen:?}");
        assert_eq!(seen[0].as_ref().unwrap_err().kind, LlmErrorKind::Decode);
    }

    #[test]
    fn a_provider_error_ends_the_stream_with_partial_text_on_request() {
        let mut events = EventStream::from_events([
            Ok(text_start(0)),
            Ok(text_delta(0, "half an ans")),
            Err(LlmError::new(LlmErrorKind::Overloaded, "busy")),
            Ok(text_delta(0, "wer")),
        ]);
        let seen = drain(&mut events);
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[2].as_ref().unwrap_err().kind, LlmErrorKind::Overloaded);
        assert_eq!(events.snapshot().text_content(), "half an ans");
        assert_eq!(events.into_partial_response(true).text_content(), "half an ans");
    }

    #[test]
    fn nothing_after_message_stop_is_read() {
        let mut script: Vec<_> =
            StreamEvent::sequence_for(&ModelResponse::text("a")).into_iter().map(Ok).collect();
        script.push(Ok(text_delta(0, "late")));
        let mut events = EventStream::from_events(script);
        assert!(drain(&mut events).iter().all(Result::is_ok));
        assert_eq!(events.into_response().text_content(), "a");
    }

    #[test]
    fn collect_response_returns_the_response_or_the_error() {
        let ok = block_on(EventStream::replay(&ModelResponse::text("hi")).collect_response()).unwrap();
        assert_eq!(ok.text_content(), "hi");
        let cut = EventStream::from_events([Ok(text_start(0))]);
        assert_eq!(block_on(cut.collect_response()).unwrap_err().kind, LlmErrorKind::StreamInterrupted);
    }
}
