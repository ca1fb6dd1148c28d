//! The read timeout of a provider's responses ([`HttpOptions::read_timeout`]), applied by the
//! provider rather than by the HTTP client.
//!
//! reqwest's own read timeout reads the clock twice and moves a timer at every read of a body:
//! on a stream of small events that is a large share of the cost of an event. Here a stream
//! only notes that a frame arrived ([`Silence::heard`]); a timer ticking every quarter of the
//! limit checks for that, so a silent connection fails between the limit and a quarter more
//! after its last frame, and a busy one never touches the timer between ticks.
//!
//! [`HttpOptions::read_timeout`]: crate::HttpOptions::read_timeout

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use dive_core::LlmErrorKind;
use tokio::time::{Instant, Sleep};

use crate::ProviderError;

/// How many quiet ticks make a silence: the timer ticks every `limit / CHECKS`.
const CHECKS: u32 = 4;

/// Notices that nothing has arrived for a limit.
#[derive(Debug)]
pub(crate) struct Silence {
    limit: Duration,
    /// Started the first time the stream has to wait.
    tick: Option<Pin<Box<Sleep>>>,
    /// Something arrived since the last tick.
    heard: bool,
    /// Ticks in a row with nothing heard.
    quiet: u32,
}

impl Silence {
    pub(crate) fn new(limit: Duration) -> Self {
        Self { limit, tick: None, heard: false, quiet: 0 }
    }

    /// Something arrived.
    pub(crate) fn heard(&mut self) {
        self.heard = true;
    }

    /// Ready once nothing has arrived for the limit (noticed within a quarter more); pending
    /// otherwise, with `cx` woken at the next tick.
    pub(crate) fn poll_expired(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let period = self.limit / CHECKS;
        let tick = self.tick.get_or_insert_with(|| Box::pin(tokio::time::sleep(period)));
        while tick.as_mut().poll(cx).is_ready() {
            if std::mem::take(&mut self.heard) {
                self.quiet = 0;
            } else {
                self.quiet += 1;
            }
            if self.quiet >= CHECKS {
                return Poll::Ready(());
            }
            tick.as_mut().reset(Instant::now() + period);
        }
        Poll::Pending
    }

    /// The error of a silent connection.
    pub(crate) fn error(&self, provider: &'static str, waiting_for: &str) -> ProviderError {
        silent(provider, waiting_for, self.limit)
    }
}

/// The error when nothing arrived within `limit`: `Timeout` (retried like one), caused by an
/// `io::Error` of kind `TimedOut`, as a timed-out read of the HTTP client would be.
pub(crate) fn silent(provider: &'static str, waiting_for: &str, limit: Duration) -> ProviderError {
    let message =
        format!("no {waiting_for} for {limit:?}; the connection looks dead (HttpOptions::read_timeout)");
    let cause = std::io::Error::new(std::io::ErrorKind::TimedOut, format!("read timed out after {limit:?}"));
    ProviderError::new(provider, LlmErrorKind::Timeout, message).with_source(cause)
}

/// A whole response body; with a limit, reading stops with a `Timeout` error when nothing
/// arrives for it. One loop serves both cases (the HTTP client's own `bytes()` would make the
/// call's future larger by a second state machine).
pub(crate) async fn read_whole(
    provider: &'static str,
    mut response: reqwest::Response,
    limit: Option<Duration>,
) -> Result<Bytes, ProviderError> {
    let transport = |e| ProviderError::transport(provider, e);
    let mut silence = limit.map(Silence::new);
    // One read is the whole body, usually: it is kept as it is, not copied.
    let mut first: Option<Bytes> = None;
    let mut joined = BytesMut::new();
    loop {
        let mut next = pin!(response.chunk());
        let chunk = poll_fn(|cx| match (next.as_mut().poll(cx), &mut silence) {
            (Poll::Ready(chunk), _) => Poll::Ready(Ok(chunk)),
            (Poll::Pending, Some(silence)) => silence.poll_expired(cx).map(|()| Err(silence.limit)),
            (Poll::Pending, None) => Poll::Pending,
        })
        .await
        .map_err(|limit| silent(provider, "body data", limit))?
        .map_err(transport)?;
        let Some(chunk) = chunk else { break };
        if let Some(silence) = &mut silence {
            silence.heard();
        }
        if first.is_none() && joined.is_empty() {
            first = Some(chunk);
        } else {
            if let Some(earlier) = first.take() {
                joined.extend_from_slice(&earlier);
            }
            joined.extend_from_slice(&chunk);
        }
    }
    Ok(first.unwrap_or_else(|| joined.freeze()))
}

/// `future` (waiting for a response head), failing with `Timeout` after `limit`.
pub(crate) async fn head_within<T>(
    provider: &'static str,
    limit: Option<Duration>,
    future: impl Future<Output = Result<T, ProviderError>>,
) -> Result<T, ProviderError> {
    match limit {
        Some(limit) => {
            tokio::time::timeout(limit, future).await.map_err(|_| silent(provider, "response", limit))?
        }
        None => future.await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expired(silence: &mut Silence) -> bool {
        silence.poll_expired(&mut Context::from_waker(std::task::Waker::noop())).is_ready()
    }

    /// Lets `seconds` pass a second at a time, polling after each as the woken task would;
    /// whether the silence expired.
    async fn wait(silence: &mut Silence, seconds: u64) -> bool {
        for _ in 0..seconds {
            tokio::time::advance(Duration::from_secs(1)).await;
            if expired(silence) {
                return true;
            }
        }
        false
    }

    #[tokio::test(start_paused = true)]
    async fn a_silence_ends_between_the_limit_and_a_quarter_more() {
        let mut silence = Silence::new(Duration::from_secs(8));
        assert!(!expired(&mut silence));
        assert!(!wait(&mut silence, 7).await, "7 s of 8");
        assert!(wait(&mut silence, 3).await, "by 10 s of 8");
    }

    #[tokio::test(start_paused = true)]
    async fn anything_heard_starts_the_silence_again() {
        let mut silence = Silence::new(Duration::from_secs(8));
        assert!(!expired(&mut silence));
        for _ in 0..10 {
            assert!(!wait(&mut silence, 3).await, "a frame every 3 s keeps an 8 s limit");
            silence.heard();
        }
        assert!(!wait(&mut silence, 7).await, "7 s after the last frame");
        assert!(wait(&mut silence, 3).await, "10 s after it");
    }

    #[tokio::test(start_paused = true)]
    async fn the_error_is_a_timeout_naming_the_limit() {
        let e = Silence::new(Duration::from_secs(8)).error("demo", "stream event");
        assert_eq!(e.kind, LlmErrorKind::Timeout);
        assert!(e.message.contains("no stream event for 8s"), "{}", e.message);
        let cause = std::error::Error::source(&e).and_then(|c| c.downcast_ref::<std::io::Error>());
        assert_eq!(cause.map(std::io::Error::kind), Some(std::io::ErrorKind::TimedOut));
    }
}
