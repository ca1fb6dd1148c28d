//! Typed OpenAI options: sent by the APIs that can, refused (never dropped) by those that
//! cannot, and another provider's option refused by every OpenAI-format vendor.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{LlmErrorKind, Message, ModelRequest, ProviderOption};
use dive_openai_wire::{Chat, Dialect, OpenAiOptions, Profile, Responses, builder_for, compatible};

fn request(options: OpenAiOptions) -> ModelRequest {
    ModelRequest::new(vec![Message::user("hi")]).with_option(options)
}

#[test]
fn the_responses_api_sends_every_openai_option() {
    let llm = compatible::<Responses>("http://127.0.0.1:9/v1").model("m").build().unwrap();
    let options = OpenAiOptions::default()
        .with_prompt_cache_key("user-42")
        .with_previous_response_id("resp_1")
        .with_service_tier("flex");
    let body = llm.request_body(&request(options), false).unwrap();
    assert_eq!(
        (&body["prompt_cache_key"], &body["previous_response_id"], &body["service_tier"]),
        (&"user-42".into(), &"resp_1".into(), &"flex".into())
    );
}

#[test]
fn chat_completions_refuses_previous_response_id_and_sends_the_rest() {
    let llm = compatible::<Chat>("http://127.0.0.1:9/v1").model("m").build().unwrap();
    let e = llm.request_body(&request(OpenAiOptions::default().with_previous_response_id("resp_1")), false);
    let e = e.unwrap_err();
    assert_eq!(e.kind, LlmErrorKind::InvalidRequest);
    assert!(e.message.contains("previous_response_id") && e.message.contains("Responses API"), "{e}");
    let body =
        llm.request_body(&request(OpenAiOptions::default().with_prompt_cache_key("k")), false).unwrap();
    assert_eq!(body["prompt_cache_key"], "k");
}

#[test]
fn a_key_the_dialect_cannot_send_is_an_error_not_a_silent_drop() {
    let profile =
        Profile::new(dive_openai_wire::COMPATIBLE, Dialect::compatible().with_unsupported(&["service_tier"]));
    let llm = builder_for::<Chat>(profile).base_url("http://127.0.0.1:9/v1").model("m").build().unwrap();
    let e =
        llm.request_body(&request(OpenAiOptions::default().with_service_tier("flex")), false).unwrap_err();
    assert_eq!(e.kind, LlmErrorKind::InvalidRequest);
    assert!(e.message.contains("service_tier"), "{e}");
}

#[derive(Debug, Clone, PartialEq)]
struct AcmeOptions;

impl ProviderOption for AcmeOptions {
    const PROVIDER: &'static str = "acme";
    const NAME: &'static str = "AcmeOptions";
}

#[test]
fn another_providers_option_is_refused() {
    let llm = compatible::<Chat>("http://127.0.0.1:9/v1").model("m").build().unwrap();
    let request = ModelRequest::new(vec![Message::user("hi")]).with_option(AcmeOptions);
    let e = llm.request_body(&request, false).unwrap_err();
    assert_eq!(e.kind, LlmErrorKind::InvalidRequest);
    assert!(e.message.contains("AcmeOptions") && e.message.contains("openai-compatible"), "{e}");
}
