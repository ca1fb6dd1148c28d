//! The provider conformance suite of dive-test, on the Messages API's own bytes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dive_anthropic::Anthropic;
use dive_core::LlmErrorKind;
use dive_provider::RetryPolicy;
use dive_test::provider::{CannedReplies, MisbehavingServer, ProviderSetup, Reply, provider_conformance};
use serde_json::json;

fn provider_of(setup: &ProviderSetup<'_>, model: &str) -> Anthropic {
    Anthropic::builder()
        .api_key(setup.api_key)
        .base_url(setup.base_url)
        .model(model)
        .retry_policy(RetryPolicy::default().with_base_delay(Duration::from_millis(2)).with_jitter(0.0))
        .build()
        .unwrap()
}

fn provider(setup: &ProviderSetup<'_>) -> Anthropic {
    provider_of(setup, "claude-sonnet-5-5")
}

const STREAM: &str = concat!(
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_c\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-5-5\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1000,\"output_tokens\":1}}}\n\n",
    "event: ping\ndata: {\"type\":\"ping\"}\n\n",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"do\"}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ne\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":100}}\n\n",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
);

fn error_body(status: u16, message: &str) -> Vec<u8> {
    let kind = match status {
        401 => "authentication_error",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    };
    serde_json::to_vec(&json!({"type": "error", "error": {"type": kind, "message": message}})).unwrap()
}

fn canned() -> CannedReplies {
    let reply = json!({
        "id": "msg_ok", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
        "content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": 1000, "output_tokens": 100}
    });
    let error = b"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let mut c = CannedReplies::new(serde_json::to_vec(&reply).unwrap(), "done", (1000, 100));
    c.stream_content_type = "text/event-stream".into();
    c.stream = CannedReplies::sse_frames(STREAM);
    c.first_event_frames = 1;
    c.stream_error = (error.to_vec(), LlmErrorKind::Overloaded);
    c.error_body = error_body;
    c.priced = true;
    c
}

#[tokio::test]
async fn anthropic_passes_the_provider_conformance_suite() {
    let report = provider_conformance(provider, canned()).await;
    assert_eq!(report.passed.len(), 9, "{report:?}");
}

/// The suite catches a provider that breaks a rule: here one that never retries.
#[tokio::test]
#[should_panic(expected = "[retry_after]")]
async fn the_suite_fails_a_provider_without_retries() {
    let no_retries = |setup: &ProviderSetup<'_>| {
        Anthropic::builder()
            .api_key(setup.api_key)
            .base_url(setup.base_url)
            .retry_policy(RetryPolicy::none())
            .build()
            .unwrap()
    };
    provider_conformance(no_retries, canned()).await;
}

/// And one whose model has no catalog price while the canned replies say it is priced.
#[tokio::test]
#[should_panic(expected = "[usage_and_cost] a priced model has a cost")]
async fn the_suite_fails_a_missing_cost() {
    let unpriced = |setup: &ProviderSetup<'_>| provider_of(setup, "claude-not-in-the-catalog");
    let mut c = canned();
    c.reply = String::from_utf8(c.reply)
        .unwrap()
        .replace("claude-sonnet-5-5", "claude-not-in-the-catalog")
        .into_bytes();
    provider_conformance(unpriced, c).await;
}

/// The key goes in `x-api-key` only (never `Authorization`), and the builder's `Debug`
/// hides it too (the suite checks the provider's).
#[tokio::test]
async fn the_key_is_sent_in_x_api_key_only() {
    const KEY: &str = "sk-ant-api03-SUPERSECRET-0123456789";
    let c = canned();
    let server = MisbehavingServer::start(vec![Reply::json(200, c.reply)]).await;
    let llm = provider(&ProviderSetup::new(server.url(), KEY));
    dive_core::Llm::generate(&llm, dive_core::ModelRequest::new(vec![dive_core::Message::user("hi")]))
        .await
        .unwrap();
    let got = &server.received()[0];
    let header = |name: &str| got.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    assert_eq!(header("x-api-key"), Some(KEY));
    assert_eq!(header("authorization"), None);
    assert!(!format!("{:?}", Anthropic::builder().api_key(KEY)).contains("SUPERSECRET"));
}
