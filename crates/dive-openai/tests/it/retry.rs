//! Retries and failures against real local HTTP servers (wiremock, and a raw TCP server for a
//! connection cut mid-stream), on dive-provider's shared plumbing, for both APIs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dive_core::{Llm, LlmError, LlmErrorKind, Message, ModelRequest, ModelResponse, ResponseAccumulator};
use dive_openai::{ChatCompletions, OpenAi};
use dive_provider::RetryPolicy;
use dive_test::provider::{CannedReplies, MisbehavingServer, Reply};
use futures::StreamExt;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

type Attempts = Arc<Mutex<Vec<(u32, Duration, LlmErrorKind)>>>;

const CHAT: &str = include_str!("../fixtures/chat_text_parallel_tools.sse");
const RESPONSES: &str = include_str!("../fixtures/responses_reasoning_tools.sse");

fn policy(attempts: &Attempts) -> RetryPolicy {
    let log = attempts.clone();
    RetryPolicy::default()
        .with_base_delay(Duration::from_millis(5))
        .with_jitter(0.0)
        .on_retry(move |a| log.lock().unwrap().push((a.attempt, a.delay, a.error.kind)))
}

fn responses(base: &str, attempts: &Attempts) -> OpenAi {
    OpenAi::builder()
        .api_key("sk-retry-test")
        .base_url(format!("{base}/v1"))
        .model("gpt-5.5")
        .retry_policy(policy(attempts))
        .build()
        .unwrap()
}

fn chat(base: &str, attempts: &Attempts) -> ChatCompletions {
    ChatCompletions::builder()
        .api_key("sk-retry-test")
        .base_url(format!("{base}/v1"))
        .model("gpt-5.5")
        .retry_policy(policy(attempts))
        .build()
        .unwrap()
}

fn request() -> ModelRequest {
    ModelRequest::new(vec![Message::user("hi")])
}

fn ok_response() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "resp_ok", "object": "response", "model": "gpt-5.5", "status": "completed",
        "output": [{"type": "message", "id": "msg_ok", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "done", "annotations": []}]}],
        "usage": {"input_tokens": 1000, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 100,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 1100}
    }))
}

fn error(status: u16, code: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status)
        .insert_header("x-request-id", "req_test_1")
        .set_body_json(json!({"error": {"message": message, "type": code, "param": null, "code": code}}))
}

fn sse(body: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), "text/event-stream")
}

async fn mount(server: &MockServer, route: &str, responses: Vec<ResponseTemplate>) {
    for r in responses {
        Mock::given(method("POST")).and(path(route)).respond_with(r).up_to_n_times(1).mount(server).await;
    }
}

async fn requests(server: &MockServer) -> usize {
    server.received_requests().await.unwrap().len()
}

/// Runs a stream to its end: what the caller saw, the error that ended it, and what the
/// stream kept of a failed response (finished blocks only) once output had started.
async fn drain(llm: &dyn Llm) -> (ModelResponse, Option<LlmError>, Option<ModelResponse>) {
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
async fn rate_limit_429_honours_retry_after_ms_and_prices_the_result() {
    let server = MockServer::start().await;
    let limited = error(429, "rate_limit_exceeded", "slow down").insert_header("retry-after-ms", "40");
    mount(&server, "/v1/responses", vec![limited, ok_response()]).await;
    let attempts = Attempts::default();
    let r = responses(&server.uri(), &attempts).generate(request()).await.unwrap();
    assert_eq!(r.text_content(), "done");
    assert_eq!(requests(&server).await, 2);
    assert_eq!(*attempts.lock().unwrap(), vec![(1, Duration::from_millis(40), LlmErrorKind::RateLimited)]);
    let cost = r.usage.cost.expect("catalog price");
    assert!((cost.total - (1000.0 * 1.25 + 100.0 * 10.0) / 1e6).abs() < 1e-12, "{cost:?}");
}

#[tokio::test]
async fn server_errors_are_retried_with_backoff() {
    let server = MockServer::start().await;
    mount(
        &server,
        "/v1/responses",
        vec![error(500, "server_error", "x"), error(503, "server_error", "y"), ok_response()],
    )
    .await;
    let attempts = Attempts::default();
    responses(&server.uri(), &attempts).generate(request()).await.unwrap();
    let kinds: Vec<_> = attempts.lock().unwrap().iter().map(|a| (a.0, a.1)).collect();
    assert_eq!(kinds, vec![(1, Duration::from_millis(5)), (2, Duration::from_millis(10))]);
}

#[tokio::test]
async fn quota_and_client_errors_are_typed_and_not_retried() {
    let cases = [
        (429, "insufficient_quota", "You exceeded your current quota", LlmErrorKind::QuotaExhausted),
        (401, "invalid_api_key", "Incorrect API key provided", LlmErrorKind::Authentication),
        (
            400,
            "context_length_exceeded",
            "Your input exceeds the context window of this model.",
            LlmErrorKind::ContextOverflow,
        ),
    ];
    for (status, code, message, expected) in cases {
        let server = MockServer::start().await;
        mount(&server, "/v1/chat/completions", vec![error(status, code, message)]).await;
        let attempts = Attempts::default();
        let e = chat(&server.uri(), &attempts).generate(request()).await.unwrap_err();
        assert_eq!(e.kind, expected, "{message}");
        assert_eq!((e.status, e.request_id.as_deref()), (Some(status), Some("req_test_1")));
        assert_eq!(requests(&server).await, 1);
        assert!(attempts.lock().unwrap().is_empty());
    }
}

#[tokio::test]
async fn stream_http_error_before_any_event_is_retried() {
    for api in ["chat", "responses"] {
        let server = MockServer::start().await;
        let attempts = Attempts::default();
        let (r, e, _) = if api == "chat" {
            mount(&server, "/v1/chat/completions", vec![error(503, "server_error", "busy"), sse(CHAT)]).await;
            drain(&chat(&server.uri(), &attempts)).await
        } else {
            mount(&server, "/v1/responses", vec![error(503, "server_error", "busy"), sse(RESPONSES)]).await;
            drain(&responses(&server.uri(), &attempts)).await
        };
        assert!(e.is_none(), "{api}: {e:?}");
        assert_eq!(r.tool_uses().count(), 2, "{api}");
        assert_eq!(attempts.lock().unwrap().len(), 1, "{api}");
    }
}

#[tokio::test]
async fn responses_error_event_mid_stream_keeps_partial_and_is_not_retried() {
    let server = MockServer::start().await;
    let cut = RESPONSES.split("event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":2").next().unwrap();
    let body = format!(
        "{cut}event: error\ndata: {{\"type\":\"error\",\"code\":\"server_error\",\"message\":\"The server had an error\",\"param\":null,\"sequence_number\":99}}\n\n"
    );
    mount(&server, "/v1/responses", vec![sse(&body), sse(RESPONSES)]).await;
    let attempts = Attempts::default();
    let (seen, e, kept) = drain(&responses(&server.uri(), &attempts)).await;
    let e = e.expect("error event");
    assert_eq!(e.kind, LlmErrorKind::Server);
    let partial = kept.as_ref().expect("partial output");
    assert_eq!(partial.content.len(), 2, "reasoning + commentary, both finished");
    assert_eq!(seen.content.len(), 2);
    assert_eq!(requests(&server).await, 1, "never retried once output was exposed");
}

#[tokio::test]
async fn chat_stream_without_done_is_interrupted_not_success() {
    let server = MockServer::start().await;
    mount(&server, "/v1/chat/completions", vec![sse(&CHAT.replace("data: [DONE]\n\n", ""))]).await;
    let attempts = Attempts::default();
    let (_, e, kept) = drain(&chat(&server.uri(), &attempts)).await;
    let e = e.expect("a stream without [DONE] must fail");
    assert_eq!(e.kind, LlmErrorKind::StreamInterrupted);
    assert!(kept.as_ref().is_some());
}

#[tokio::test]
async fn responses_stream_without_completed_is_interrupted() {
    let server = MockServer::start().await;
    let body = RESPONSES.split("event: response.completed").next().unwrap();
    mount(&server, "/v1/responses", vec![sse(body)]).await;
    let attempts = Attempts::default();
    let (_, e, kept) = drain(&responses(&server.uri(), &attempts)).await;
    let e = e.expect("must fail");
    assert_eq!(e.kind, LlmErrorKind::StreamInterrupted);
    assert_eq!(kept.as_ref().unwrap().tool_uses().count(), 2);
}

#[tokio::test]
async fn connection_cut_mid_stream_is_interrupted_with_partial_output() {
    // The socket closes before the frame that starts the second tool call.
    let frames = CannedReplies::sse_frames(CHAT);
    let cut_after = frames.iter().position(|f| String::from_utf8_lossy(f).contains("call_Oslo02")).unwrap();
    let reply =
        Reply::Stream { content_type: "text/event-stream".into(), frames, cut_after: Some(cut_after) };
    let server = MisbehavingServer::start(vec![reply]).await;
    let base = server.url().to_owned();
    let attempts = Attempts::default();
    let (seen, e, _) = drain(&chat(&base, &attempts)).await;
    let e = e.expect("a cut connection must fail the stream");
    assert_eq!(e.kind, LlmErrorKind::StreamInterrupted, "{e}");
    assert!(!e.is_retryable());
    assert!(seen.text_content().starts_with("Let me check"));
    assert!(attempts.lock().unwrap().is_empty());
}
