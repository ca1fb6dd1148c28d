//! Anthropic-only settings as typed options, and where configuration comes from: `build()`
//! reads no environment, `from_env()` reads the vendor's variables.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_anthropic::{Anthropic, AnthropicOptions, COMPACTION_BETA};
use dive_core::{ContextEdit, LlmErrorKind, Message, ModelRequest, ProviderOption};
use serde_json::json;

fn client() -> Anthropic {
    Anthropic::builder().api_key("sk-ant-opt").base_url("http://127.0.0.1:9").build().unwrap()
}

fn edit(kind: &str) -> ContextEdit {
    serde_json::from_value(json!({"type": kind})).unwrap()
}

#[test]
fn anthropic_options_reach_the_body_and_the_beta_header() {
    let request = ModelRequest::new(vec![Message::user("hi")]).with_option(
        AnthropicOptions::default()
            .with_beta("interleaved-thinking-2025-05-14")
            .with_context_edit(edit("compact_20260112")),
    );
    let body = client().request_body(&request, false).unwrap();
    assert_eq!(body["context_management"], json!({"edits": [{"type": "compact_20260112"}]}));
}

#[tokio::test]
async fn typed_betas_are_sent_in_anthropic_beta() {
    use wiremock::matchers::{method, path, query_param};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let server = MockServer::start().await;
    let reply = json!({"id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1}});
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(query_param("beta", "true"))
        .respond_with(ResponseTemplate::new(200).set_body_json(reply))
        .mount(&server)
        .await;
    let llm = Anthropic::builder().api_key("sk-ant-opt").base_url(server.uri()).build().unwrap();
    let request = ModelRequest::new(vec![Message::user("hi")]).with_option(
        AnthropicOptions::default().with_beta("b-1").with_context_edit(edit("compact_20260112")),
    );
    dive_core::Llm::generate(&llm, request).await.unwrap();
    let received = &server.received_requests().await.unwrap()[0];
    let beta = received.headers.get("anthropic-beta").unwrap().to_str().unwrap();
    assert_eq!(beta, format!("b-1,{COMPACTION_BETA},context-management-2025-06-27"));
}

#[test]
fn speed_tier_and_prefill_are_anthropic_options() {
    let prefill: dive_core::Prefill =
        serde_json::from_value(json!({"text": "{", "closing_tag": "</j>"})).unwrap();
    let request = ModelRequest::new(vec![Message::user("hi")]).with_option(
        AnthropicOptions::default()
            .with_speed(dive_core::Speed::Fast)
            .with_service_tier("standard_only")
            .with_prefill(prefill),
    );
    let body = client().request_body(&request, false).unwrap();
    assert_eq!((&body["speed"], &body["service_tier"]), (&json!("fast"), &json!("standard_only")));
    assert_eq!(body["messages"].as_array().unwrap().last().unwrap()["role"], "assistant");
    assert_eq!(body["stop_sequences"], json!(["</j>"]));
}

#[test]
fn a_service_tier_the_messages_api_lacks_is_refused_not_dropped() {
    let request = ModelRequest::new(vec![Message::user("hi")])
        .with_option(AnthropicOptions::default().with_service_tier("flex"));
    let err = client().request_body(&request, false).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::InvalidRequest);
    assert!(err.message.contains("flex") && err.message.contains("standard_only"), "{}", err.message);
}

#[derive(Debug, Clone, PartialEq)]
struct OtherVendorOption;
impl ProviderOption for OtherVendorOption {
    const PROVIDER: &'static str = "openai";
    const NAME: &'static str = "OtherVendorOption";
}

#[test]
fn an_option_of_another_provider_is_refused_by_name() {
    let request = ModelRequest::new(vec![Message::user("hi")]).with_option(OtherVendorOption);
    let err = client().request_body(&request, false).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::InvalidRequest);
    assert!(
        err.message.contains("OtherVendorOption") && err.message.contains("anthropic"),
        "{}",
        err.message
    );
}

#[test]
fn a_provider_option_naming_a_typed_field_is_refused() {
    let mut request = ModelRequest::new(vec![Message::user("hi")]);
    request.provider_options.insert("max_tokens".into(), json!(5));
    let err = client().request_body(&request, false).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::InvalidRequest);
    assert!(err.message.contains("provider_options.max_tokens"), "{}", err.message);
    let mut request = ModelRequest::new(vec![Message::user("hi")]);
    request.provider_options.insert("temperature".into(), json!(0.2));
    assert_eq!(client().request_body(&request, false).unwrap()["temperature"], 0.2);
}

#[test]
fn build_reads_no_environment() {
    const NAME: &str = "build_reads_no_environment";
    if !dive_test::child::is_child(NAME) {
        return dive_test::child::rerun_with_env(
            NAME,
            &[],
            &[("ANTHROPIC_API_KEY", "sk-ant-from-env"), ("ANTHROPIC_BASE_URL", "http://env.invalid")],
        );
    }
    let err = Anthropic::builder().build().unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Authentication);
    assert!(err.message.contains("from_env") && err.message.contains("ANTHROPIC_API_KEY"), "{}", err.message);
    let built = Anthropic::builder().api_key("k").build().unwrap();
    assert_eq!(built.base_url(), dive_anthropic::DEFAULT_BASE_URL);
    let from_env = Anthropic::from_env().unwrap();
    assert_eq!(from_env.base_url(), "http://env.invalid");
    // An explicit setter wins over the environment.
    let mixed = Anthropic::builder_from_env().base_url("http://explicit.invalid").build().unwrap();
    assert_eq!(mixed.base_url(), "http://explicit.invalid");
}

#[test]
fn from_env_without_a_key_says_which_variable() {
    const NAME: &str = "from_env_without_a_key_says_which_variable";
    if !dive_test::child::is_child(NAME) {
        return dive_test::child::rerun_with_env(NAME, &["ANTHROPIC_API_KEY"], &[]);
    }
    let err = Anthropic::from_env().unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Authentication);
    assert!(err.message.contains("set ANTHROPIC_API_KEY"), "{}", err.message);
}
