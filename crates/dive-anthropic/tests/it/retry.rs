//! Retries and failures against real local HTTP servers (wiremock, and dive-test's
//! misbehaving server for a connection cut mid-stream), beyond what the provider
//! conformance suite (`tests/it/conformance.rs`) checks for every provider: Anthropic's error
//! types and wording, and what a failed stream of a recorded fixture keeps.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dive_anthropic::Anthropic;
use dive_core::{Llm, LlmError, LlmErrorKind, Message, ModelRequest, ModelResponse, ResponseAccumulator};
use dive_provider::RetryPolicy;
use dive_test::provider::{MisbehavingServer, Reply};
use futures::StreamExt;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

type Attempts = Arc<Mutex<Vec<(u32, Duration, LlmErrorKind)>>>;

fn policy(attempts: &Attempts) -> RetryPolicy {
    let log = attempts.clone();
    RetryPolicy::default()
        .with_base_delay(Duration::from_millis(5))
        .with_jitter(0.0)
        .on_retry(move |a| log.lock().unwrap().push((a.attempt, a.delay, a.error.kind)))
}

fn client(base: &str, attempts: &Attempts) -> Anthropic {
    Anthropic::builder()
        .api_key("sk-ant-retry-test")
        .base_url(base)
        .model("claude-sonnet-5-5")
        .retry_policy(policy(attempts))
        .build()
        .unwrap()
}

fn request() -> ModelRequest {
    ModelRequest::new(vec![Message::user("hi")])
}

fn ok_message() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "msg_ok", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
        "content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 1000, "output_tokens": 100}
    }))
}

fn error(status: u16, kind: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .insert_header("request-id", "req_test_1")
        .set_body_json(json!({"type": "error", "error": {"type": kind, "message": message}}))
}

fn sse(body: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), "text/event-stream")
}

const FIXTURE: &str = include_str!("../fixtures/thinking_text_tool.sse");

async fn mount_sequence(server: &MockServer, responses: Vec<ResponseTemplate>) {
    for r in responses {
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(r)
            .up_to_n_times(1)
            .mount(server)
            .await;
    }
}

async fn requests(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

/// Runs a stream to its end: the accumulated events and the error that ended it, if any.
/// Runs a stream to its end: what the caller saw, the error that ended it, and what the
/// stream kept of a failed response (finished blocks only) once output had started.
async fn drain(llm: &Anthropic) -> (ModelResponse, Option<LlmError>, Option<ModelResponse>) {
    let mut acc = ResponseAccumulator::new();
    let mut stream = llm.stream(request()).await.unwrap();
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => acc.add(&e).unwrap(),
            Err(e) => return (acc.into_finished_response(), Some(e), kept(stream)),
        }
    }
    (acc.into_response(), None, None)
}

fn kept(stream: dive_core::EventStream) -> Option<ModelResponse> {
    stream.has_started().then(|| stream.into_partial_response(false))
}

#[tokio::test]
async fn rate_limit_429_honours_retry_after() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![error(429, "rate_limit_error", "slow down").insert_header("retry-after", "1"), ok_message()],
    )
    .await;
    let attempts = Attempts::default();
    let r = client(&server.uri(), &attempts).generate(request()).await.unwrap();
    assert_eq!(r.text_content(), "done");
    assert_eq!(requests(&server).await, 2);
    assert_eq!(*attempts.lock().unwrap(), vec![(1, Duration::from_secs(1), LlmErrorKind::RateLimited)]);
}

#[tokio::test]
async fn retry_after_ms_wins_over_retry_after() {
    let server = MockServer::start().await;
    let limited = error(429, "rate_limit_error", "slow down")
        .insert_header("retry-after", "30")
        .insert_header("retry-after-ms", "40");
    mount_sequence(&server, vec![limited, ok_message()]).await;
    let attempts = Attempts::default();
    client(&server.uri(), &attempts).generate(request()).await.unwrap();
    assert_eq!(attempts.lock().unwrap()[0].1, Duration::from_millis(40));
}

#[tokio::test]
async fn overloaded_529_is_retried_with_backoff() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![
            error(529, "overloaded_error", "Overloaded"),
            error(529, "overloaded_error", "Overloaded"),
            ok_message(),
        ],
    )
    .await;
    let attempts = Attempts::default();
    client(&server.uri(), &attempts).generate(request()).await.unwrap();
    let seen = attempts.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![
            (1, Duration::from_millis(5), LlmErrorKind::Overloaded),
            (2, Duration::from_millis(10), LlmErrorKind::Overloaded)
        ]
    );
}

#[tokio::test]
async fn server_error_500_then_success() {
    let server = MockServer::start().await;
    mount_sequence(&server, vec![error(500, "api_error", "Internal error"), ok_message()]).await;
    let attempts = Attempts::default();
    let r = client(&server.uri(), &attempts).generate(request()).await.unwrap();
    assert_eq!(r.id, "msg_ok");
    assert_eq!(requests(&server).await, 2);
    let cost = r.usage.cost.expect("catalog price");
    assert!((cost.total - (1000.0 * 2.0 + 100.0 * 10.0) / 1e6).abs() < 1e-12, "{cost:?}");
}

#[tokio::test]
async fn quota_exhausted_429_is_terminal() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![
            error(429, "rate_limit_error", "Your credit balance is too low to access the API"),
            ok_message(),
        ],
    )
    .await;
    let attempts = Attempts::default();
    let e = client(&server.uri(), &attempts).generate(request()).await.unwrap_err();
    assert_eq!(e.kind, LlmErrorKind::QuotaExhausted);
    assert_eq!((e.status, e.request_id.as_deref()), (Some(429), Some("req_test_1")));
    assert_eq!(requests(&server).await, 1);
    assert!(attempts.lock().unwrap().is_empty());
}

#[tokio::test]
async fn client_errors_are_typed_and_not_retried() {
    let cases = [
        (401, "authentication_error", "invalid x-api-key", LlmErrorKind::Authentication),
        (
            400,
            "invalid_request_error",
            "prompt is too long: 1200000 tokens > 1000000 maximum",
            LlmErrorKind::ContextOverflow,
        ),
        (400, "invalid_request_error", "messages: field required", LlmErrorKind::InvalidRequest),
    ];
    for (status, kind, message, expected) in cases {
        let server = MockServer::start().await;
        mount_sequence(&server, vec![error(status, kind, message), ok_message()]).await;
        let attempts = Attempts::default();
        let e = client(&server.uri(), &attempts).generate(request()).await.unwrap_err();
        assert_eq!(e.kind, expected, "{message}");
        assert_eq!(e.error_type.as_deref(), Some(kind));
        assert_eq!(e.message, message);
        assert_eq!(requests(&server).await, 1);
    }
}

#[tokio::test]
async fn stream_http_error_before_any_event_is_retried() {
    let server = MockServer::start().await;
    mount_sequence(&server, vec![error(529, "overloaded_error", "Overloaded"), sse(FIXTURE)]).await;
    let attempts = Attempts::default();
    let (r, e, _) = drain(&client(&server.uri(), &attempts)).await;
    assert!(e.is_none(), "{e:?}");
    assert_eq!(r.text_content(), "Hello world");
    assert_eq!(attempts.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn stream_error_event_before_the_first_event_is_retried() {
    let server = MockServer::start().await;
    let early = "event: ping\ndata: {\"type\":\"ping\"}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    mount_sequence(&server, vec![sse(early), sse(FIXTURE)]).await;
    let attempts = Attempts::default();
    let (r, e, _) = drain(&client(&server.uri(), &attempts)).await;
    assert!(e.is_none(), "{e:?}");
    assert_eq!(r.stop_reason, "tool_use");
    assert_eq!(requests(&server).await, 2);
}

#[tokio::test]
async fn stream_error_event_mid_stream_is_typed_keeps_partial_and_is_not_retried() {
    let server = MockServer::start().await;
    let cut = FIXTURE
        .split("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2")
        .next()
        .unwrap();
    let body = format!(
        "{cut}event: error\ndata: {{\"type\":\"error\",\"error\":{{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}}}\n\n"
    );
    mount_sequence(&server, vec![sse(&body), sse(FIXTURE)]).await;
    let attempts = Attempts::default();
    let (seen, e, kept) = drain(&client(&server.uri(), &attempts)).await;
    let e = e.expect("error event");
    assert_eq!(e.kind, LlmErrorKind::Overloaded);
    assert_eq!(e.error_type.as_deref(), Some("overloaded_error"));
    let partial = kept.as_ref().expect("partial output");
    assert_eq!(partial.text_content(), "Hello world");
    assert_eq!(partial.content.len(), 2, "thinking + text, both finished");
    assert_eq!(seen.text_content(), "Hello world", "the caller saw the same events");
    assert_eq!(requests(&server).await, 1, "never retried once output was exposed");
}

#[tokio::test]
async fn stream_without_message_stop_is_interrupted_not_success() {
    let server = MockServer::start().await;
    let body = FIXTURE.replace("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", "");
    mount_sequence(&server, vec![sse(&body)]).await;
    let attempts = Attempts::default();
    let (_, e, kept) = drain(&client(&server.uri(), &attempts)).await;
    let e = e.expect("a stream without message_stop must fail");
    assert_eq!(e.kind, LlmErrorKind::StreamInterrupted);
    let partial = kept.as_ref().unwrap();
    assert_eq!(partial.stop_reason, "tool_use");
    assert_eq!(partial.content.len(), 3);
}

#[tokio::test]
async fn connection_cut_mid_stream_is_interrupted_with_partial_output() {
    let cut_at = FIXTURE
        .find("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2")
        .unwrap()
        + 10;
    // The socket closes inside an event, with the declared content length unmet.
    let (head, tail) = FIXTURE.as_bytes().split_at(cut_at);
    let cut = Reply::Stream {
        content_type: "text/event-stream".into(),
        frames: vec![head.to_vec(), tail.to_vec()],
        cut_after: Some(1),
    };
    let server = MisbehavingServer::start(vec![cut]).await;
    let attempts = Attempts::default();
    let (seen, e, kept) = drain(&client(server.url(), &attempts)).await;
    let e = e.expect("a cut connection must fail the stream");
    assert_eq!(e.kind, LlmErrorKind::StreamInterrupted, "{e}");
    assert!(!e.is_retryable());
    assert_eq!(kept.as_ref().unwrap().text_content(), "Hello world");
    assert_eq!(seen.content.len(), 2);
    assert!(attempts.lock().unwrap().is_empty());
}
