//! Typed errors of the vocabulary: [`LlmError`], [`SessionError`], [`HookError`],
//! [`MemoryError`] and [`ToolError`](crate::tool::ToolError) (in `tool`).

use std::time::Duration;

/// A boxed error source.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What kind of failure an [`LlmError`] is; drives retries and turn outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LlmErrorKind {
    /// 429: slow down and retry.
    RateLimited,
    /// 429 with an exhausted quota or billing problem: retrying will not help.
    QuotaExhausted,
    /// 529 / overloaded: retry later.
    Overloaded,
    /// 5xx.
    Server,
    /// 401: bad or missing API key.
    Authentication,
    /// 403.
    PermissionDenied,
    /// 400 and other request errors.
    InvalidRequest,
    /// The prompt does not fit the context window.
    ContextOverflow,
    /// 404: unknown model or endpoint.
    NotFound,
    /// The request timed out.
    Timeout,
    /// Connecting or transferring failed.
    Network,
    /// A stream ended or broke before it finished.
    StreamInterrupted,
    /// The provider sent something we could not decode.
    Decode,
    /// The caller cancelled.
    Cancelled,
    /// The provider does not support what was asked.
    Unsupported,
    /// The request holds content the provider or model cannot take (an image for a text-only
    /// model, a document for a provider without documents); refused before any request is
    /// sent, the [`UnsupportedContentError`](crate::UnsupportedContentError) as its source.
    UnsupportedContent,
    /// Anything else.
    Other,
}

impl LlmErrorKind {
    /// Whether retrying the same request may succeed.
    #[must_use]
    pub fn is_retryable(self) -> bool {
        matches!(self, Self::RateLimited | Self::Overloaded | Self::Server | Self::Timeout | Self::Network)
    }

    /// A short name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RateLimited => "rate_limited",
            Self::QuotaExhausted => "quota_exhausted",
            Self::Overloaded => "overloaded",
            Self::Server => "server_error",
            Self::Authentication => "authentication",
            Self::PermissionDenied => "permission_denied",
            Self::InvalidRequest => "invalid_request",
            Self::ContextOverflow => "context_overflow",
            Self::NotFound => "not_found",
            Self::Timeout => "timeout",
            Self::Network => "network",
            Self::StreamInterrupted => "stream_interrupted",
            Self::Decode => "decode",
            Self::Cancelled => "cancelled",
            Self::Unsupported => "unsupported",
            Self::UnsupportedContent => "unsupported_content",
            Self::Other => "other",
        }
    }
}

impl std::fmt::Display for LlmErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A model call failed.
///
/// Messages never contain API keys: providers build them from response bodies and pass them
/// through [`redact`](crate::redact).
///
/// ```
/// use dive_core::{LlmError, LlmErrorKind};
/// let e = LlmError::new(LlmErrorKind::RateLimited, "slow down").with_status(429);
/// assert!(e.is_retryable());
/// assert_eq!(e.to_string(), "rate_limited (HTTP 429): slow down");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub struct LlmError {
    /// The kind.
    pub kind: LlmErrorKind,
    /// Human-readable message.
    pub message: String,
    /// Provider name.
    pub provider: Option<String>,
    /// HTTP status.
    pub status: Option<u16>,
    /// The provider's error type string.
    pub error_type: Option<String>,
    /// The provider's request id.
    pub request_id: Option<String>,
    /// How long the provider asked us to wait.
    pub retry_after: Option<Duration>,
    /// The underlying error.
    #[source]
    pub source: Option<BoxError>,
}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(p) = &self.provider {
            write!(f, "{p}: ")?;
        }
        write!(f, "{}", self.kind)?;
        if let Some(s) = self.status {
            write!(f, " (HTTP {s})")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(id) = &self.request_id {
            write!(f, " [request id {id}]")?;
        }
        Ok(())
    }
}

impl LlmError {
    /// An error of a kind with a message.
    #[must_use]
    pub fn new(kind: LlmErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            provider: None,
            status: None,
            error_type: None,
            request_id: None,
            retry_after: None,
            source: None,
        }
    }

    /// Sets the provider name.
    #[must_use]
    pub fn with_provider(mut self, provider: impl Into<String>) -> Self {
        self.provider = Some(provider.into());
        self
    }

    /// Sets the HTTP status.
    #[must_use]
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// Sets the provider error type.
    #[must_use]
    pub fn with_error_type(mut self, error_type: impl Into<String>) -> Self {
        self.error_type = Some(error_type.into());
        self
    }

    /// Sets the request id.
    #[must_use]
    pub fn with_request_id(mut self, id: impl Into<String>) -> Self {
        self.request_id = Some(id.into());
        self
    }

    /// Sets the retry-after delay.
    #[must_use]
    pub fn with_retry_after(mut self, after: Duration) -> Self {
        self.retry_after = Some(after);
        self
    }

    /// Sets the source error.
    #[must_use]
    pub fn with_source(mut self, source: impl Into<BoxError>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// Whether retrying may succeed.
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        self.kind.is_retryable()
    }

    /// Cancelled by the caller.
    #[must_use]
    pub fn cancelled() -> Self {
        Self::new(LlmErrorKind::Cancelled, "the model call was cancelled")
    }
}

/// A session store operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// No session with this id.
    #[error("session {0:?} not found")]
    NotFound(String),
    /// The id is not a valid session id (empty, too long, path separators, `..`).
    #[error("invalid session id {id:?}: {reason}")]
    InvalidId {
        /// The id.
        id: String,
        /// Why.
        reason: String,
    },
    /// Someone else wrote the session since it was loaded.
    #[error("session {id:?} changed: expected revision {expected}, found {actual}; reload and retry")]
    RevisionConflict {
        /// Session id.
        id: String,
        /// The revision the writer expected.
        expected: u64,
        /// The revision in the store.
        actual: u64,
    },
    /// The session is suspended and the operation needs a resume.
    #[error("session {0:?} is suspended waiting for tool results; resume it or cancel the suspended turn")]
    Suspended(String),
    /// A resume was asked of a session that is not suspended.
    #[error("session {0:?} is not suspended")]
    NotSuspended(String),
    /// The turn named does not exist or is not open.
    #[error("turn {turn_id:?} not found in session {session_id:?}")]
    NoTurn {
        /// Session id.
        session_id: String,
        /// Turn id.
        turn_id: String,
    },
    /// Another process owns the session.
    #[error("session {id:?} is claimed by {owner:?} until its lease expires")]
    Claimed {
        /// Session id.
        id: String,
        /// The current owner.
        owner: String,
    },
    /// Stored data is corrupt; nothing was changed.
    #[error("session data corrupt at {location}{}: {reason}", line.map(|l| format!(" line {l}")).unwrap_or_default())]
    Corrupt {
        /// File or table.
        location: String,
        /// Line number, for line-based stores.
        line: Option<u64>,
        /// What is wrong.
        reason: String,
    },
    /// An I/O error.
    #[error("session storage I/O failed: {0}")]
    Io(#[from] std::io::Error),
    /// Encoding or decoding failed.
    #[error("session serialization failed: {0}")]
    Serialization(#[from] serde_json::Error),
    /// A backend error (database, network).
    #[error("session backend error: {0}")]
    Backend(#[source] BoxError),
    /// The input was rejected (e.g. conflicting resume results).
    #[error("rejected: {0}")]
    Rejected(String),
}

/// A hook failed or aborted the turn.
///
/// A plain failure of a pre-phase hook ends the turn with outcome `error`; failures of
/// post-phase hooks are logged. An **abort** ([`HookError::abort`]) always ends the turn with
/// outcome `hook_abort`, naming the hook.
///
/// ```
/// use dive_core::HookError;
/// let e = HookError::abort("budget exhausted").with_hook("budget-guard");
/// assert!(e.is_abort());
/// assert_eq!(e.to_string(), "hook budget-guard aborted the turn: budget exhausted");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub struct HookError {
    /// The hook's name or phase, filled in by the engine when unset.
    pub hook: Option<String>,
    /// What went wrong.
    pub message: String,
    /// Ends the turn with `hook_abort`.
    pub abort: bool,
    /// The underlying error.
    #[source]
    pub source: Option<BoxError>,
}

impl std::fmt::Display for HookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hook = self.hook.as_deref().unwrap_or("(unnamed)");
        if self.abort {
            write!(f, "hook {hook} aborted the turn: {}", self.message)
        } else {
            write!(f, "hook {hook} failed: {}", self.message)
        }
    }
}

impl HookError {
    /// A failure.
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        Self { hook: None, message: message.into(), abort: false, source: None }
    }

    /// An abort of the whole turn.
    #[must_use]
    pub fn abort(reason: impl Into<String>) -> Self {
        Self { abort: true, ..Self::new(reason) }
    }

    /// Names the hook.
    #[must_use]
    pub fn with_hook(mut self, hook: impl Into<String>) -> Self {
        self.hook = Some(hook.into());
        self
    }

    /// Sets the source.
    #[must_use]
    pub fn with_source(mut self, source: impl Into<BoxError>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// Whether this aborts the turn.
    #[must_use]
    pub fn is_abort(&self) -> bool {
        self.abort
    }
}

/// A memory backend failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// Embedding failed.
    #[error("embedding failed: {0}")]
    Embedding(String),
    /// Vectors of different dimensions were mixed.
    #[error("dimension mismatch: expected {expected}, got {actual}")]
    DimensionMismatch {
        /// Expected.
        expected: usize,
        /// Actual.
        actual: usize,
    },
    /// A backend error.
    #[error("memory backend error: {0}")]
    Backend(#[source] BoxError),
    /// An embedding provider's HTTP API failed (its kind says whether to retry, re-key, …).
    #[error("embedding provider error: {0}")]
    Provider(#[from] Box<LlmError>),
}
