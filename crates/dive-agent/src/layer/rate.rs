//! [`RateLimit`]: a token bucket in front of a tool.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dive_core::{BoxFuture, Input, Tool, ToolContext, ToolError, ToolResult};
use tokio::time::Instant;

use super::{LayerError, ToolLayer, forward_tool};

/// A token bucket: `calls` calls per `per`, in bursts of up to `burst` (default `calls`).
/// A call over the limit **waits** for its turn (callers queue in order); with
/// [`with_max_wait`](Self::with_max_wait) a call that would wait longer is refused with
/// [`LayerError::RateLimited`] instead.
///
/// Each wrapped tool has its own bucket; [`shared`](Self::shared) makes one bucket for every
/// tool this layer wraps (a limit on a whole API).
///
/// ```
/// use std::time::Duration;
/// use dive_agent::layer::RateLimit;
/// let per_tool = RateLimit::new(10, Duration::from_secs(1));
/// let whole_api = RateLimit::new(100, Duration::from_secs(60)).shared().with_max_wait(Duration::from_secs(5));
/// # let _ = (per_tool, whole_api);
/// ```
#[derive(Debug, Clone)]
pub struct RateLimit {
    /// Tokens per second.
    rate: f64,
    burst: f64,
    max_wait: Option<Duration>,
    shared: Option<Arc<Mutex<Bucket>>>,
}

impl RateLimit {
    /// `calls` calls per `per` for each wrapped tool (at least one call; `per` at least 1 ms).
    #[must_use]
    pub fn new(calls: u32, per: Duration) -> Self {
        let calls = f64::from(calls.max(1));
        let per = per.max(Duration::from_millis(1)).as_secs_f64();
        Self { rate: calls / per, burst: calls, max_wait: None, shared: None }
    }

    /// At most `burst` calls at once after a quiet spell (at least 1).
    #[must_use]
    pub fn with_burst(mut self, burst: u32) -> Self {
        self.burst = f64::from(burst.max(1));
        self.shared = None;
        self
    }

    /// Refuses a call that would wait longer than `max_wait`.
    #[must_use]
    pub fn with_max_wait(mut self, max_wait: Duration) -> Self {
        self.max_wait = Some(max_wait);
        self
    }

    /// One bucket for every tool this layer (and its clones) wraps.
    #[must_use]
    pub fn shared(mut self) -> Self {
        self.shared = Some(Arc::new(Mutex::new(Bucket::full(self.burst))));
        self
    }
}

impl<T: Tool> ToolLayer<T> for RateLimit {
    type Tool = RateLimitTool<T>;

    fn layer(&self, inner: T) -> RateLimitTool<T> {
        let bucket = self.shared.clone().unwrap_or_else(|| Arc::new(Mutex::new(Bucket::full(self.burst))));
        RateLimitTool { inner, rate: self.rate, burst: self.burst, max_wait: self.max_wait, bucket }
    }
}

#[derive(Debug)]
struct Bucket {
    /// Below zero while callers wait: each waiter reserved its token ahead.
    tokens: f64,
    last: Instant,
}

impl Bucket {
    fn full(burst: f64) -> Self {
        Self { tokens: burst, last: Instant::now() }
    }
}

/// A tool behind a [`RateLimit`].
#[derive(Debug, Clone)]
pub struct RateLimitTool<T> {
    inner: T,
    rate: f64,
    burst: f64,
    max_wait: Option<Duration>,
    bucket: Arc<Mutex<Bucket>>,
}

impl<T> RateLimitTool<T> {
    /// Takes a token: how long to wait for it, or the refusal when that is over the limit.
    fn reserve(&self) -> Result<Duration, Duration> {
        let mut bucket = self.bucket.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        let refill = now.saturating_duration_since(bucket.last).as_secs_f64() * self.rate;
        bucket.tokens = (bucket.tokens + refill).min(self.burst);
        bucket.last = now;
        let wait = if bucket.tokens >= 1.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64((1.0 - bucket.tokens) / self.rate)
        };
        if self.max_wait.is_some_and(|max| wait > max) {
            return Err(wait);
        }
        bucket.tokens -= 1.0;
        Ok(wait)
    }
}

impl<T: Tool> Tool for RateLimitTool<T> {
    forward_tool!();

    fn call_shared(&self, input: Input, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            match self.reserve() {
                Ok(wait) if wait.is_zero() => {}
                Ok(wait) => tokio::time::sleep(wait).await,
                Err(retry_in) => {
                    return Err(
                        LayerError::RateLimited { tool: self.inner.name().to_owned(), retry_in }.into()
                    );
                }
            }
            self.inner.call_shared(input, ctx).await
        })
    }
}
