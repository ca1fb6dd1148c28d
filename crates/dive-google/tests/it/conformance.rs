//! The provider conformance suite of dive-test, on the Gemini API's own bytes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dive_core::LlmErrorKind;
use dive_google::Gemini;
use dive_provider::RetryPolicy;
use dive_test::provider::{CannedReplies, MisbehavingServer, ProviderSetup, Reply, provider_conformance};
use serde_json::json;

fn provider(setup: &ProviderSetup<'_>) -> Gemini {
    Gemini::builder()
        .api_key(setup.api_key)
        .base_url(setup.base_url)
        .model("gemini-3.5-flash")
        .retry_policy(RetryPolicy::default().with_base_delay(Duration::from_millis(2)).with_jitter(0.0))
        .build()
        .unwrap()
}

const STREAM: &str = concat!(
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"do\"}]},\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":1000,\"candidatesTokenCount\":1,\"totalTokenCount\":1001},\"modelVersion\":\"gemini-3.5-flash\",\"responseId\":\"conf\"}\r\n\r\n",
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ne\"}]},\"index\":0}],\"modelVersion\":\"gemini-3.5-flash\",\"responseId\":\"conf\"}\r\n\r\n",
    "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"\"}]},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":1000,\"candidatesTokenCount\":100,\"totalTokenCount\":1100},\"modelVersion\":\"gemini-3.5-flash\",\"responseId\":\"conf\"}\r\n\r\n",
);

/// Gemini's error object: the gRPC status name beside the HTTP code.
fn error_body(status: u16, message: &str) -> Vec<u8> {
    let grpc = match status {
        401 => "UNAUTHENTICATED",
        429 => "RESOURCE_EXHAUSTED",
        500 => "INTERNAL",
        503 => "UNAVAILABLE",
        _ => "UNKNOWN",
    };
    serde_json::to_vec(&json!({"error": {"code": status, "message": message, "status": grpc}})).unwrap()
}

fn canned() -> CannedReplies {
    let reply = json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "done"}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1000, "candidatesTokenCount": 100, "totalTokenCount": 1100},
        "modelVersion": "gemini-3.5-flash", "responseId": "conf"
    });
    let error = b"data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n";
    let mut c = CannedReplies::new(serde_json::to_vec(&reply).unwrap(), "done", (1000, 100));
    c.stream = CannedReplies::sse_frames(STREAM.replace("\r\n", "\n").as_str());
    c.first_event_frames = 1;
    c.stream_error = (error.to_vec(), LlmErrorKind::Overloaded);
    c.error_body = error_body;
    c.priced = true;
    c
}

#[tokio::test]
async fn gemini_passes_the_provider_conformance_suite() {
    let report = provider_conformance(provider, canned()).await;
    assert_eq!(report.passed.len(), 9, "{report:?}");
}

/// The key goes in `x-goog-api-key` only, never in the URL, the body or `Authorization`, and
/// the builder's `Debug` hides it too (the suite checks the provider's).
#[tokio::test]
async fn the_key_is_sent_in_x_goog_api_key_only() {
    const KEY: &str = "AIza-SUPERSECRET-0123456789";
    let server = MisbehavingServer::start(vec![Reply::json(200, canned().reply)]).await;
    let llm = provider(&ProviderSetup::new(server.url(), KEY));
    dive_core::Llm::generate(&llm, dive_core::ModelRequest::new(vec![dive_core::Message::user("hi")]))
        .await
        .unwrap();
    let got = &server.received()[0];
    let header = |name: &str| got.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    assert_eq!(header("x-goog-api-key"), Some(KEY));
    assert_eq!(header("authorization"), None);
    assert_eq!(got.path(), "/v1beta/models/gemini-3.5-flash:generateContent");
    assert!(!String::from_utf8_lossy(&got.body).contains("SUPERSECRET"));
    assert!(!format!("{:?}", Gemini::builder().api_key(KEY)).contains("SUPERSECRET"));
}
