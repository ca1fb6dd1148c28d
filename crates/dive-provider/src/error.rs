//! [`ProviderError`]: one typed error for every HTTP provider, convertible into
//! [`LlmError`].

use std::fmt;
use std::time::Duration;

use dive_core::{BoxError, LlmError, LlmErrorKind};
use serde_json::Value;

/// A provider call failed.
///
/// The [`kind`](Self::kind) reuses dive-core's [`LlmErrorKind`], so a caller matches the same
/// variants whether it holds a `ProviderError` or the [`LlmError`] it converts into:
/// `ContextOverflow`, `RateLimited`, `QuotaExhausted`, `Authentication`, `InvalidRequest`,
/// `Overloaded`, `Server`, `Network`, `StreamInterrupted`, …
///
/// Messages never hold API keys: bodies are passed through [`dive_core::redact`] before they
/// reach an error.
///
/// ```
/// use dive_provider::ProviderError;
/// use dive_core::{LlmError, LlmErrorKind};
/// let e = ProviderError::from_status("anthropic", 529, r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
/// assert_eq!(e.kind, LlmErrorKind::Overloaded);
/// assert_eq!(e.error_type.as_deref(), Some("overloaded_error"));
/// let llm: LlmError = e.into();
/// assert!(llm.is_retryable());
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct ProviderError {
    /// What kind of failure this is.
    pub kind: LlmErrorKind,
    /// The provider name (`anthropic`, …).
    pub provider: &'static str,
    /// HTTP status, when the failure came with one.
    pub status: Option<u16>,
    /// The provider's error type or code (`overloaded_error`, `insufficient_quota`, …).
    pub error_type: Option<String>,
    /// Human-readable message (the provider's when it sent one).
    pub message: String,
    /// The provider's request id.
    pub request_id: Option<String>,
    /// How long the provider asked us to wait (`retry-after-ms` or `Retry-After`).
    pub retry_after: Option<Duration>,
    source: Option<BoxError>,
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.provider, self.kind)?;
        if let Some(s) = self.status {
            write!(f, " (HTTP {s})")?;
        }
        if let Some(t) = &self.error_type {
            write!(f, " {t}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(id) = &self.request_id {
            write!(f, " [request id {id}]")?;
        }
        Ok(())
    }
}

impl std::error::Error for ProviderError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl ProviderError {
    /// An error of a kind with a message.
    #[must_use]
    pub fn new(provider: &'static str, kind: LlmErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            provider,
            status: None,
            error_type: None,
            message: message.into(),
            request_id: None,
            retry_after: None,
            source: None,
        }
    }

    /// Classifies an HTTP error response from its status and body (already redacted).
    ///
    /// Reads `error.type`/`error.code` and `error.message` from the usual JSON shapes
    /// (`{"error":{"type","message"}}`, `{"error":{"code","message"}}`) and picks the kind with
    /// [`classify`].
    #[must_use]
    pub fn from_status(provider: &'static str, status: u16, body: &str) -> Self {
        let (error_type, message) = parse_error_body(body);
        let message = message.unwrap_or_else(|| {
            let trimmed = body.trim();
            if trimmed.is_empty() { format!("HTTP {status}") } else { truncate(trimmed, 2000) }
        });
        let kind = classify(Some(status), error_type.as_deref(), &message);
        Self { status: Some(status), error_type, ..Self::new(provider, kind, message) }
    }

    /// Classifies an error event received inside a stream (`{"type":"error","error":{…}}`).
    #[must_use]
    pub fn from_stream_error(provider: &'static str, data: &Value) -> Self {
        let error = data.get("error").unwrap_or(data);
        let error_type = error.get("type").or_else(|| error.get("code")).and_then(value_string);
        let message =
            error.get("message").and_then(Value::as_str).unwrap_or("error event in stream").to_owned();
        let kind = classify(None, error_type.as_deref(), &message);
        Self { error_type, ..Self::new(provider, kind, message) }
    }

    /// A transport failure (connect, TLS, timeout, broken body) from reqwest.
    #[must_use]
    pub fn transport(provider: &'static str, error: reqwest::Error) -> Self {
        let kind = if error.is_timeout() {
            LlmErrorKind::Timeout
        } else if error.is_decode() {
            LlmErrorKind::Decode
        } else if error.is_builder() {
            LlmErrorKind::InvalidRequest
        } else {
            LlmErrorKind::Network
        };
        // reqwest's Display includes the URL, never headers: no key can leak here.
        let message = with_root_cause(&error);
        Self::new(provider, kind, message).with_source(error)
    }

    /// Sets the HTTP status.
    #[must_use]
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// Sets the request id.
    #[must_use]
    pub fn with_request_id(mut self, id: Option<String>) -> Self {
        self.request_id = id;
        self
    }

    /// Sets the retry-after delay.
    #[must_use]
    pub fn with_retry_after(mut self, after: Option<Duration>) -> Self {
        self.retry_after = after;
        self
    }

    /// Sets the source error.
    #[must_use]
    pub fn with_source(mut self, source: impl Into<BoxError>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// Whether retrying the same request may succeed (the retry policy also checks the status).
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        self.kind.is_retryable()
    }
}

impl From<ProviderError> for LlmError {
    /// Copies the typed fields and keeps the `ProviderError` as the source (reachable with
    /// `downcast_ref`). What a failed stream produced is kept by the caller's
    /// [`EventStream`](dive_core::EventStream), not by the error.
    fn from(e: ProviderError) -> Self {
        let mut out = LlmError::new(e.kind, e.message.clone()).with_provider(e.provider);
        out.status = e.status;
        out.error_type.clone_from(&e.error_type);
        out.request_id.clone_from(&e.request_id);
        out.retry_after = e.retry_after;
        out.with_source(e)
    }
}

fn value_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// Reads `(type or code, message)` from a JSON error body.
fn parse_error_body(body: &str) -> (Option<String>, Option<String>) {
    let Ok(json) = serde_json::from_str::<Value>(body) else { return (None, None) };
    let error = match json.get("error") {
        Some(e @ Value::Object(_)) => e,
        Some(Value::String(s)) => return (None, Some(s.clone())),
        _ => &json,
    };
    let error_type = error
        .get("type")
        .and_then(value_string)
        .filter(|t| t != "error")
        .or_else(|| error.get("code").and_then(value_string));
    let message = error.get("message").and_then(Value::as_str).map(str::to_owned);
    (error_type, message)
}

const CONTEXT_MARKERS: &[&str] = &[
    "prompt is too long",
    "context window",
    "context_length_exceeded",
    "maximum context length",
    "input is too long",
    "exceeds the context",
    "too many input tokens",
];

const QUOTA_MARKERS: &[&str] =
    &["insufficient_quota", "credit balance", "billing", "quota exceeded", "exceeded your current quota"];

/// Picks the [`LlmErrorKind`] for an HTTP status, a provider error type/code and a message.
///
/// The provider's type wins where it is specific (`overloaded_error`, `billing_error`,
/// `insufficient_quota`, `context_length_exceeded`); otherwise the status decides. A 429 whose
/// type or message says the quota or balance is exhausted is `QuotaExhausted` (terminal); a
/// 400/413 whose message says the prompt does not fit is `ContextOverflow`.
///
/// ```
/// use dive_core::LlmErrorKind as K;
/// use dive_provider::classify;
/// assert_eq!(classify(Some(429), Some("rate_limit_error"), "slow down"), K::RateLimited);
/// assert_eq!(classify(Some(429), Some("insufficient_quota"), "no money"), K::QuotaExhausted);
/// assert_eq!(classify(Some(400), Some("invalid_request_error"), "prompt is too long: 201000 tokens > 200000 maximum"), K::ContextOverflow);
/// assert_eq!(classify(None, Some("overloaded_error"), "Overloaded"), K::Overloaded);
/// ```
#[must_use]
pub fn classify(status: Option<u16>, error_type: Option<&str>, message: &str) -> LlmErrorKind {
    let t = error_type.unwrap_or("").to_ascii_lowercase();
    let m = message.to_ascii_lowercase();
    let has = |markers: &[&str]| markers.iter().any(|k| t.contains(k) || m.contains(k));
    if has(CONTEXT_MARKERS) {
        return LlmErrorKind::ContextOverflow;
    }
    if t == "billing_error" || (status == Some(429) && has(QUOTA_MARKERS)) || status == Some(402) {
        return LlmErrorKind::QuotaExhausted;
    }
    match t.as_str() {
        "overloaded_error" | "overloaded" => return LlmErrorKind::Overloaded,
        "rate_limit_error" | "rate_limit_exceeded" => return LlmErrorKind::RateLimited,
        "authentication_error" | "invalid_api_key" => return LlmErrorKind::Authentication,
        "permission_error" => return LlmErrorKind::PermissionDenied,
        "not_found_error" | "model_not_found" => return LlmErrorKind::NotFound,
        "invalid_request_error" if status.is_none() => return LlmErrorKind::InvalidRequest,
        "request_too_large" => return LlmErrorKind::InvalidRequest,
        "api_error" | "server_error" if status.is_none() => return LlmErrorKind::Server,
        "timeout_error" => return LlmErrorKind::Timeout,
        _ => {}
    }
    match status {
        Some(401) => LlmErrorKind::Authentication,
        Some(403) => LlmErrorKind::PermissionDenied,
        Some(404) => LlmErrorKind::NotFound,
        Some(408) => LlmErrorKind::Timeout,
        Some(429) => LlmErrorKind::RateLimited,
        Some(529) => LlmErrorKind::Overloaded,
        Some(s) if (500..600).contains(&s) => LlmErrorKind::Server,
        Some(s) if (400..500).contains(&s) => LlmErrorKind::InvalidRequest,
        _ => LlmErrorKind::Other,
    }
}

/// reqwest's message with the innermost cause of the failure appended (a refused connection,
/// a TLS verdict such as a missing trust store), which reqwest's own message leaves to the
/// source chain.
fn with_root_cause(error: &reqwest::Error) -> String {
    let top = error.to_string();
    let mut root: Option<&(dyn std::error::Error + 'static)> = None;
    let mut next = std::error::Error::source(error);
    while let Some(cause) = next {
        root = Some(cause);
        next = cause.source();
    }
    match root.map(ToString::to_string) {
        Some(cause) if !cause.is_empty() && !top.contains(&cause) => format!("{top}: {cause}"),
        _ => top,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_status_and_body() {
        let e = ProviderError::from_status(
            "p",
            401,
            r#"{"error":{"type":"authentication_error","message":"bad key"}}"#,
        );
        assert_eq!((e.kind, e.message.as_str()), (LlmErrorKind::Authentication, "bad key"));
        let e = ProviderError::from_status(
            "p",
            400,
            r#"{"error":{"type":"invalid_request_error","message":"max_tokens: required"}}"#,
        );
        assert_eq!(e.kind, LlmErrorKind::InvalidRequest);
        let e = ProviderError::from_status(
            "p",
            400,
            r#"{"error":{"code":"context_length_exceeded","message":"too long"}}"#,
        );
        assert_eq!(
            (e.kind, e.error_type.as_deref()),
            (LlmErrorKind::ContextOverflow, Some("context_length_exceeded"))
        );
        let e = ProviderError::from_status("p", 503, "<html>gateway</html>");
        assert_eq!((e.kind, e.message.as_str()), (LlmErrorKind::Server, "<html>gateway</html>"));
        let e = ProviderError::from_status(
            "p",
            429,
            r#"{"error":{"type":"rate_limit_error","message":"Your credit balance is too low"}}"#,
        );
        assert_eq!(e.kind, LlmErrorKind::QuotaExhausted);
    }

    #[test]
    fn converts_into_llm_error_with_the_provider_error_reachable() {
        let e = ProviderError::from_status("anthropic", 529, "{}")
            .with_request_id(Some("req_1".into()))
            .with_retry_after(Some(Duration::from_secs(2)));
        let llm: LlmError = e.into();
        assert_eq!(llm.kind, LlmErrorKind::Overloaded);
        assert_eq!(llm.request_id.as_deref(), Some("req_1"));
        assert_eq!(llm.retry_after, Some(Duration::from_secs(2)));
        let inner = llm.source.as_deref().and_then(|s| s.downcast_ref::<ProviderError>()).unwrap();
        assert_eq!(inner.status, Some(529));
    }
}
