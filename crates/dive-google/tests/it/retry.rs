//! What only Gemini's errors say (gRPC status names, `RetryInfo` delays, quota versus rate
//! limit, error chunks), against real local HTTP servers (wiremock, and dive-test's
//! misbehaving server for a connection cut inside a chunk). The rules every provider keeps
//! (Retry-After, retries before the first event, interrupted streams, secrets) are checked by
//! the provider conformance suite (`tests/it/conformance.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dive_core::{Llm, LlmError, LlmErrorKind, Message, ModelRequest, ModelResponse, ResponseAccumulator};
use dive_google::Gemini;
use dive_provider::RetryPolicy;
use dive_test::provider::{MisbehavingServer, Reply};
use futures::StreamExt;
use serde_json::json;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

type Attempts = Arc<Mutex<Vec<(u32, Duration, LlmErrorKind)>>>;

const GENERATE: &str = "/v1beta/models/gemini-3.5-flash:generateContent";
const STREAM: &str = "/v1beta/models/gemini-3.5-flash:streamGenerateContent";
const FIXTURE: &str = include_str!("../fixtures/thinking_parallel_calls.sse");

fn client(base: &str, attempts: &Attempts) -> Gemini {
    let log = attempts.clone();
    let policy = RetryPolicy::default()
        .with_base_delay(Duration::from_millis(5))
        .with_jitter(0.0)
        .on_retry(move |a| log.lock().unwrap().push((a.attempt, a.delay, a.error.kind)));
    Gemini::builder().api_key("AIza-retry-test").base_url(base).retry_policy(policy).build().unwrap()
}

fn request() -> ModelRequest {
    ModelRequest::new(vec![Message::user("hi")])
}

fn ok_response() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "done"}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1000, "candidatesTokenCount": 60, "thoughtsTokenCount": 40, "totalTokenCount": 1100},
        "modelVersion": "gemini-3.5-flash", "responseId": "resp-ok"
    }))
}

fn error(status: u16, grpc: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .set_body_json(json!({"error": {"code": status, "message": message, "status": grpc}}))
}

fn sse(body: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), "text/event-stream")
}

async fn mount_sequence(server: &MockServer, route: &str, responses: Vec<ResponseTemplate>) {
    for r in responses {
        let mock = Mock::given(method("POST")).and(path(route));
        let mock = if route == STREAM { mock.and(query_param("alt", "sse")) } else { mock };
        mock.respond_with(r).up_to_n_times(1).mount(server).await;
    }
}

async fn requests(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

/// Runs a stream to its end: the accumulated response and the error that ended it, if any.
/// Runs a stream to its end: what the caller saw, the error that ended it, and what the
/// stream kept of a failed response (finished blocks only) once output had started.
async fn drain(llm: &Gemini) -> (ModelResponse, Option<LlmError>, Option<ModelResponse>) {
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
async fn rate_limit_429_honours_retry_info_and_prices_the_result() {
    let server = MockServer::start().await;
    let limited = ResponseTemplate::new(429).set_body_json(
        json!({"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
        "message": "You exceeded your current quota. Quota exceeded for metric: requests, limit: 10",
        "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.02s"}]}}),
    );
    mount_sequence(&server, GENERATE, vec![limited, ok_response()]).await;
    let attempts = Attempts::default();
    let r = client(&server.uri(), &attempts).generate(request()).await.unwrap();
    assert_eq!((r.text_content().as_str(), r.stop_reason.as_str()), ("done", "stop"));
    assert_eq!(requests(&server).await, 2);
    assert_eq!(*attempts.lock().unwrap(), vec![(1, Duration::from_millis(20), LlmErrorKind::RateLimited)]);
    let cost = r.usage.cost.expect("catalog price");
    assert!((cost.total - (1000.0 * 0.50 + 100.0 * 3.0) / 1e6).abs() < 1e-12, "{cost:?}");
}

#[tokio::test]
async fn overloaded_503_and_internal_500_are_retried_with_backoff() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        GENERATE,
        vec![
            error(503, "UNAVAILABLE", "The model is overloaded."),
            error(500, "INTERNAL", "oops"),
            ok_response(),
        ],
    )
    .await;
    let attempts = Attempts::default();
    client(&server.uri(), &attempts).generate(request()).await.unwrap();
    assert_eq!(
        *attempts.lock().unwrap(),
        vec![
            (1, Duration::from_millis(5), LlmErrorKind::Overloaded),
            (2, Duration::from_millis(10), LlmErrorKind::Server)
        ]
    );
}

#[tokio::test]
async fn client_errors_are_typed_and_not_retried() {
    let cases = [
        (
            400,
            "INVALID_ARGUMENT",
            "API key not valid. Please pass a valid API key.",
            LlmErrorKind::Authentication,
        ),
        (
            400,
            "INVALID_ARGUMENT",
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
            LlmErrorKind::ContextOverflow,
        ),
        (400, "INVALID_ARGUMENT", "Invalid JSON payload received.", LlmErrorKind::InvalidRequest),
        (
            403,
            "PERMISSION_DENIED",
            "Method doesn't allow unregistered callers.",
            LlmErrorKind::PermissionDenied,
        ),
        (404, "NOT_FOUND", "models/gemini-0 is not found", LlmErrorKind::NotFound),
        (
            429,
            "RESOURCE_EXHAUSTED",
            "Quota exceeded for metric: free_tier, limit: 0",
            LlmErrorKind::QuotaExhausted,
        ),
    ];
    for (status, grpc, message, expected) in cases {
        let server = MockServer::start().await;
        mount_sequence(&server, GENERATE, vec![error(status, grpc, message), ok_response()]).await;
        let attempts = Attempts::default();
        let e = client(&server.uri(), &attempts).generate(request()).await.unwrap_err();
        assert_eq!(e.kind, expected, "{message}");
        assert_eq!((e.status, e.error_type.as_deref()), (Some(status), Some(grpc)));
        assert_eq!(e.message, message);
        assert_eq!(requests(&server).await, 1, "{message}");
    }
}

#[tokio::test]
async fn stream_http_error_before_any_event_is_retried() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        STREAM,
        vec![error(503, "UNAVAILABLE", "The model is overloaded."), sse(FIXTURE)],
    )
    .await;
    let attempts = Attempts::default();
    let (r, e, _) = drain(&client(&server.uri(), &attempts)).await;
    assert!(e.is_none(), "{e:?}");
    assert_eq!(r.tool_uses().count(), 2);
    assert_eq!(attempts.lock().unwrap().len(), 1);
}

/// The fixture up to (not including) its last chunk: thinking finished, calls not yet sent.
fn first_two_chunks() -> String {
    FIXTURE.split("\n\n").take(2).map(|c| format!("{c}\n\n")).collect()
}

#[tokio::test]
async fn stream_error_chunk_mid_stream_is_typed_keeps_partial_and_is_not_retried() {
    let server = MockServer::start().await;
    let body = format!(
        "{}data: {{\"error\": {{\"code\": 500, \"message\": \"An internal error has occurred.\", \"status\": \"INTERNAL\"}}}}\n\n",
        first_two_chunks()
    );
    mount_sequence(&server, STREAM, vec![sse(&body), sse(FIXTURE)]).await;
    let attempts = Attempts::default();
    let (seen, e, kept) = drain(&client(&server.uri(), &attempts)).await;
    let e = e.expect("error chunk");
    assert_eq!((e.kind, e.error_type.as_deref()), (LlmErrorKind::Server, Some("INTERNAL")));
    let partial = kept.as_ref().expect("partial output");
    assert_eq!(partial.content.len(), 1, "the finished (signed) thinking block");
    assert_eq!(partial.content, seen.content, "the caller saw the same blocks");
    assert_eq!(requests(&server).await, 1, "never retried once output was exposed");
}

#[tokio::test]
async fn connection_cut_mid_stream_is_interrupted_with_partial_output() {
    // Two whole chunks, then 40 bytes of the third, then the socket closes.
    let head = first_two_chunks();
    let rest = &FIXTURE[head.len()..];
    let frames = {
        let (cut, after) = rest.as_bytes().split_at(40);
        vec![head.clone().into_bytes(), cut.to_vec(), after.to_vec()]
    };
    let content_type = "text/event-stream".to_owned();
    let server =
        MisbehavingServer::start(vec![Reply::Stream { content_type, frames, cut_after: Some(2) }]).await;
    let attempts = Attempts::default();
    let (seen, e, kept) = drain(&client(server.url(), &attempts)).await;
    let e = e.expect("a cut connection must fail the stream");
    assert_eq!(e.kind, LlmErrorKind::StreamInterrupted, "{e}");
    assert!(!e.is_retryable());
    assert_eq!(kept.as_ref().unwrap().content.len(), 1);
    assert_eq!(seen.content.len(), 1);
    assert!(attempts.lock().unwrap().is_empty());
}
