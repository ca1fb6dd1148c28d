//! dive-test's provider conformance suite on DeepInfra, Groq and Together (canned bytes and
//! runner shared with every OpenAI-format vendor: `dive-openai-wire/tests/conformance/canned.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../dive-openai-wire/tests/conformance/canned.rs"]
mod canned;

use dive_compatible::{deepinfra::DeepInfraVendor, groq::GroqVendor, together::TogetherVendor};
use dive_openai_wire::{Chat, Wire};

#[tokio::test]
async fn the_profiles_pass_the_provider_conformance_suite() {
    for report in [
        canned::run::<Wire<Chat, DeepInfraVendor>>("meta-llama/Llama-3.3-70B-Instruct", canned::chat).await,
        canned::run::<Wire<Chat, GroqVendor>>("llama-3.3-70b-versatile", canned::chat).await,
        canned::run::<Wire<Chat, TogetherVendor>>("meta-llama/Llama-3.3-70B-Instruct-Turbo", canned::chat)
            .await,
    ] {
        assert_eq!(report.passed.len(), 9, "{report:?}");
    }
}
