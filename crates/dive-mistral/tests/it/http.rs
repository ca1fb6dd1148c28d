//! Mistral against a local server: the endpoint under `/v1`, a rate limit retried, and a
//! multi-turn tool conversation whose ids come back exactly (Mistral's own 9-character ids
//! are kept, foreign ones rewritten the same way in call and result).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dive_core::{Content, Llm, LlmErrorKind, Message, ModelRequest, Role, StopKind, ToolResultContent};
use dive_provider::RetryPolicy;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn rate_limits_are_retried_and_tool_ids_replayed() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "0").set_body_json(
            json!({"object": "error", "message": "Requests rate limit exceeded", "type": "rate_limited", "code": "1300"}),
        ))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "c1", "object": "chat.completion", "model": "mistral-medium-2508",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "",
                "tool_calls": [{"id": "Wq8zT3kLm", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}}]},
                "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 1_000_000, "completion_tokens": 0, "total_tokens": 1_000_000}
        })))
        .mount(&server)
        .await;
    let llm = dive_mistral::builder()
        .api_key("mistral-test")
        .base_url(format!("{}/v1", server.uri()))
        .retry_policy(RetryPolicy::default().with_base_delay(Duration::from_millis(5)))
        .build()
        .unwrap();
    let first = llm.generate(ModelRequest::new(vec![Message::user("Weather in Paris?")])).await.unwrap();
    assert_eq!(first.stop_kind(), StopKind::ToolUse);
    assert!((first.usage.cost.as_ref().unwrap().total - 0.4).abs() < 1e-9, "mistral-medium input price");
    let call = first.tool_uses().next().unwrap().clone();
    assert_eq!(call.id, "Wq8zT3kLm");

    let mut history = vec![Message::user("Weather in Paris?"), first.to_message()];
    history.push(Message::tool_results(vec![ToolResultContent::text(&call.id, "18°C")]));
    history.push(Message::new(
        Role::Assistant,
        vec![Content::tool_use("call_foreign_1", "weather", json!({"city": "Lyon"}))],
    ));
    history.push(Message::tool_results(vec![ToolResultContent::text("call_foreign_1", "20°C")]));
    llm.generate(ModelRequest::new(history)).await.unwrap();
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 3, "429, then two successful calls");
    let sent: Value = serde_json::from_slice(&requests[2].body).unwrap();
    let m = &sent["messages"];
    assert_eq!(m[1]["tool_calls"][0]["id"], "Wq8zT3kLm");
    assert_eq!(m[1]["tool_calls"][0]["function"]["arguments"], "{\"city\":\"Paris\"}");
    assert_eq!(m[2], json!({"role": "tool", "tool_call_id": "Wq8zT3kLm", "content": "18°C"}));
    let foreign = dive_mistral::mistral_tool_call_id("call_foreign_1");
    assert_eq!(m[3]["tool_calls"][0]["id"], foreign.as_str());
    assert_eq!(m[4]["tool_call_id"], foreign.as_str());
}

#[test]
fn a_missing_key_is_an_authentication_error() {
    // Run in a child process without the Mistral variables, so it asserts (and never sees a
    // real key) whatever the developer's environment holds.
    const NAME: &str = "a_missing_key_is_an_authentication_error";
    const VARS: &[&str] = &["MISTRAL_API_KEY", "MISTRAL_BASE_URL"];
    if !dive_test::child::is_child(NAME) {
        return dive_test::child::rerun_with_env(NAME, VARS, &[]);
    }
    #[allow(clippy::disallowed_methods)] // the test checks its own environment
    let clean = VARS.iter().all(|v| std::env::var_os(v).is_none());
    assert!(clean, "the child runs without Mistral variables");
    let e = dive_mistral::from_env().unwrap_err();
    assert_eq!(e.kind, LlmErrorKind::Authentication);
    assert!(e.to_string().contains("MISTRAL_API_KEY"), "{e}");
}

/// A recorded Magistral-style answer (`tests/fixtures/recorded/`, see its README): the
/// thinking chunk becomes a thinking block and goes back as a thinking chunk next turn.
#[tokio::test]
async fn a_recorded_thinking_answer_is_kept_and_replayed() {
    let recorded: Value = serde_json::from_slice(
        &std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/recorded/vercel-mistral-reasoning-history-live.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let recorded_content = &recorded["choices"][0]["message"]["content"];
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(&recorded))
        .mount(&server)
        .await;
    let llm = dive_mistral::builder()
        .api_key("mistral-test")
        .base_url(format!("{}/v1", server.uri()))
        .build()
        .unwrap();
    let first = llm.generate(ModelRequest::new(vec![Message::user("17 * 23?")])).await.unwrap();
    let Content::Thinking(thinking) = &first.content[0] else { panic!("{:?}", first.content) };
    assert_eq!(thinking.thinking, recorded_content[0]["thinking"][0]["text"].as_str().unwrap());
    assert_eq!(first.text_content(), recorded_content[1]["text"].as_str().unwrap());
    assert_eq!(first.content.len(), 2);
    let history = vec![Message::user("17 * 23?"), first.to_message(), Message::user("And 17 * 24?")];
    llm.generate(ModelRequest::new(history)).await.unwrap();
    let requests = server.received_requests().await.unwrap();
    let sent: Value = serde_json::from_slice(&requests[1].body).unwrap();
    assert_eq!(
        sent["messages"][1]["content"],
        json!([
            {"type": "thinking", "thinking": [{"type": "text", "text": recorded_content[0]["thinking"][0]["text"]}]},
            {"type": "text", "text": "391"}
        ])
    );
}
