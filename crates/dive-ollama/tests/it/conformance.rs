//! The provider conformance suite of dive-test, on Ollama's own NDJSON bytes (Ollama needs
//! no key; the suite's key is sent as a bearer token, as for Ollama's hosted service).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dive_core::LlmErrorKind;
use dive_ollama::{Ollama, OllamaBuilderExt};
use dive_provider::RetryPolicy;
use dive_test::provider::{CannedReplies, ProviderSetup, provider_conformance};
use serde_json::json;

fn provider(setup: &ProviderSetup<'_>) -> Ollama {
    Ollama::builder()
        .api_key(setup.api_key)
        .host(setup.base_url)
        .model("qwen3:8b")
        .retry_policy(RetryPolicy::default().with_base_delay(Duration::from_millis(2)).with_jitter(0.0))
        .build()
        .unwrap()
}

const STREAM: &str = concat!(
    "{\"model\":\"qwen3:8b\",\"created_at\":\"2026-12-01T04:00:00Z\",\"message\":{\"role\":\"assistant\",\"content\":\"do\"},\"done\":false}\n",
    "{\"model\":\"qwen3:8b\",\"created_at\":\"2026-12-01T04:00:00Z\",\"message\":{\"role\":\"assistant\",\"content\":\"ne\"},\"done\":false}\n",
    "{\"model\":\"qwen3:8b\",\"created_at\":\"2026-12-01T04:00:01Z\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":1000,\"eval_count\":100}\n",
);

/// Ollama's error body: a bare message.
fn error_body(_status: u16, message: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({"error": message})).unwrap()
}

fn canned() -> CannedReplies {
    let reply = json!({
        "model": "qwen3:8b", "created_at": "2026-12-01T04:00:00Z",
        "message": {"role": "assistant", "content": "done"},
        "done": true, "done_reason": "stop", "prompt_eval_count": 1000, "eval_count": 100
    });
    let mut c = CannedReplies::new(serde_json::to_vec(&reply).unwrap(), "done", (1000, 100));
    c.stream_content_type = "application/x-ndjson".into();
    c.stream = CannedReplies::ndjson_frames(STREAM);
    c.first_event_frames = 1;
    c.stream_error = (b"{\"error\":\"server busy, please try again\"}\n".to_vec(), LlmErrorKind::Overloaded);
    c.error_body = error_body;
    // Local models have no price.
    c.priced = false;
    c
}

#[tokio::test]
async fn ollama_passes_the_provider_conformance_suite() {
    let report = provider_conformance(provider, canned()).await;
    assert_eq!(report.passed.len(), 9, "{report:?}");
}
