//! Turning HTTP responses into [`ProviderError`]s: status, body, request id and the
//! `retry-after-ms` / `Retry-After` headers.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dive_core::{Secret, redact};
use reqwest::header::HeaderMap;

use crate::ProviderError;

/// Headers that carry a request id, in the order they are tried.
const REQUEST_ID_HEADERS: &[&str] = &["request-id", "x-request-id", "anthropic-request-id", "cf-ray"];

/// The provider's request id, from `request-id`, `x-request-id` and friends.
#[must_use]
pub fn request_id(headers: &HeaderMap) -> Option<String> {
    REQUEST_ID_HEADERS.iter().find_map(|h| headers.get(*h)).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

/// The delay the server asked for: `retry-after-ms` (milliseconds) wins over `Retry-After`
/// (seconds, fractional seconds or an HTTP date).
///
/// ```
/// use reqwest::header::{HeaderMap, HeaderValue};
/// use std::time::Duration;
/// let mut h = HeaderMap::new();
/// h.insert("retry-after", HeaderValue::from_static("3"));
/// assert_eq!(dive_provider::retry_after(&h), Some(Duration::from_secs(3)));
/// h.insert("retry-after-ms", HeaderValue::from_static("250"));
/// assert_eq!(dive_provider::retry_after(&h), Some(Duration::from_millis(250)));
/// ```
#[must_use]
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = text("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = parse_http_date(value)?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(Duration::from_secs(at.saturating_sub(now)))
}

/// Parses an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) into seconds since the epoch.
fn parse_http_date(s: &str) -> Option<u64> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else { return None };
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let mut hms = time.split(':').map(|p| p.parse::<i64>().ok());
    let (h, m, sec) = (hms.next()??, hms.next()??, hms.next()??);
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + h * 3600 + m * 60 + sec).ok()
}

/// Passes a successful response through; turns any other into a classified
/// [`ProviderError`] carrying the status, the provider's error type and message (with every
/// secret in `secrets` redacted), the request id and the retry-after delay.
///
/// # Errors
/// The classified error for a non-2xx status.
pub async fn check_status(
    provider: &'static str,
    response: reqwest::Response,
    secrets: &[&Secret],
) -> Result<reqwest::Response, ProviderError> {
    check_status_with(provider, response, secrets, |error, _| error).await
}

/// [`check_status`] for providers whose error bodies say more than the common shape:
/// `refine` gets the classified error and the (redacted) body, and returns the error to report
/// (e.g. with a vendor status name as `error_type`, or a retry delay read from the body).
///
/// # Errors
/// The refined error for a non-2xx status.
pub async fn check_status_with(
    provider: &'static str,
    response: reqwest::Response,
    secrets: &[&Secret],
    refine: impl FnOnce(ProviderError, &str) -> ProviderError,
) -> Result<reqwest::Response, ProviderError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let headers = response.headers().clone();
    // A body that fails to arrive still leaves the status to classify by.
    let body = response.text().await.unwrap_or_default();
    let body = redact(&body, secrets);
    let error = ProviderError::from_status(provider, status.as_u16(), &body)
        .with_request_id(request_id(&headers))
        .with_retry_after(retry_after(&headers));
    Err(refine(error, &body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates_parse() {
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777));
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(parse_http_date("yesterday"), None);
    }

    #[test]
    fn past_dates_mean_no_wait() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", reqwest::header::HeaderValue::from_static("Sun, 06 Nov 1994 08:49:37 GMT"));
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
    }
}
