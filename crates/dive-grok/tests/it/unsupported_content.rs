//! An image for a text-only Grok model (by the catalog) is refused by name before any
//! request over the Responses wire, whole or streamed; a vision model gets it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{
    Content, Llm, LlmErrorKind, MediaSource, Message, ModelRequest, Role, UnsupportedContentError,
};
use serde_json::json;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn with_image(model: &str) -> ModelRequest {
    let image = Content::image(MediaSource::url("https://example.com/diagram.png"));
    let mut request =
        ModelRequest::new(vec![Message::new(Role::User, vec![Content::text("explain"), image])]);
    request.model = Some(model.to_owned());
    request
}

#[tokio::test]
async fn an_image_for_a_text_only_model_is_refused_and_a_vision_model_gets_it() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {"message": "seen"}})))
        .mount(&server)
        .await;
    let grok = dive_grok::builder()
        .api_key("xai-test-key")
        .base_url(format!("{}/v1", server.uri()))
        .build()
        .unwrap();

    let error = grok.generate(with_image("grok-code-fast-1")).await.unwrap_err();
    assert_eq!(error.kind, LlmErrorKind::UnsupportedContent);
    let refused = UnsupportedContentError::of(&error).unwrap();
    assert_eq!((refused.content_type.as_str(), refused.provider.as_str()), ("image", "grok"));
    assert_eq!(refused.reason, "model grok-code-fast-1 takes text only, no images");
    let streamed = grok.stream(with_image("grok-code-fast-1")).await.expect_err("refused before streaming");
    assert_eq!(streamed.kind, LlmErrorKind::UnsupportedContent);
    assert!(server.received_requests().await.unwrap().is_empty(), "nothing was sent");

    let error = grok.generate(with_image("grok-4")).await.unwrap_err();
    assert_ne!(error.kind, LlmErrorKind::UnsupportedContent, "{error}");
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}
