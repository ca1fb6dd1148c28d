//! dive-test's provider conformance suite on OpenRouter (canned bytes and runner shared with
//! every OpenAI-format vendor: `dive-openai-wire/tests/conformance/canned.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../dive-openai-wire/tests/conformance/canned.rs"]
mod canned;

use dive_openai_wire::{Chat, Wire};

#[tokio::test]
async fn openrouter_passes_the_provider_conformance_suite() {
    let report = canned::run::<Wire<Chat, dive_openrouter::OpenRouterVendor>>(
        "anthropic/claude-sonnet-5",
        canned::chat,
    )
    .await;
    assert_eq!(report.passed.len(), 9, "{report:?}");
}
