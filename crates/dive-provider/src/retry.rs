//! [`RetryPolicy`]: the one retry layer of every provider (vendor SDK retries are never used).

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use dive_core::LlmErrorKind;

use crate::ProviderError;

/// What the retry hook is told before each wait.
#[derive(Debug)]
#[non_exhaustive]
pub struct RetryAttempt<'a> {
    /// The retry about to happen, starting at 1.
    pub attempt: u32,
    /// How long the policy waits before it.
    pub delay: Duration,
    /// The error that caused it.
    pub error: &'a ProviderError,
}

/// A callback run before each retry (for logs, metrics or tests).
pub type RetryHook = Arc<dyn Fn(&RetryAttempt<'_>) + Send + Sync>;

/// When and how long to retry a failed provider call.
///
/// Retried: HTTP 429 (rate limit), 500, 502, 503, 504 and 529 (overloaded), an overloaded or
/// server error event received before a stream produced anything, and transport failures
/// (connect errors, timeouts). Never retried: a 429 whose quota or balance is exhausted
/// (`QuotaExhausted`), authentication, permission, invalid request and context overflow
/// errors.
///
/// The wait before retry *n* is the server's `retry-after-ms`/`Retry-After` when present
/// (capped at [`max_retry_after`](Self::max_retry_after)), else
/// `base_delay * 2^(n-1)` capped at [`max_delay`](Self::max_delay), with up to
/// [`jitter`](Self::jitter) of it randomised away so clients that failed together do not
/// retry together.
///
/// ```
/// use std::time::Duration;
/// use dive_provider::RetryPolicy;
/// let policy = RetryPolicy::default()
///     .with_max_retries(5)
///     .with_base_delay(Duration::from_millis(500))
///     .on_retry(|a| eprintln!("retry {} in {:?}: {}", a.attempt, a.delay, a.error));
/// assert_eq!(policy.max_retries, 5);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Retries after the first attempt. Default 3.
    pub max_retries: u32,
    /// The first backoff delay. Default 2 s.
    pub base_delay: Duration,
    /// The largest backoff delay. Default 60 s.
    pub max_delay: Duration,
    /// The largest server-requested delay honoured; a longer `Retry-After` ends the
    /// retries (the error is returned). Default 5 min.
    pub max_retry_after: Duration,
    /// Fraction of each backoff delay that is randomised (0 = none, 1 = full jitter).
    /// Default 0.5. Server-requested delays are never shortened.
    pub jitter: f64,
    /// HTTP statuses that may be retried.
    pub retry_statuses: Vec<u16>,
    hook: Option<RetryHook>,
}

impl fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_retries", &self.max_retries)
            .field("base_delay", &self.base_delay)
            .field("max_delay", &self.max_delay)
            .field("max_retry_after", &self.max_retry_after)
            .field("jitter", &self.jitter)
            .field("retry_statuses", &self.retry_statuses)
            .field("hook", &self.hook.is_some())
            .finish()
    }
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            base_delay: Duration::from_secs(2),
            max_delay: Duration::from_secs(60),
            max_retry_after: Duration::from_secs(300),
            jitter: 0.5,
            retry_statuses: vec![429, 500, 502, 503, 504, 529],
            hook: None,
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    #[must_use]
    pub fn none() -> Self {
        Self { max_retries: 0, ..Self::default() }
    }

    /// Sets the number of retries.
    #[must_use]
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// Sets the first backoff delay.
    #[must_use]
    pub fn with_base_delay(mut self, delay: Duration) -> Self {
        self.base_delay = delay;
        self
    }

    /// Sets the largest backoff delay.
    #[must_use]
    pub fn with_max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// Sets the largest server-requested delay honoured.
    #[must_use]
    pub fn with_max_retry_after(mut self, delay: Duration) -> Self {
        self.max_retry_after = delay;
        self
    }

    /// Sets the jitter fraction (clamped to 0..=1).
    #[must_use]
    pub fn with_jitter(mut self, jitter: f64) -> Self {
        self.jitter = jitter.clamp(0.0, 1.0);
        self
    }

    /// Runs `hook` before every retry.
    #[must_use]
    pub fn on_retry(mut self, hook: impl Fn(&RetryAttempt<'_>) + Send + Sync + 'static) -> Self {
        self.hook = Some(Arc::new(hook));
        self
    }

    /// Whether `error` may be retried at all (ignoring the retry budget).
    #[must_use]
    pub fn is_retryable(&self, error: &ProviderError) -> bool {
        let kind_ok = matches!(
            error.kind,
            LlmErrorKind::RateLimited
                | LlmErrorKind::Overloaded
                | LlmErrorKind::Server
                | LlmErrorKind::Timeout
                | LlmErrorKind::Network
        );
        kind_ok && error.status.is_none_or(|s| self.retry_statuses.contains(&s))
    }

    /// The wait before retry number `attempt` (1-based) after `error`; `None` when the
    /// server asked for longer than [`max_retry_after`](Self::max_retry_after).
    #[must_use]
    pub fn delay_for(&self, attempt: u32, error: &ProviderError) -> Option<Duration> {
        if let Some(after) = error.retry_after {
            return (after <= self.max_retry_after).then_some(after);
        }
        let exp = self.base_delay.saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)));
        let capped = exp.min(self.max_delay);
        let jitter = capped.mul_f64(self.jitter * fastrand::f64());
        Some(capped.saturating_sub(jitter))
    }

    /// Decides whether to retry after the `attempt`-th failure (1-based); returns the wait and
    /// calls the hook when it does.
    #[must_use]
    pub fn next_delay(&self, attempt: u32, error: &ProviderError) -> Option<Duration> {
        if attempt > self.max_retries || !self.is_retryable(error) {
            return None;
        }
        let delay = self.delay_for(attempt, error)?;
        tracing::warn!(
            provider = %error.provider,
            attempt,
            delay_ms = delay.as_millis() as u64,
            kind = %error.kind,
            status = error.status,
            "retrying provider call: {}",
            error.message
        );
        if let Some(hook) = &self.hook {
            hook(&RetryAttempt { attempt, delay, error });
        }
        Some(delay)
    }

    /// Runs `op` until it succeeds, fails with an error that is not retried, or the budget
    /// is spent; sleeps between attempts.
    ///
    /// # Errors
    /// The last error.
    #[allow(clippy::manual_async_fn)] // the block, not an `async fn`, on purpose (see below)
    pub fn run<T, F, Fut>(&self, mut op: F) -> impl Future<Output = Result<T, ProviderError>>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ProviderError>>,
    {
        // An `async` block over the captured `op`, not an `async fn`, whose future would keep
        // `op` twice (as its argument and as its local); the error is dropped before the
        // wait, so no attempt's future holds room for it.
        async move {
            let mut attempt = 0;
            loop {
                let delay = match op().await {
                    Ok(value) => return Ok(value),
                    Err(error) => {
                        attempt += 1;
                        match self.next_delay(attempt, &error) {
                            Some(delay) => delay,
                            None => return Err(error),
                        }
                    }
                };
                // Boxed: a call that is not retried carries no timer.
                Box::pin(tokio::time::sleep(delay)).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(status: u16) -> ProviderError {
        ProviderError::from_status("p", status, "{}")
    }

    #[test]
    fn retries_only_listed_statuses_and_kinds() {
        let p = RetryPolicy::default();
        for s in [429, 500, 502, 503, 504, 529] {
            assert!(p.is_retryable(&err(s)), "{s}");
        }
        for s in [400, 401, 403, 404, 501] {
            assert!(!p.is_retryable(&err(s)), "{s}");
        }
        let quota = ProviderError::from_status("p", 429, r#"{"error":{"type":"insufficient_quota"}}"#);
        assert!(!p.is_retryable(&quota));
    }

    #[test]
    fn backoff_grows_is_capped_and_jittered() {
        let p = RetryPolicy::default()
            .with_base_delay(Duration::from_millis(100))
            .with_max_delay(Duration::from_millis(350))
            .with_jitter(0.0);
        let e = err(500);
        let delays: Vec<_> = (1..=4).map(|a| p.delay_for(a, &e).unwrap().as_millis()).collect();
        assert_eq!(delays, vec![100, 200, 350, 350]);
        let jittered = p.with_jitter(1.0);
        for _ in 0..50 {
            assert!(jittered.delay_for(2, &e).unwrap() <= Duration::from_millis(200));
        }
    }

    #[test]
    fn server_delay_wins_and_is_capped() {
        let p = RetryPolicy::default().with_max_retry_after(Duration::from_secs(10));
        let e = err(429).with_retry_after(Some(Duration::from_secs(7)));
        assert_eq!(p.delay_for(1, &e), Some(Duration::from_secs(7)));
        let too_long = err(429).with_retry_after(Some(Duration::from_secs(11)));
        assert_eq!(p.next_delay(1, &too_long), None);
        assert_eq!(p.next_delay(4, &e), None, "budget of 3 retries");
    }
}
