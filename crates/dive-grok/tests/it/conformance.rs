//! dive-test's provider conformance suite on Grok (canned bytes and runner shared with
//! every OpenAI-format vendor: `dive-openai-wire/tests/conformance/canned.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../dive-openai-wire/tests/conformance/canned.rs"]
mod canned;

use dive_openai_wire::{Responses, Wire};

#[tokio::test]
async fn grok_passes_the_provider_conformance_suite() {
    let report = canned::run::<Wire<Responses, dive_grok::GrokVendor>>("grok-4", canned::responses).await;
    assert_eq!(report.passed.len(), 9, "{report:?}");
}
