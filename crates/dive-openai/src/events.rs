//! The stream adapter both APIs share: SSE events in, dive-core [`StreamEvent`]s out.
//!
//! A [`Mapper`] turns each SSE event into zero or more events; [`Events`] feeds every event to
//! a [`ResponseAccumulator`], prices usage from the catalog, and turns an `error` event, a
//! broken connection or a stream that ends without its proper end into a typed
//! [`ProviderError`] carrying the finished part of the response, never a silent success.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use dive_core::{LlmErrorKind, Pricing, ResponseAccumulator, StreamEvent, Usage};
use dive_provider::{ProviderError, SseEvent};
use futures_util::Stream;

use crate::transport::price;

/// Maps one wire format's SSE events to [`StreamEvent`]s.
pub trait Mapper: Unpin {
    /// The provider name used in errors.
    fn provider(&self) -> &'static str;

    /// Maps one SSE event, pushing any number of events to `out`.
    ///
    /// # Errors
    /// A typed error for an error event; `Decode` for data that does not parse.
    fn map(&mut self, event: &SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError>;

    /// The byte stream ended. Push the closing events when this end is a proper one.
    ///
    /// # Errors
    /// `StreamInterrupted` when the stream ended before its proper end.
    fn end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError>;
}

/// A stream of [`StreamEvent`]s decoded from SSE by a [`Mapper`].
pub struct Events<S, M> {
    inner: S,
    mapper: M,
    queue: VecDeque<StreamEvent>,
    acc: ResponseAccumulator,
    usage: Usage,
    pricing: Option<Pricing>,
    ended: bool,
    finished: bool,
}

impl<S, M> std::fmt::Debug for Events<S, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events").field("events", &self.acc.event_count()).finish_non_exhaustive()
    }
}

impl<S, M> Events<S, M>
where
    S: Stream<Item = Result<SseEvent, ProviderError>> + Unpin,
    M: Mapper,
{
    /// Wraps a stream of SSE events; `pricing` sets `Usage::cost` on usage snapshots.
    pub fn new(inner: S, mapper: M, pricing: Option<Pricing>) -> Self {
        Self {
            inner,
            mapper,
            queue: VecDeque::new(),
            acc: ResponseAccumulator::new(),
            usage: Usage::default(),
            pricing,
            ended: false,
            finished: false,
        }
    }

    fn fail(&mut self, error: ProviderError) -> ProviderError {
        self.finished = true;
        self.queue.clear();
        let acc = std::mem::take(&mut self.acc);
        let started = acc.has_started();
        let partial = acc.into_finished_response();
        let error = if started { error.with_partial(partial) } else { error };
        tracing::debug!(provider = self.mapper.provider(), kind = %error.kind, "stream failed: {}", error.message);
        error
    }

    fn price(&mut self, usage: &mut Usage) {
        self.usage.merge_snapshot(usage);
        let mut merged = self.usage.clone();
        price(&mut merged, self.pricing.as_ref());
        *usage = merged;
    }
}

impl<S, M> Stream for Events<S, M>
where
    S: Stream<Item = Result<SseEvent, ProviderError>> + Unpin,
    M: Mapper,
{
    type Item = Result<StreamEvent, ProviderError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if this.finished {
                return Poll::Ready(None);
            }
            if let Some(mut event) = this.queue.pop_front() {
                match &mut event {
                    StreamEvent::MessageStart { message } => this.price(&mut message.usage),
                    StreamEvent::MessageDelta { usage: Some(usage), .. } => this.price(usage),
                    _ => {}
                }
                if let Err(e) = this.acc.add(&event) {
                    let e = ProviderError::new(
                        this.mapper.provider(),
                        LlmErrorKind::Decode,
                        format!("inconsistent stream: {e}"),
                    );
                    return Poll::Ready(Some(Err(this.fail(e))));
                }
                // Nothing after message_stop belongs to this response.
                this.finished = matches!(event, StreamEvent::MessageStop);
                return Poll::Ready(Some(Ok(event)));
            }
            if this.ended {
                this.finished = true;
                return Poll::Ready(None);
            }
            let item = match Pin::new(&mut this.inner).poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(item) => item,
            };
            let result = match item {
                Some(Ok(sse)) => this.mapper.map(&sse, &mut this.queue),
                Some(Err(mut e)) => {
                    if this.acc.has_started() {
                        e.kind = LlmErrorKind::StreamInterrupted;
                        e.message = format!("stream broke after it started: {}", e.message);
                    }
                    Err(e)
                }
                None => {
                    this.ended = true;
                    this.mapper.end(&mut this.queue)
                }
            };
            if let Err(e) = result {
                return Poll::Ready(Some(Err(this.fail(e))));
            }
        }
    }
}
