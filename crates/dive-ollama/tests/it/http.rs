//! Real HTTP against local servers: wiremock for responses, Ollama's error lines, retries and a
//! multi-turn agent run; dive-test's misbehaving server for a connection dropped in the middle
//! of an NDJSON line. The rules every provider keeps are checked by the provider conformance
//! suite (`tests/it/conformance.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dive_agent::Agent;
use dive_core::{
    Content, FunctionTool, Llm, LlmError, LlmErrorKind, Message, ModelRequest, ModelResponse,
    ResponseAccumulator, ToolError,
};
use dive_ollama::{Ollama, OllamaBuilderExt};
use dive_provider::RetryPolicy;
use dive_test::provider::{MisbehavingServer, Reply};
use futures::StreamExt;
use serde_json::{Value, json};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

type Attempts = Arc<Mutex<Vec<(u32, LlmErrorKind)>>>;

const FIXTURE: &str = include_str!("../fixtures/thinking_text_tool.ndjson");

fn client(base: &str, attempts: &Attempts) -> Ollama {
    let log = attempts.clone();
    let retry = RetryPolicy::default()
        .with_base_delay(Duration::from_millis(5))
        .with_jitter(0.0)
        .on_retry(move |a| log.lock().unwrap().push((a.attempt, a.error.kind)));
    Ollama::builder().host(base).model("qwen3:8b").retry_policy(retry).build().unwrap()
}

fn ndjson(body: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), "application/x-ndjson")
}

fn whole(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "model": "qwen3:8b", "created_at": "2026-12-01T04:00:00Z",
        "message": {"role": "assistant", "content": content},
        "done": true, "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 3
    }))
}

async fn mount_sequence(server: &MockServer, responses: Vec<ResponseTemplate>) {
    for r in responses {
        Mock::given(method("POST"))
            .and(path("/api/chat"))
            .respond_with(r)
            .up_to_n_times(1)
            .mount(server)
            .await;
    }
}

async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

/// Runs a stream to its end: what the caller saw, the error that ended it, and what the
/// stream kept of a failed response (finished blocks only) once output had started.
async fn drain(llm: &Ollama) -> (ModelResponse, Option<LlmError>, Option<ModelResponse>) {
    let mut acc = ResponseAccumulator::new();
    let mut events = match llm.stream(ModelRequest::new(vec![Message::user("hi")])).await {
        Ok(s) => s,
        Err(e) => return (acc.into_response(), Some(e), None),
    };
    while let Some(item) = events.next().await {
        match item {
            Ok(event) => acc.add(&event).unwrap(),
            Err(e) => return (acc.into_response(), Some(e), kept(events)),
        }
    }
    (acc.into_response(), None, None)
}

fn kept(stream: dive_core::EventStream) -> Option<ModelResponse> {
    stream.has_started().then(|| stream.into_partial_response(false))
}

#[tokio::test]
async fn generate_posts_to_api_chat_and_decodes() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/chat"))
        .and(body_partial_json(json!({"model": "qwen3:8b", "stream": false})))
        .respond_with(whole("<think>easy</think>4"))
        .mount(&server)
        .await;
    let llm = client(&server.uri(), &Attempts::default());
    let r = llm.generate(ModelRequest::new(vec![Message::user("2+2?")])).await.unwrap();
    assert_eq!(r.text_content(), "4");
    assert_eq!(r.content[0].kind(), "thinking");
    assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (10, 3));
}

#[tokio::test]
async fn streams_the_fixture_over_http() {
    let server = MockServer::start().await;
    mount_sequence(&server, vec![ndjson(FIXTURE)]).await;
    let (r, e, _) = drain(&client(&server.uri(), &Attempts::default())).await;
    assert!(e.is_none(), "{e:?}");
    let kinds: Vec<&str> = r.content.iter().map(Content::kind).collect();
    assert_eq!(kinds, ["thinking", "text", "tool_use", "tool_use"]);
    assert_eq!(r.stop_reason, "tool_calls");
    assert_eq!(bodies(&server).await[0]["stream"], true);
}

#[tokio::test]
async fn server_errors_are_retried_then_succeed() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![ResponseTemplate::new(503).set_body_json(json!({"error": "server busy"})), whole("ok")],
    )
    .await;
    let attempts = Attempts::default();
    let r = client(&server.uri(), &attempts)
        .generate(ModelRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap();
    assert_eq!(r.text_content(), "ok");
    assert_eq!(*attempts.lock().unwrap(), vec![(1, LlmErrorKind::Server)]);
}

#[tokio::test]
async fn a_missing_model_is_typed_and_not_retried() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![
            ResponseTemplate::new(404)
                .set_body_json(json!({"error": "model \"nope\" not found, try pulling it first"})),
        ],
    )
    .await;
    let attempts = Attempts::default();
    let e = client(&server.uri(), &attempts)
        .generate(ModelRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap_err();
    assert_eq!(e.kind, LlmErrorKind::NotFound, "{e}");
    assert!(e.to_string().contains("try pulling it first"), "{e}");
    assert!(attempts.lock().unwrap().is_empty());
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn stream_failures_before_the_first_event_are_retried() {
    let server = MockServer::start().await;
    mount_sequence(
        &server,
        vec![
            ResponseTemplate::new(500).set_body_json(json!({"error": "boom"})),
            ndjson("{\"error\":\"server overloaded, please retry shortly\"}\n"),
            ndjson(FIXTURE),
        ],
    )
    .await;
    let attempts = Attempts::default();
    let (r, e, _) = drain(&client(&server.uri(), &attempts)).await;
    assert!(e.is_none(), "{e:?}");
    assert_eq!(r.tool_uses().count(), 2);
    let kinds: Vec<LlmErrorKind> = attempts.lock().unwrap().iter().map(|a| a.1).collect();
    assert_eq!(kinds, [LlmErrorKind::Server, LlmErrorKind::Overloaded]);
}

#[tokio::test]
async fn a_stream_without_its_done_line_is_interrupted_not_success() {
    let server = MockServer::start().await;
    let cut: String = FIXTURE.lines().take(5).map(|l| format!("{l}\n")).collect();
    mount_sequence(&server, vec![ndjson(&cut)]).await;
    let attempts = Attempts::default();
    let (_, e, kept) = drain(&client(&server.uri(), &attempts)).await;
    let e = e.expect("an unfinished stream must fail");
    assert_eq!(e.kind, LlmErrorKind::StreamInterrupted, "{e}");
    let partial = kept.as_ref().unwrap();
    assert_eq!(
        partial.content.len(),
        1,
        "the finished thinking block survives, the open text block does not"
    );
    assert!(attempts.lock().unwrap().is_empty(), "output was shown: no retry");
}

#[tokio::test]
async fn a_connection_dropped_mid_line_is_interrupted_with_partial_output() {
    // Cut inside the tool-call line: thinking is finished, text is still open.
    let cut_at = FIXTURE.find("\"tool_calls\"").unwrap() + 5;
    let (sent, rest) = FIXTURE.as_bytes().split_at(cut_at);
    let frames = vec![sent.to_vec(), rest.to_vec()];
    let content_type = "application/x-ndjson".to_owned();
    let server =
        MisbehavingServer::start(vec![Reply::Stream { content_type, frames, cut_after: Some(1) }]).await;
    let attempts = Attempts::default();
    let (seen, e, kept) = drain(&client(server.url(), &attempts)).await;
    let e = e.expect("a dropped connection must fail the stream");
    assert_eq!(e.kind, LlmErrorKind::StreamInterrupted, "{e}");
    assert!(!e.is_retryable());
    let partial = kept.as_ref().unwrap();
    assert_eq!(partial.content.len(), 1);
    assert!(seen.text_content().starts_with("Let me check"), "text seen before the drop: {seen:?}");
    assert!(attempts.lock().unwrap().is_empty());
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct WeatherInput {
    city: String,
}

#[tokio::test]
async fn a_multi_turn_tool_conversation_is_replayed_as_ollama_expects() {
    let server = MockServer::start().await;
    let first = concat!(
        "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"Need the tool.\"},\"done\":false}\n",
        "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"weather\",\"arguments\":{\"city\":\"Lisbon\"}}}]},\"done\":false}\n",
        "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":50,\"eval_count\":9}\n",
    );
    let second = concat!(
        "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"Sunny, 21°C.\"},\"done\":false}\n",
        "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":80,\"eval_count\":5}\n",
    );
    mount_sequence(&server, vec![ndjson(first), ndjson(second)]).await;
    let weather = FunctionTool::new("weather", "Current weather.", |x: WeatherInput, _ctx| async move {
        Ok::<_, ToolError>(format!("{}: sunny, 21°C", x.city))
    });
    let llm = client(&server.uri(), &Attempts::default());
    let agent = Agent::builder()
        .model(Arc::new(llm))
        .system_prompt("Be brief.")
        .tool(Arc::new(weather))
        .build()
        .unwrap();
    let response = agent.run("Weather in Lisbon?").await.unwrap();
    assert_eq!(response.output_text(), "Sunny, 21°C.");
    assert_eq!(response.usage.input_tokens, 130);

    let sent = bodies(&server).await;
    assert_eq!(sent.len(), 2);
    let history = &sent[1]["messages"];
    assert_eq!(history[0]["role"], "system");
    assert!(history[0]["content"].as_str().unwrap().starts_with("Be brief."));
    assert_eq!(history[1], json!({"role": "user", "content": "Weather in Lisbon?"}));
    assert_eq!(
        history[2],
        json!({"role": "assistant", "thinking": "Need the tool.",
               "tool_calls": [{"function": {"name": "weather", "arguments": {"city": "Lisbon"}}}]})
    );
    assert_eq!(history[3], json!({"role": "tool", "content": "Lisbon: sunny, 21°C", "tool_name": "weather"}));
    assert_eq!(sent[1]["tools"][0]["function"]["name"], "weather");
}

#[tokio::test]
async fn an_api_key_is_sent_as_bearer_and_never_leaks() {
    const KEY: &str = "ollama-key-SUPERSECRET-42";
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/chat"))
        .and(header("authorization", format!("Bearer {KEY}").as_str()))
        .respond_with(
            ResponseTemplate::new(401).set_body_json(json!({"error": format!("key {KEY} is not valid")})),
        )
        .mount(&server)
        .await;
    let llm =
        Ollama::builder().host(server.uri()).api_key(KEY).retry_policy(RetryPolicy::none()).build().unwrap();
    assert!(!format!("{llm:?}").contains(KEY));
    let e = llm.generate(ModelRequest::new(vec![Message::user("hi")])).await.unwrap_err();
    assert_eq!(e.kind, LlmErrorKind::Authentication, "{e}");
    let shown = format!("{e} {e:?}");
    assert!(!shown.contains(KEY), "{shown}");
    assert!(shown.contains("[redacted]"));
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_host_without_scheme_is_read_as_ollama_reads_it() {
    let server = MockServer::start().await;
    mount_sequence(&server, vec![whole("hi")]).await;
    // `OLLAMA_HOST=127.0.0.1:PORT`: no scheme means http.
    let host = server.uri().trim_start_matches("http://").to_owned();
    let llm = Ollama::builder().host(&host).build().unwrap();
    assert_eq!(llm.base_url(), server.uri());
    let r = llm.generate(ModelRequest::new(vec![Message::user("hi")])).await.unwrap();
    assert_eq!(r.text_content(), "hi");
}

#[derive(Debug, Clone, PartialEq)]
struct GeminiOnly;

impl dive_core::ProviderOption for GeminiOnly {
    const PROVIDER: &'static str = "google";
    const NAME: &'static str = "GeminiOnly";
}

#[tokio::test]
async fn an_option_ollama_cannot_honour_is_refused_before_sending() {
    let server = MockServer::start().await;
    let llm = Ollama::builder().host(server.uri()).build().unwrap();
    let request = ModelRequest::new(vec![Message::user("hi")]).with_option(GeminiOnly);
    let e = llm.generate(request).await.unwrap_err();
    assert_eq!(e.kind, LlmErrorKind::InvalidRequest);
    assert!(e.message.contains("GeminiOnly (an option of the google provider)"), "{}", e.message);
    assert!(server.received_requests().await.unwrap().is_empty());
}
