//! [`Retry`]: repeat a failed call of a tool that says it is idempotent.

use std::time::Duration;

use dive_core::{BoxFuture, Input, Tool, ToolContext, ToolError, ToolResult};

use super::{LayerError, ToolLayer, forward_tool};

/// Retries a failed call with exponential backoff, **only for tools whose annotations say
/// they are idempotent** ([`ToolAnnotations::idempotent_hint`](dive_core::ToolAnnotations)):
/// calling such a tool twice has no further effect, so a retry is safe. Any other tool is
/// called once, as if the layer were not there.
///
/// A failure is an `Err` that is not fatal (a timeout of an inner [`Timeout`](super::Timeout)
/// included). An open circuit or a rate-limit refusal is not retried, nor is an error
/// *result* (the model's input was wrong; the same input fails again). Retries stop when the
/// turn is asked to stop. When every attempt failed, the error is
/// [`LayerError::RetriesExhausted`], whose message is the last failure's with the count:
/// "Fetch timed out after 10 s (3 attempts)".
#[derive(Debug, Clone, Copy)]
pub struct Retry {
    max_attempts: u32,
    initial_delay: Duration,
    max_delay: Duration,
    multiplier: u32,
}

impl Retry {
    /// Up to `max_attempts` attempts in all (at least 1) for idempotent tools; waits 200 ms,
    /// then twice as long each time, at most 10 s.
    #[must_use]
    pub fn idempotent(max_attempts: u32) -> Self {
        Self {
            max_attempts: max_attempts.max(1),
            initial_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(10),
            multiplier: 2,
        }
    }

    /// The wait before the second attempt.
    #[must_use]
    pub fn with_initial_delay(mut self, delay: Duration) -> Self {
        self.initial_delay = delay;
        self
    }

    /// The longest wait between attempts.
    #[must_use]
    pub fn with_max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// How much longer each wait is than the one before (at least 1).
    #[must_use]
    pub fn with_multiplier(mut self, multiplier: u32) -> Self {
        self.multiplier = multiplier.max(1);
        self
    }

    /// The wait after failed attempt `attempt` (1-based).
    fn delay(&self, attempt: u32) -> Duration {
        let factor = self.multiplier.saturating_pow(attempt.saturating_sub(1));
        self.initial_delay.saturating_mul(factor).min(self.max_delay)
    }
}

impl<T: Tool> ToolLayer<T> for Retry {
    type Tool = RetryTool<T>;

    fn layer(&self, inner: T) -> RetryTool<T> {
        RetryTool { inner, policy: *self }
    }
}

/// A tool behind a [`Retry`].
#[derive(Debug, Clone)]
pub struct RetryTool<T> {
    inner: T,
    policy: Retry,
}

fn retryable(error: &ToolError) -> bool {
    !error.is_fatal() && LayerError::of(error).is_none_or(LayerError::is_retryable)
}

impl<T: Tool> Tool for RetryTool<T> {
    forward_tool!();

    fn call_shared(&self, input: Input, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            if !self.inner.annotations().is_idempotent() || self.policy.max_attempts == 1 {
                return self.inner.call_shared(input, ctx).await;
            }
            let mut attempt = 1;
            loop {
                let error = match self.inner.call_shared(input.clone(), ctx.clone()).await {
                    Ok(result) => return Ok(result),
                    Err(error) => error,
                };
                let give_up =
                    attempt >= self.policy.max_attempts || !retryable(&error) || ctx.is_soft_cancelled();
                if give_up {
                    if attempt == 1 {
                        return Err(error);
                    }
                    let fatal = error.is_fatal();
                    let mut e =
                        ToolError::from(LayerError::RetriesExhausted { attempts: attempt, last: error });
                    e.is_fatal = fatal;
                    return Err(e);
                }
                tracing::debug!(tool = self.inner.name(), attempt, error = %error, "retrying an idempotent tool");
                tokio::time::sleep(self.policy.delay(attempt)).await;
                attempt += 1;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let r = Retry::idempotent(5)
            .with_initial_delay(Duration::from_millis(100))
            .with_max_delay(Duration::from_millis(350));
        assert_eq!(r.delay(1), Duration::from_millis(100));
        assert_eq!(r.delay(2), Duration::from_millis(200));
        assert_eq!(r.delay(3), Duration::from_millis(350));
    }
}
