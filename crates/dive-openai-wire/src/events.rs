//! The stream adapter both APIs share: SSE events in, dive-core [`StreamEvent`]s out.
//!
//! A [`Mapper`] turns each SSE event into zero or more events; [`Events`] feeds every event to
//! a [`ResponseAccumulator`], prices usage from the catalog, and turns an `error` event, a
//! broken connection or a stream that ends without its proper end into a typed
//! [`ProviderError`] carrying the finished part of the response, never a silent success.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use dive_core::{LlmErrorKind, Pricing, ResponseAccumulator, StreamEvent, Usage, UsageReport};
use dive_provider::{ProviderError, SseEvent, classify};
use futures_util::Stream;
use serde_json::{Value, json};

use crate::transport::price;

/// The typed error an error object received inside a stream stands for.
///
/// Both shapes are read: the one OpenAI sends (`{"type":"error","error":{"type","code",
/// "message"}}`) and the flat one of older documents (`{"type":"error","code","message"}`);
/// the error's `type` is the kind of error, else its `code`. A stream's HTTP status is 200
/// whatever happens inside it, so an error that would be a quota error as a 429 (an
/// `insufficient_quota`, "exceeded your current quota") is the terminal `QuotaExhausted`
/// here too, never a retryable failure.
pub(crate) fn stream_error(provider: &'static str, data: &Value) -> ProviderError {
    let error = data.get("error").filter(|e| e.is_object()).unwrap_or(data);
    let field = |key: &str| error.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let code = field("code");
    // In the flat shape `type` is the event's own type ("error"), not the error's.
    let kind = field("type").filter(|t| *t != "error").or(code);
    let mut message = field("message").unwrap_or("error event in stream").to_owned();
    if let (Some(code), Some(kind)) = (code, kind)
        && code != kind
    {
        message = format!("{message} ({code})");
    }
    let mut e =
        ProviderError::from_stream_error(provider, &json!({"error": {"type": kind, "message": message}}));
    if classify(Some(429), kind, &message) == LlmErrorKind::QuotaExhausted {
        e.kind = LlmErrorKind::QuotaExhausted;
    }
    e
}

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

    /// Applies a usage report of a [`Mapper`] and sends on the call's usage, priced. Both APIs
    /// report a complete usage object (Responses in `response.completed`/`incomplete`, Chat
    /// Completions in its last usage chunk), so each report is a whole snapshot: it replaces
    /// every counter, a lower one included.
    fn price(&mut self, usage: &mut Usage) {
        self.usage.apply_snapshot(&UsageReport::whole(std::mem::take(usage)));
        let mut current = self.usage.clone();
        price(&mut current, self.pricing.as_ref());
        *usage = current;
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
