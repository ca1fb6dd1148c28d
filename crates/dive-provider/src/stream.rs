//! Opening a stream with retries that stop at the commit point: the first event exposed to
//! the caller.

use std::error::Error as StdError;
use std::future::Future;

use dive_core::{BoxStream, LlmErrorKind};
use futures_util::{Stream, StreamExt, stream};

use crate::{ProviderError, RetryPolicy};

/// Opens a stream, retrying (with `policy`, one shared budget) while nothing has been exposed:
/// when `open` fails, or when the stream fails or ends before yielding an item for which
/// `commits` is true (keep-alive pings do not commit). Items seen before the commit point
/// are replayed in order; once an item commits, later errors are passed to the caller and
/// never retried, so no output is ever duplicated.
///
/// Before the commit point a stream that breaks or ends early (`StreamInterrupted`) is
/// reported as `Network` and retried like a failed connection: nothing was shown, so nothing
/// can be repeated.
///
/// # Errors
/// The last error when retries are exhausted or the error is not retryable.
#[allow(clippy::manual_async_fn)] // an `async fn` would keep `open` twice in its future
pub fn open_stream<T, S, F, Fut>(
    policy: &RetryPolicy,
    mut open: F,
    commits: impl Fn(&T) -> bool,
) -> impl Future<Output = Result<BoxStream<Result<T, ProviderError>>, ProviderError>>
where
    T: Send + 'static,
    S: Stream<Item = Result<T, ProviderError>> + Send + 'static,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<S, ProviderError>>,
{
    async move {
        let mut attempt = 0;
        loop {
            let mut failure = 'attempt: {
                // The open stream (a response body, its parser and its mapper: large) is moved
                // once, into a box, before anything else is awaited: this future and the
                // stream returned carry a pointer, not room for the stream.
                let mut events = match open().await {
                    Ok(events) => Box::pin(events),
                    Err(e) => break 'attempt e,
                };
                // Items before the commit point (pings): none, usually, so nothing allocated.
                let mut seen = Vec::new();
                loop {
                    match events.next().await {
                        Some(Ok(item)) if commits(&item) => {
                            let replay = stream::iter(seen).chain(stream::iter(Some(Ok(item))));
                            return Ok(Box::pin(replay.chain(events)) as BoxStream<_>);
                        }
                        Some(Ok(item)) => seen.push(Ok(item)),
                        Some(Err(e)) => break 'attempt e,
                        None => return Ok(Box::pin(stream::iter(seen)) as BoxStream<_>),
                    }
                }
            };
            attempt += 1;
            if failure.kind == LlmErrorKind::StreamInterrupted {
                // Nothing reached the caller: to them this is a connection that failed early.
                failure.kind = LlmErrorKind::Network;
            }
            let Some(delay) = policy.next_delay(attempt, &failure) else { return Err(failure) };
            drop(failure);
            // Boxed: a stream that opens at once carries no timer.
            Box::pin(tokio::time::sleep(delay)).await;
        }
    }
}

/// The error for a failed read of a streamed response body (SSE, NDJSON): `Timeout` when it
/// is a reqwest read timeout, `Network` otherwise, with the read error as its source.
///
/// ```
/// let e = dive_provider::body_read_error("demo", std::io::Error::other("connection reset"));
/// assert_eq!(e.kind, dive_core::LlmErrorKind::Network);
/// ```
pub fn body_read_error<E: StdError + Send + Sync + 'static>(
    provider: &'static str,
    error: E,
) -> ProviderError {
    let timeout = (&error as &(dyn StdError + 'static))
        .downcast_ref::<reqwest::Error>()
        .is_some_and(reqwest::Error::is_timeout);
    let kind = if timeout { LlmErrorKind::Timeout } else { LlmErrorKind::Network };
    ProviderError::new(provider, kind, format!("stream transport failed: {error}")).with_source(error)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;

    use super::*;

    fn fast() -> RetryPolicy {
        RetryPolicy::default().with_base_delay(Duration::from_millis(1)).with_jitter(0.0)
    }

    fn overloaded() -> ProviderError {
        ProviderError::new("p", LlmErrorKind::Overloaded, "busy")
    }

    #[tokio::test]
    async fn retries_errors_before_the_first_item_only() {
        let calls = Arc::new(AtomicU32::new(0));
        let c = calls.clone();
        let s = open_stream(
            &fast(),
            move || {
                let n = c.fetch_add(1, Ordering::SeqCst);
                async move {
                    let items: Vec<Result<u32, ProviderError>> = if n == 0 {
                        vec![Ok(0), Err(overloaded())]
                    } else {
                        vec![Ok(0), Ok(1), Err(overloaded()), Ok(2)]
                    };
                    Ok(stream::iter(items))
                }
            },
            |i| *i > 0,
        )
        .await
        .unwrap();
        let got: Vec<_> = s.collect().await;
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        assert_eq!(got.len(), 4);
        assert!(matches!(got[0], Ok(0)) && matches!(got[1], Ok(1)) && got[2].is_err());
    }

    #[tokio::test]
    async fn a_stream_ending_before_its_first_item_is_retried_and_observed() {
        let seen = Arc::new(AtomicU32::new(0));
        let hook_seen = seen.clone();
        let policy = fast().on_retry(move |a| {
            assert_eq!(a.error.kind, LlmErrorKind::Network);
            hook_seen.fetch_add(1, Ordering::SeqCst);
        });
        let calls = Arc::new(AtomicU32::new(0));
        let c = calls.clone();
        let s = open_stream(
            &policy,
            move || {
                let n = c.fetch_add(1, Ordering::SeqCst);
                async move {
                    let items: Vec<Result<u32, ProviderError>> = if n == 0 {
                        vec![Err(ProviderError::new("p", LlmErrorKind::StreamInterrupted, "ended early"))]
                    } else {
                        vec![Ok(7)]
                    };
                    Ok(stream::iter(items))
                }
            },
            |_| true,
        )
        .await
        .unwrap();
        assert_eq!(s.collect::<Vec<_>>().await.len(), 1);
        assert_eq!((calls.load(Ordering::SeqCst), seen.load(Ordering::SeqCst)), (2, 1));
    }

    #[tokio::test]
    async fn gives_up_after_the_budget() {
        let calls = Arc::new(AtomicU32::new(0));
        let c = calls.clone();
        let r = open_stream(
            &fast().with_max_retries(2),
            move || {
                c.fetch_add(1, Ordering::SeqCst);
                async { Err::<stream::Iter<std::vec::IntoIter<Result<u32, ProviderError>>>, _>(overloaded()) }
            },
            |_| true,
        )
        .await;
        assert_eq!(r.err().map(|e| e.kind), Some(LlmErrorKind::Overloaded));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }
}
