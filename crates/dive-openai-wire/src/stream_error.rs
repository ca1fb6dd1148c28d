//! The typed error an error object inside an OpenAI-format stream stands for (both wire
//! formats read error events the same way).

use dive_core::LlmErrorKind;
use dive_provider::{ProviderError, classify};
use serde_json::{Value, json};

/// The typed error an error object received inside a stream stands for.
///
/// Both shapes are read: the one OpenAI sends (`{"type":"error","error":{"type","code",
/// "message"}}`) and the flat one of older documents (`{"type":"error","code","message"}`);
/// the error's `type` is the kind of error, else its `code`. A stream's HTTP status is 200
/// whatever happens inside it, so an error that would be a quota error as a 429 (an
/// `insufficient_quota`, "exceeded your current quota") is the terminal `QuotaExhausted`
/// here too, never a retryable failure.
pub(crate) fn stream_error(provider: &'static str, data: &Value) -> ProviderError {
    let error = data.get("error").filter(|e| e.is_object()).unwrap_or(data);
    let field = |key: &str| error.get(key).and_then(Value::as_str).filter(|s| !s.is_empty());
    let code = field("code");
    // In the flat shape `type` is the event's own type ("error"), not the error's.
    let kind = field("type").filter(|t| *t != "error").or(code);
    let mut message = field("message").unwrap_or("error event in stream").to_owned();
    if let (Some(code), Some(kind)) = (code, kind)
        && code != kind
    {
        message = format!("{message} ({code})");
    }
    let mut e =
        ProviderError::from_stream_error(provider, &json!({"error": {"type": kind, "message": message}}));
    if classify(Some(429), kind, &message) == LlmErrorKind::QuotaExhausted {
        e.kind = LlmErrorKind::QuotaExhausted;
    }
    e
}
