//! [`LayerError`]: why a layer refused or gave up a call.

use std::time::Duration;

use dive_core::ToolError;

use super::human;

/// Why a tool layer refused or gave up a call. It reaches the model as the message of the
/// call's error result; a caller finds it again as the source of the [`ToolError`]
/// ([`LayerError::of`]).
///
/// ```
/// use std::time::Duration;
/// use dive_agent::layer::LayerError;
/// let e = LayerError::TimedOut { tool: "Bash".into(), after: Duration::from_secs(30) };
/// assert_eq!(e.to_string(), "Bash timed out after 30 s");
/// let e = LayerError::CircuitOpen { tool: "Bash".into(), failures: 5, retry_in: Duration::from_secs(20) };
/// assert_eq!(e.to_string(), "Bash: circuit open after 5 failures; retrying in 20 s");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LayerError {
    /// The call did not finish in time (it was dropped, so a tool that owns a process group
    /// ends it).
    #[error("{tool} timed out after {}", human(*after))]
    TimedOut {
        /// The tool.
        tool: String,
        /// The limit.
        after: Duration,
    },
    /// The circuit is open: the tool failed too often in a row and is not called until the
    /// reset time has passed.
    #[error("{tool}: circuit open after {failures} failure{}; retrying in {}", if *failures == 1 { "" } else { "s" }, human(*retry_in))]
    CircuitOpen {
        /// The tool.
        tool: String,
        /// The consecutive failures that opened it.
        failures: u32,
        /// When the next call is let through (as a probe).
        retry_in: Duration,
    },
    /// The rate limit would make the call wait longer than allowed.
    #[error("{tool}: rate limited; next call allowed in {}", human(*retry_in))]
    RateLimited {
        /// The tool.
        tool: String,
        /// How long until a call is allowed.
        retry_in: Duration,
    },
    /// Every attempt of a retried call failed; the last failure.
    #[error("{last} ({attempts} attempts)")]
    RetriesExhausted {
        /// Attempts made.
        attempts: u32,
        /// The last attempt's error.
        #[source]
        last: ToolError,
    },
}

impl LayerError {
    /// The layer error a tool error carries, looking through retries: the
    /// [`RetriesExhausted`](Self::RetriesExhausted) itself, else the first layer error in its
    /// source chain.
    #[must_use]
    pub fn of(error: &ToolError) -> Option<&LayerError> {
        let mut source: Option<&(dyn std::error::Error + 'static)> =
            error.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static));
        while let Some(e) = source {
            if let Some(layer) = e.downcast_ref::<LayerError>() {
                return Some(layer);
            }
            source = e.source();
        }
        None
    }

    /// Whether retrying makes sense: not for an open circuit or a rate limit (the wait is the
    /// point), nor for retries already given up.
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::TimedOut { .. })
    }
}

impl From<LayerError> for ToolError {
    fn from(error: LayerError) -> Self {
        ToolError::from_error(error)
    }
}
