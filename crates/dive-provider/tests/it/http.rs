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
async fn a_transport_error_names_its_root_cause() {
    // A port that was just bound and released: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let client = HttpOptions::default().build_client().unwrap();
    let error = client.post(format!("http://127.0.0.1:{port}/v1")).send().await.unwrap_err();
    let plain = error.to_string();
    let err = dive_provider::ProviderError::transport("demo", error);
    assert_eq!(err.kind, LlmErrorKind::Network);
    assert!(err.message.starts_with(&plain), "reqwest's message comes first: {}", err.message);
    assert!(
        err.message.to_ascii_lowercase().contains("refused"),
        "the refused connection is named, not only 'error sending request': {}",
        err.message
    );
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
    assert_eq!((events[0].event.as_str(), events[0].text().as_ref()), ("a", "{\"n\":1}"));
    assert_eq!((events[1].event.as_str(), events[1].text().as_ref()), ("message", "line1\nline2"));
}

/// A local HTTP/1.1 server that writes `parts` (headers first) with a pause between them, then
/// either closes the connection or keeps it open and silent.
async fn trickle(parts: Vec<&'static [u8]>, then_stall: bool) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut request = [0u8; 4096];
        let _ = socket.read(&mut request).await.unwrap();
        for part in parts {
            socket.write_all(part).await.unwrap();
            socket.flush().await.unwrap();
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if then_stall {
            tokio::time::sleep(Duration::from_secs(30)).await;
        }
    });
    format!("http://{addr}/")
}

#[tokio::test]
async fn sse_over_real_reads_joins_a_split_crlf_and_dispatches_a_last_event_at_a_clean_close() {
    let head: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    let url = trickle(vec![head, b"data: a\r", b"\ndata: b\r\n\r\ndata: {\"last\":true}\n"], false).await;
    let client = HttpOptions::default().build_client().unwrap();
    let response = client.get(url).send().await.unwrap();
    let events: Vec<_> = response_sse("demo", response).map(Result::unwrap).collect().await;
    let data: Vec<String> = events.iter().map(|e| e.text().into_owned()).collect();
    assert_eq!(data, ["a\nb", "{\"last\":true}"]);
}

#[tokio::test]
async fn a_silent_sse_body_times_out_as_timeout_after_the_events_it_sent() {
    let head: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
    let url = trickle(vec![head, b"data: a\n\ndata: half"], true).await;
    let client = HttpOptions::default().with_read_timeout(Duration::from_millis(300)).build_client().unwrap();
    let response = client.get(url).send().await.unwrap();
    let items: Vec<_> = response_sse("demo", response).collect().await;
    assert_eq!(items.len(), 2, "the finished event, then the timeout; the half event is dropped");
    assert_eq!(items[0].as_ref().unwrap().data, b"a");
    assert_eq!(items[1].as_ref().unwrap_err().kind, LlmErrorKind::Timeout);
}
