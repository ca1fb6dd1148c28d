//! `LineModel` passes `dive-test`'s provider conformance suite: retries and `Retry-After`,
//! cut connections before and after the first event, an interrupted stream, typed error
//! lines, usage, cancellation, and no leaked key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dive_core::{LlmErrorKind, Secret, serde_json::json};
use dive_test::provider::{CannedReplies, ProviderSetup, provider_conformance};
use downstream_example::LineModel;

fn line_protocol() -> CannedReplies {
    let reply =
        json!({"id": "r1", "text": "Hello there", "stop": "stop", "usage": {"input": 11, "output": 3}});
    let mut canned = CannedReplies::new(reply.to_string().into_bytes(), "Hello there", (11, 3));
    canned.stream_content_type = "application/x-ndjson".into();
    let stream = [
        json!({"type": "start", "id": "r1"}),
        json!({"type": "text", "delta": "Hello"}),
        json!({"type": "text", "delta": " there"}),
        json!({"type": "end", "stop": "stop", "usage": {"input": 11, "output": 3}}),
    ];
    canned.stream = stream.iter().map(|line| format!("{line}\n").into_bytes()).collect();
    canned.first_event_frames = 1;
    canned.stream_error = (
        format!("{}\n", json!({"type": "error", "kind": "overloaded", "message": "busy"})).into_bytes(),
        LlmErrorKind::Overloaded,
    );
    canned.error_body = |_, message| json!({"error": message}).to_string().into_bytes();
    canned
}

fn line_model(setup: &ProviderSetup<'_>) -> LineModel {
    LineModel::new(setup.base_url, "line-1")
        .unwrap()
        .with_api_key(Secret::new(setup.api_key))
        .with_retries(2, Duration::from_millis(5))
}

#[tokio::test]
async fn line_model_passes_the_provider_conformance_suite() {
    let report = provider_conformance(line_model, line_protocol()).await;
    for check in [
        "retry_after",
        "retry_5xx",
        "usage_and_cost",
        "cut_before_first_event",
        "cut_after_first_event",
        "interrupted_stream",
        "error_event",
        "cancellation",
        "no_secret_leaks",
    ] {
        assert!(report.passed.contains(&check), "{check} did not run: {report:?}");
    }
}
