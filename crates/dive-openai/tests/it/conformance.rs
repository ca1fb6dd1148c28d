//! dive-test's provider conformance suite on both OpenAI APIs (the canned bytes and runner
//! are shared with every OpenAI-format vendor: `dive-openai-wire/tests/conformance/canned.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../dive-openai-wire/tests/conformance/canned.rs"]
mod canned;

use dive_openai::{Chat, OpenAiVendor, Responses, Wire};

#[tokio::test]
async fn responses_passes_the_provider_conformance_suite() {
    let report = canned::run::<Wire<Responses, OpenAiVendor>>("gpt-5.5", canned::responses).await;
    assert_eq!(report.passed.len(), 9, "{report:?}");
}

#[tokio::test]
async fn chat_completions_passes_the_provider_conformance_suite() {
    let report = canned::run::<Wire<Chat, OpenAiVendor>>("gpt-5.5", canned::chat).await;
    assert_eq!(report.passed.len(), 9, "{report:?}");
}
