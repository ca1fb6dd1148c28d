//! [`CircuitBreaker`]: stop calling a tool that keeps failing.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dive_core::{BoxFuture, Input, Tool, ToolContext, ToolError, ToolResult};
use tokio::time::Instant;

use super::{LayerError, ToolLayer, forward_tool};

/// A per-tool circuit breaker: after `max_failures` consecutive failed calls the circuit
/// **opens** and calls are refused at once with [`LayerError::CircuitOpen`] ("circuit open
/// after 5 failures; retrying in 20 s"); once `reset` has passed one call is let through as a
/// probe (**half-open**): its success closes the circuit, its failure opens it again.
///
/// A failure is an `Err` from the tool (a layer's timeout included); an error *result*
/// (`Ok(ToolResult::error(..))`, the model's own mistake) is not. Each wrapped tool has its
/// own state, kept as long as the tool is (across runs of an agent).
#[derive(Debug, Clone, Copy)]
pub struct CircuitBreaker {
    max_failures: u32,
    reset: Duration,
}

impl CircuitBreaker {
    /// Opens after `max_failures` consecutive failures (at least 1), for `reset`.
    #[must_use]
    pub fn new(max_failures: u32, reset: Duration) -> Self {
        Self { max_failures: max_failures.max(1), reset }
    }
}

impl<T: Tool> ToolLayer<T> for CircuitBreaker {
    type Tool = CircuitBreakerTool<T>;

    fn layer(&self, inner: T) -> CircuitBreakerTool<T> {
        CircuitBreakerTool {
            inner,
            config: *self,
            state: Arc::new(Mutex::new(State::Closed { failures: 0 })),
        }
    }
}

/// The state of a breaker, as [`CircuitBreakerTool::state`] reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CircuitState {
    /// Calls go through.
    Closed,
    /// Calls are refused.
    Open,
    /// One probe call is in flight or allowed.
    HalfOpen,
}

#[derive(Debug, Clone, Copy)]
enum State {
    Closed {
        failures: u32,
    },
    Open {
        until: Instant,
    },
    /// A probe is running: other calls are refused until it ends.
    Probing,
}

/// A tool behind a [`CircuitBreaker`].
#[derive(Debug, Clone)]
pub struct CircuitBreakerTool<T> {
    inner: T,
    config: CircuitBreaker,
    state: Arc<Mutex<State>>,
}

impl<T> CircuitBreakerTool<T> {
    /// The breaker's state now.
    #[must_use]
    pub fn state(&self) -> CircuitState {
        match *self.lock() {
            State::Closed { .. } => CircuitState::Closed,
            State::Open { until } if Instant::now() >= until => CircuitState::HalfOpen,
            State::Open { .. } => CircuitState::Open,
            State::Probing => CircuitState::HalfOpen,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lets a call through (`Ok(is_probe)`) or refuses it with how long until the next probe.
    fn admit(&self) -> Result<bool, Duration> {
        let mut state = self.lock();
        match *state {
            State::Closed { .. } => Ok(false),
            State::Open { until } => {
                let now = Instant::now();
                if now >= until {
                    *state = State::Probing;
                    Ok(true)
                } else {
                    Err(until - now)
                }
            }
            State::Probing => Err(self.config.reset),
        }
    }

    fn record(&self, failed: bool) {
        let mut state = self.lock();
        *state = match (*state, failed) {
            (_, false) => State::Closed { failures: 0 },
            (State::Closed { failures }, true) if failures + 1 < self.config.max_failures => {
                State::Closed { failures: failures + 1 }
            }
            (_, true) => State::Open { until: Instant::now() + self.config.reset },
        };
    }
}

/// Ends a probe that was dropped unfinished (a timeout outside the breaker, a cancelled
/// turn) as a failure, so the breaker never stays half-open with no probe running.
struct ProbeGuard<'a, T> {
    tool: &'a CircuitBreakerTool<T>,
    armed: bool,
}

impl<T> Drop for ProbeGuard<'_, T> {
    fn drop(&mut self) {
        if self.armed {
            self.tool.record(true);
        }
    }
}

impl<T: Tool> Tool for CircuitBreakerTool<T> {
    forward_tool!();

    fn call_shared(&self, input: Input, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let probe = match self.admit() {
                Ok(probe) => probe,
                Err(retry_in) => {
                    return Err(LayerError::CircuitOpen {
                        tool: self.inner.name().to_owned(),
                        failures: self.config.max_failures,
                        retry_in,
                    }
                    .into());
                }
            };
            let mut guard = ProbeGuard { tool: self, armed: probe };
            let result = self.inner.call_shared(input, ctx).await;
            guard.armed = false;
            self.record(result.is_err());
            result
        })
    }
}
