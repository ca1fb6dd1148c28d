//! [`Events`]: the one stream adapter of every provider — frames in, dive-core
//! [`StreamEvent`]s out, priced and checked here once.
//!
//! A [`StreamMapper`] turns each frame into zero or more events; [`Events`] prices usage from
//! the catalog, and turns an error event, a broken connection or a stream that ends without
//! its proper end into a typed [`ProviderError`], never a silent success. It does not
//! accumulate: the caller reads the events through a [`dive_core::EventStream`] (see
//! [`Events::into_event_stream`]), which assembles the response once, rejects an inconsistent
//! stream and keeps what a failed stream produced.
//!
//! The last event (`MessageStop`) is handed over once the response body has ended too, so the
//! HTTP connection goes back to the pool for the next request instead of being closed with an
//! unread body (as the vendors' own SDKs read a stream to its end). A server that keeps the
//! body open after its last event is given [`END_OF_BODY_GRACE`], then left.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use dive_core::{BoxStream, EventStream, LlmError, LlmErrorKind, Pricing, StreamEvent, Usage};
use futures_util::{Stream, StreamExt};

use crate::silence::Silence;
use crate::{ProviderError, StreamMapper};

/// Sets `usage.cost` from catalog prices, unless the provider reported a cost of its own.
///
/// ```
/// use dive_core::{Pricing, Usage};
/// let mut usage = Usage::new(1_000_000, 0);
/// dive_provider::price(&mut usage, Some(&Pricing::new(3.0, 15.0)));
/// assert!(usage.cost.is_some());
/// ```
pub fn price(usage: &mut Usage, pricing: Option<&Pricing>) {
    if let Some(p) = pricing
        && usage.cost.as_ref().is_none_or(|c| c.source.as_deref() == Some("catalog"))
    {
        usage.cost = Some(p.cost_of(usage));
    }
}

/// How long [`Events`] waits, after the last event, for the response body to end (so the
/// connection can be reused) before it hands the last event over anyway.
pub const END_OF_BODY_GRACE: Duration = Duration::from_secs(1);

/// A stream of [`StreamEvent`]s decoded from frames by a [`StreamMapper`].
pub struct Events<M: StreamMapper> {
    inner: BoxStream<Result<M::Frame, ProviderError>>,
    mapper: M,
    provider: &'static str,
    queue: VecDeque<StreamEvent>,
    pricing: Option<Pricing>,
    /// Output arrived: a later broken connection is an interrupted stream.
    started: bool,
    /// `message_stop` arrived: the stream is whole.
    complete: bool,
    /// The frames ran out (the body ended, or was given up after the last event).
    ended: bool,
    finished: bool,
    /// The body had not ended at the last event: the task gave way once, so the HTTP
    /// connection's task could read the end that usually follows at once.
    gave_way: bool,
    /// Started when the body still had not ended after that: how long it is waited for.
    grace: Option<Pin<Box<tokio::time::Sleep>>>,
    /// The read timeout: how long the stream may go without a frame.
    silence: Option<Silence>,
}

impl<M: StreamMapper> std::fmt::Debug for Events<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events")
            .field("provider", &self.provider)
            .field("started", &self.started)
            .field("complete", &self.complete)
            .finish_non_exhaustive()
    }
}

impl<M: StreamMapper> Events<M> {
    /// Wraps a stream of frames; `pricing` sets `Usage::cost` on usage.
    pub fn new(
        provider: &'static str,
        inner: BoxStream<Result<M::Frame, ProviderError>>,
        mapper: M,
        pricing: Option<Pricing>,
    ) -> Self {
        Self {
            inner,
            mapper,
            provider,
            queue: VecDeque::new(),
            pricing,
            started: false,
            complete: false,
            ended: false,
            finished: false,
            gave_way: false,
            grace: None,
            silence: None,
        }
    }

    /// Fails the stream with a `Timeout` error (`StreamInterrupted` once output arrived) when
    /// no frame arrives for `limit` (noticed within a quarter more). An `HttpProvider` built
    /// from [`HttpOptions`](crate::HttpOptions) sets their `read_timeout`.
    #[must_use]
    pub fn with_read_timeout(mut self, limit: Duration) -> Self {
        self.silence = Some(Silence::new(limit));
        self
    }

    /// The events as the [`EventStream`] a caller reads (errors as [`LlmError`]s, the
    /// `ProviderError` kept as their source).
    pub fn into_event_stream(self) -> EventStream {
        EventStream::new(self.map(|item| item.map_err(LlmError::from)))
    }

    /// After the last event: reads what is left of the body (nothing counts after the end)
    /// until it ends, for at most [`END_OF_BODY_GRACE`].
    fn read_to_end(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            match self.inner.as_mut().poll_next(cx) {
                Poll::Ready(Some(Ok(_))) => {}
                // A read error after the last event costs the connection, not the response.
                Poll::Ready(None | Some(Err(_))) => break,
                Poll::Pending if !self.gave_way => {
                    // No timer yet: the end is usually read by the connection's task as soon
                    // as it runs, which this task now lets it do.
                    self.gave_way = true;
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Poll::Pending => {
                    let grace =
                        self.grace.get_or_insert_with(|| Box::pin(tokio::time::sleep(END_OF_BODY_GRACE)));
                    if grace.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    tracing::debug!(provider = self.provider, "the body did not end after the last event");
                    break;
                }
            }
        }
        self.ended = true;
        self.grace = None;
        Poll::Ready(())
    }

    /// An event on its way out: its usage priced, and what it says of the stream noted.
    fn hand_over(&mut self, mut event: StreamEvent) -> StreamEvent {
        match &mut event {
            StreamEvent::MessageStart { message } => price(&mut message.usage, self.pricing.as_ref()),
            StreamEvent::MessageDelta { usage: Some(usage), .. } => price(usage, self.pricing.as_ref()),
            _ => {}
        }
        match &event {
            StreamEvent::MessageStart { .. } | StreamEvent::ContentBlockStart { .. } => self.started = true,
            // Nothing after message_stop belongs to this response.
            StreamEvent::MessageStop => {
                self.complete = true;
                self.finished = true;
            }
            _ => {}
        }
        event
    }

    /// A frame (or the end of the body) arrived: the read timeout starts over.
    fn heard(&mut self) {
        if let Some(silence) = &mut self.silence {
            silence.heard();
        }
    }

    /// The body broke (or went silent): after output, the stream was interrupted.
    fn broken(&self, mut e: ProviderError) -> ProviderError {
        if self.started {
            e.kind = LlmErrorKind::StreamInterrupted;
            e.message = format!("stream broke after it started: {}", e.message);
        }
        e
    }

    fn fail(&mut self, error: ProviderError) -> ProviderError {
        self.finished = true;
        self.queue.clear();
        tracing::debug!(provider = self.provider, kind = %error.kind, "stream failed: {}", error.message);
        error
    }
}

impl<M: StreamMapper> Stream for Events<M> {
    type Item = Result<StreamEvent, ProviderError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if this.finished {
                return Poll::Ready(None);
            }
            if matches!(this.queue.front(), Some(StreamEvent::MessageStop))
                && !this.ended
                && this.read_to_end(cx).is_pending()
            {
                return Poll::Pending;
            }
            if let Some(event) = this.queue.pop_front() {
                return Poll::Ready(Some(Ok(this.hand_over(event))));
            }
            if this.ended {
                if this.complete {
                    this.finished = true;
                    return Poll::Ready(None);
                }
                let e = ProviderError::new(
                    this.provider,
                    LlmErrorKind::StreamInterrupted,
                    format!("stream ended without {}", this.mapper.end_marker()),
                );
                return Poll::Ready(Some(Err(this.fail(e))));
            }
            // A frame is mapped where the poll left it: moving it into the mapper (or binding
            // the poll's answer first) copies it once more an event, and the copy stalls on
            // the stores that have just written it.
            let mut polled = this.inner.as_mut().poll_next(cx);
            if let Poll::Ready(Some(Ok(frame))) = &mut polled {
                this.heard();
                match this.mapper.map_last(frame, &mut this.queue) {
                    // The frame's one event (the queue is empty here): handed over as it is,
                    // unless it is the last, which waits in the queue for the body's end.
                    Ok(Some(event))
                        if this.queue.is_empty() && !matches!(event, StreamEvent::MessageStop) =>
                    {
                        return Poll::Ready(Some(Ok(this.hand_over(event))));
                    }
                    Ok(Some(event)) => this.queue.push_back(event),
                    Ok(None) => {}
                    Err(e) => return Poll::Ready(Some(Err(this.fail(e)))),
                }
                continue;
            }
            let result = match polled {
                // Mapped above.
                Poll::Ready(Some(Ok(_))) => Ok(()),
                Poll::Ready(Some(Err(e))) => {
                    this.heard();
                    Err(this.broken(e))
                }
                Poll::Ready(None) => {
                    this.heard();
                    this.ended = true;
                    this.mapper.end(&mut this.queue)
                }
                Poll::Pending => {
                    let Some(silence) = &mut this.silence else { return Poll::Pending };
                    if silence.poll_expired(cx).is_pending() {
                        return Poll::Pending;
                    }
                    let e = silence.error(this.provider, "stream event");
                    Err(this.broken(e))
                }
            };
            if let Err(e) = result {
                return Poll::Ready(Some(Err(this.fail(e))));
            }
        }
    }
}
