//! The plumbing against a real local HTTP server: status classification, headers, retries and
//! SSE over a real response body.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use dive_core::{LlmErrorKind, Secret};
use dive_provider::{HttpOptions, RetryPolicy, check_status, response_sse};
use futures::StreamExt;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn errors_carry_status_type_request_id_and_retry_after_with_secrets_redacted() {
    let server = MockServer::start().await;
    let key = Secret::new("sk-test-0123456789");
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(429)
                .insert_header("x-request-id", "req_42")
                .insert_header("retry-after", "7")
                .set_body_string(
                    r#"{"error":{"code":"rate_limit_exceeded","message":"slow down sk-test-0123456789"}}"#,
                ),
        )
        .mount(&server)
        .await;
    let client = HttpOptions::default().build_client().unwrap();
    let response = client.post(server.uri()).send().await.unwrap();
    let e = check_status("demo", response, &[&key]).await.unwrap_err();
    assert_eq!(e.kind, LlmErrorKind::RateLimited);
    assert_eq!((e.status, e.error_type.as_deref()), (Some(429), Some("rate_limit_exceeded")));
    assert_eq!(e.request_id.as_deref(), Some("req_42"));
    assert_eq!(e.retry_after, Some(Duration::from_secs(7)));
    assert_eq!(e.message, "slow down [redacted]");
}

#[tokio::test]
async fn run_retries_until_success_and_the_hook_sees_each_retry() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_string("ok"))
        .mount(&server)
        .await;
    let client = HttpOptions::default().build_client().unwrap();
    let retries = Arc::new(AtomicU32::new(0));
    let seen = retries.clone();
    let policy = RetryPolicy::default().with_base_delay(Duration::from_millis(1)).on_retry(move |a| {
        assert_eq!(a.error.status, Some(503));
        seen.fetch_add(1, Ordering::SeqCst);
    });
    let body = policy
        .run(|| async {
            let r = client
                .post(server.uri())
                .send()
                .await
                .map_err(|e| dive_provider::ProviderError::transport("demo", e))?;
            check_status("demo", r, &[])
                .await?
                .text()
                .await
                .map_err(|e| dive_provider::ProviderError::transport("demo", e))
        })
        .await
        .unwrap();
    assert_eq!(body, "ok");
    assert_eq!(retries.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn sse_over_a_real_body_skips_comments_and_handles_crlf() {
    let server = MockServer::start().await;
    let body = ": keep-alive\r\n\r\nevent: a\r\ndata: {\"n\":1}\r\n\r\ndata: line1\ndata: line2\n\n";
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), "text/event-stream"))
        .mount(&server)
        .await;
    let client = HttpOptions::default().build_client().unwrap();
    let response = client.get(server.uri()).send().await.unwrap();
    let events: Vec<_> = response_sse("demo", response).map(Result::unwrap).collect().await;
    assert_eq!(events.len(), 2);
    assert_eq!((events[0].event.as_str(), events[0].data.as_str()), ("a", "{\"n\":1}"));
    assert_eq!((events[1].event.as_str(), events[1].data.as_str()), ("message", "line1\nline2"));
}
