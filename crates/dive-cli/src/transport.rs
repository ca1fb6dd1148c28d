//! How the CLI talks to providers: every retry is shown ("retrying in 4 s after 429"), and a
//! stream that goes silent is cut after an idle timeout instead of hanging.
//!
//! The default idle timeout is 120 s. The library's 10 min suits servers, but at a terminal a
//! stalled connection should fail while the user is still there, and a healthy stream is rarely
//! silent that long (Anthropic sends pings while a model thinks; the providers stream thinking
//! or its summary); a model that reasons silently for minutes needs the flag or the setting.
//! Without streaming the whole answer is one wait, so the longer library default stays unless
//! the user set a timeout.

use std::sync::Arc;
use std::time::Duration;

use dive::provider::{HttpOptions, RetryAttempt, RetryPolicy};
use dive::{LlmErrorKind, ModelOptions};

/// The idle timeout of a streamed answer when neither the flag nor the settings set one.
pub const DEFAULT_STREAM_IDLE: Duration = Duration::from_secs(120);
/// The wait for a whole (non-streamed) answer when no timeout was set.
pub const DEFAULT_WHOLE_ANSWER_WAIT: Duration = Duration::from_secs(600);

/// Where retry notices go (stderr, around the spinner).
pub type Notice = Arc<dyn Fn(&str) + Send + Sync>;

/// The line shown before a retry.
pub fn retry_line(attempt: &RetryAttempt<'_>) -> String {
    retry_text(attempt.attempt, attempt.delay, attempt.error.status, attempt.error.kind)
}

fn retry_text(attempt: u32, delay: Duration, status: Option<u16>, kind: LlmErrorKind) -> String {
    let secs = delay.as_secs_f64();
    let wait = if secs < 10.0 && delay.subsec_millis() != 0 {
        format!("{secs:.1} s")
    } else {
        format!("{secs:.0} s")
    };
    let why = kind.as_str().replace('_', " ");
    let after = match status {
        Some(status) => format!("{status} ({why})"),
        None => why,
    };
    format!("retrying in {wait} after {after} (retry {attempt})")
}

/// Transport options: retries reported to `notice`, the read timeout for streams or whole
/// answers.
pub fn options(idle: Option<Duration>, streaming: bool, notice: Notice) -> ModelOptions {
    let read_timeout = match (idle, streaming) {
        (Some(t), _) => t,
        (None, true) => DEFAULT_STREAM_IDLE,
        (None, false) => DEFAULT_WHOLE_ANSWER_WAIT,
    };
    let retry = RetryPolicy::default().on_retry(move |attempt| notice(&retry_line(attempt)));
    ModelOptions::default()
        .with_retry(retry)
        .with_http(HttpOptions::default().with_read_timeout(read_timeout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_lines_say_how_long_and_why() {
        let line = retry_text(1, Duration::from_secs(4), Some(429), LlmErrorKind::RateLimited);
        assert_eq!(line, "retrying in 4 s after 429 (rate limited) (retry 1)");
        let line = retry_text(2, Duration::from_millis(1500), None, LlmErrorKind::Network);
        assert_eq!(line, "retrying in 1.5 s after network (retry 2)");
    }
}
