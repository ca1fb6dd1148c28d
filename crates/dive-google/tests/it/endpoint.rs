//! Where a call goes and what it may carry: the API version segment of the path, and a
//! typed option of another provider, which is refused before anything is sent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{Llm, LlmErrorKind, Message, ModelRequest, ProviderOption};
use dive_google::{Gemini, GeminiBuilderExt, GeminiOptions};
use serde_json::json;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn ok() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "v1 ok"}]}, "finishReason": "STOP"}],
        "modelVersion": "gemini-2.5-flash"
    }))
}

#[tokio::test]
async fn the_api_version_and_a_models_prefix_shape_the_path() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/models/gemini-2.5-flash:generateContent"))
        .and(header("x-goog-api-key", "AIza-endpoint"))
        .respond_with(ok())
        .expect(1)
        .mount(&server)
        .await;
    let llm = Gemini::builder()
        .api_key("AIza-endpoint")
        .base_url(server.uri())
        .api_version("v1")
        .model("models/gemini-2.5-flash")
        .build()
        .unwrap();
    let reply = llm.generate(ModelRequest::new(vec![Message::user("hi")])).await.unwrap();
    assert_eq!(reply.text_content(), "v1 ok");
}

#[derive(Debug, Clone, PartialEq)]
struct OtherVendorOption;

impl ProviderOption for OtherVendorOption {
    const PROVIDER: &'static str = "acme";
    const NAME: &'static str = "OtherVendorOption";
}

#[tokio::test]
async fn an_option_gemini_cannot_honour_is_refused_before_sending() {
    let server = MockServer::start().await;
    let llm = Gemini::builder().api_key("AIza-endpoint").base_url(server.uri()).build().unwrap();
    let request = ModelRequest::new(vec![Message::user("hi")])
        .with_option(GeminiOptions::default().with_seed(1))
        .with_option(OtherVendorOption);
    let err = llm.generate(request).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::InvalidRequest);
    assert!(err.message.contains("OtherVendorOption (an option of the acme provider)"), "{}", err.message);
    assert!(server.received_requests().await.unwrap().is_empty(), "nothing was sent");
}
