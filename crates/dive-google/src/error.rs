//! Gemini's error shape on top of dive-provider's classification.
//!
//! Gemini answers `{"error": {"code": 429, "message": "…", "status": "RESOURCE_EXHAUSTED",
//! "details": [...]}}` (the same object arrives inside a stream). dive-provider classifies by
//! HTTP status and message; this adds what only Gemini's shape says:
//! - `error_type` is the gRPC `status` name (`RESOURCE_EXHAUSTED`), not the numeric code;
//! - a `google.rpc.RetryInfo` detail's `retryDelay` is the retry-after delay when no header
//!   gives one;
//! - `RESOURCE_EXHAUSTED` is a rate limit (retried) — Gemini words per-minute limits as
//!   "exceeded your current quota" — unless it says there is no quota at all (`limit: 0`)
//!   or points at billing, which is `QuotaExhausted` (terminal);
//! - `UNAVAILABLE` is `Overloaded`; an invalid API key (a 400 with reason `API_KEY_INVALID`)
//!   is `Authentication`; "exceeds the maximum number of tokens" is `ContextOverflow`.

use std::time::Duration;

use dive_core::LlmErrorKind;
use dive_provider::ProviderError;
use serde_json::Value;

/// Applies Gemini's error object (`{"error": {...}}` or the inner object) to a classified error.
pub(crate) fn refine(mut error: ProviderError, body: &Value) -> ProviderError {
    let inner = body.get("error").unwrap_or(body);
    let status = inner.get("status").and_then(Value::as_str);
    if let Some(status) = status {
        error.error_type = Some(status.to_owned());
    }
    let details = inner.get("details").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if error.retry_after.is_none() {
        error.retry_after = details.iter().find_map(|d| d.get("retryDelay")?.as_str().and_then(parse_delay));
    }
    let reason_is = |r: &str| details.iter().any(|d| d.get("reason").and_then(Value::as_str) == Some(r));
    let message = error.message.to_ascii_lowercase();
    error.kind = if reason_is("API_KEY_INVALID") || message.contains("api key not valid") {
        LlmErrorKind::Authentication
    } else if message.contains("exceeds the maximum number of tokens") {
        LlmErrorKind::ContextOverflow
    } else {
        match status {
            Some("RESOURCE_EXHAUSTED") if message.contains("limit: 0") || message.contains("billing") => {
                LlmErrorKind::QuotaExhausted
            }
            Some("RESOURCE_EXHAUSTED") => LlmErrorKind::RateLimited,
            Some("UNAVAILABLE") => LlmErrorKind::Overloaded,
            Some("INTERNAL") => LlmErrorKind::Server,
            Some("DEADLINE_EXCEEDED") => LlmErrorKind::Timeout,
            Some("UNAUTHENTICATED") => LlmErrorKind::Authentication,
            Some("PERMISSION_DENIED") => LlmErrorKind::PermissionDenied,
            Some("NOT_FOUND") => LlmErrorKind::NotFound,
            Some("INVALID_ARGUMENT" | "FAILED_PRECONDITION")
                if error.kind != LlmErrorKind::ContextOverflow =>
            {
                LlmErrorKind::InvalidRequest
            }
            _ => error.kind,
        }
    };
    error
}

/// A protobuf `Duration` in JSON: `"35s"`, `"1.5s"`.
fn parse_delay(text: &str) -> Option<Duration> {
    let seconds: f64 = text.strip_suffix('s')?.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PROVIDER;
    use serde_json::json;

    fn from(status: u16, body: Value) -> ProviderError {
        refine(ProviderError::from_status(PROVIDER, status, &body.to_string()), &body)
    }

    #[test]
    fn gemini_errors_are_classified() {
        let limited = from(
            429,
            json!({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
            "message": "You exceeded your current quota, please check your plan. Quota exceeded for metric: x, limit: 10",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "35s"}]}}),
        );
        assert_eq!(limited.kind, LlmErrorKind::RateLimited);
        assert_eq!(limited.error_type.as_deref(), Some("RESOURCE_EXHAUSTED"));
        assert_eq!(limited.retry_after, Some(Duration::from_secs(35)));
        let none = from(
            429,
            json!({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
            "message": "Quota exceeded for metric: free_tier_requests, limit: 0"}}),
        );
        assert_eq!(none.kind, LlmErrorKind::QuotaExhausted);
        let key = from(
            400,
            json!({"error": {"code": 400, "status": "INVALID_ARGUMENT",
            "message": "API key not valid. Please pass a valid API key.",
            "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}]}}),
        );
        assert_eq!(key.kind, LlmErrorKind::Authentication);
        let long = from(
            400,
            json!({"error": {"code": 400, "status": "INVALID_ARGUMENT",
            "message": "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}}),
        );
        assert_eq!(long.kind, LlmErrorKind::ContextOverflow);
        let busy = from(
            503,
            json!({"error": {"code": 503, "status": "UNAVAILABLE", "message": "The model is overloaded."}}),
        );
        assert_eq!((busy.kind, busy.is_retryable()), (LlmErrorKind::Overloaded, true));
        assert_eq!(parse_delay("1.5s"), Some(Duration::from_millis(1500)));
    }
}
