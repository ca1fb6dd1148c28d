//! Grok against a local server: the Responses endpoint under the xAI base URL, the bearer
//! key, reminders as user text, server tools passed through, and cost from the xAI catalog.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{Content, Llm, Message, ModelRequest, Reminder, Role, ToolDefinition};
use serde_json::{Map, Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn calls_responses_with_the_xai_key_and_prices_from_the_xai_catalog() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .and(header("authorization", "Bearer xai-test-key"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "resp_1", "object": "response", "model": "grok-4-0709", "status": "completed",
            "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "Hi from Grok", "annotations": []}]}],
            "usage": {"input_tokens": 1_000_000, "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 100_000, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 1_100_000}
        })))
        .mount(&server)
        .await;
    let grok = dive_grok::builder()
        .api_key("xai-test-key")
        .base_url(format!("{}/v1", server.uri()))
        .build()
        .unwrap();
    assert_eq!((grok.provider(), grok.model()), ("grok", "grok-4"));
    let request = ModelRequest::new(vec![Message::new(
        Role::User,
        vec![Content::text("Hello"), Content::Reminder(Reminder::operator("policy", "Be kind.").unwrap())],
    )])
    .with_tools(vec![ToolDefinition::native("x_search", "x_search", Map::new())]);
    let reply = grok.generate(request).await.unwrap();
    assert_eq!(reply.text_content(), "Hi from Grok");
    let cost = reply.usage.cost.expect("grok-4 is in the catalog");
    assert!((cost.total - 4.5).abs() < 1e-9, "{cost:?}");

    let sent: Value = serde_json::from_slice(&server.received_requests().await.unwrap()[0].body).unwrap();
    assert_eq!(sent["model"], "grok-4");
    assert_eq!(sent["tools"][0], json!({"type": "x_search"}));
    let text = sent["input"].to_string();
    assert!(!text.contains("\"developer\""), "xAI has no developer role: {text}");
    assert!(text.contains("system-reminder"), "{text}");
}

/// The xAI variables `from_env` reads: the tests below never see the developer's real ones.
const XAI_VARS: &[&str] = &["XAI_API_KEY", "GROK_API_KEY", "XAI_BASE_URL"];

#[test]
fn the_key_is_required() {
    const NAME: &str = "the_key_is_required";
    if !dive_test::child::is_child(NAME) {
        return dive_test::child::rerun_with_env(NAME, XAI_VARS, &[]);
    }
    #[allow(clippy::disallowed_methods)] // the test checks its own environment
    let clean = XAI_VARS.iter().all(|v| std::env::var_os(v).is_none());
    assert!(clean, "the child runs without xAI variables");
    let e = dive_grok::from_env().unwrap_err();
    assert_eq!(e.kind, dive_core::LlmErrorKind::Authentication);
    assert!(e.to_string().contains("XAI_API_KEY"), "{e}");
}

#[tokio::test]
async fn grok_api_key_is_the_fallback_and_xai_base_url_is_read() {
    const NAME: &str = "grok_api_key_is_the_fallback_and_xai_base_url_is_read";
    if dive_test::child::is_child(NAME) {
        // In the child: only the made-up key and the parent's local server are set.
        let grok = dive_grok::from_env().unwrap();
        let reply = grok.generate(ModelRequest::new(vec![Message::user("hi")])).await.unwrap();
        assert_eq!(reply.text_content(), "fallback ok");
        return;
    }
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .and(header("authorization", "Bearer xai-fallback-key"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "resp_2", "object": "response", "model": "grok-4", "status": "completed",
            "output": [{"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "fallback ok", "annotations": []}]}],
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let base = format!("{}/v1", server.uri());
    dive_test::child::rerun_with_env(
        NAME,
        XAI_VARS,
        &[("GROK_API_KEY", "xai-fallback-key"), ("XAI_BASE_URL", base.as_str())],
    );
    server.verify().await;
}
