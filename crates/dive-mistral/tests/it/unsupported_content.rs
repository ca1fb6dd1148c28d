//! An image for a text-only Mistral model (by the catalog) is refused by name before any
//! request (the check every OpenAI-wire profile runs); a vision model gets it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{
    Content, Llm, LlmErrorKind, MediaSource, Message, ModelRequest, Role, UnsupportedContentError,
};
use serde_json::json;
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_json(json!({"message": "seen", "type": "invalid_request_error"})),
        )
        .mount(&server)
        .await;
    server
}

fn with_image(model: &str) -> ModelRequest {
    let image = Content::image(MediaSource::base64("image/png", "iVBORw0KGgo="));
    let mut request =
        ModelRequest::new(vec![Message::new(Role::User, vec![Content::text("what is this?"), image])]);
    request.model = Some(model.to_owned());
    request
}

#[tokio::test]
async fn an_image_for_a_text_only_model_is_refused_and_a_vision_model_gets_it() {
    let server = server().await;
    let llm = dive_mistral::builder()
        .api_key("mistral-test")
        .base_url(format!("{}/v1", server.uri()))
        .build()
        .unwrap();
    let error = llm.generate(with_image("codestral-latest")).await.unwrap_err();
    assert_eq!(error.kind, LlmErrorKind::UnsupportedContent);
    let refused = UnsupportedContentError::of(&error).unwrap();
    assert_eq!((refused.content_type.as_str(), refused.provider.as_str()), ("image", "mistral"));
    assert_eq!(refused.reason, "model codestral-latest takes text only, no images");
    assert!(server.received_requests().await.unwrap().is_empty(), "nothing was sent");

    let error = llm.generate(with_image("pixtral-large-latest")).await.unwrap_err();
    assert_ne!(error.kind, LlmErrorKind::UnsupportedContent, "{error}");
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}
