//! Content Ollama cannot send is refused by name before any request (an `UnsupportedContent`
//! error naming the block type, the provider and why), never dropped or replaced by a note;
//! what it can send (inline images, text documents) still goes out.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{
    Content, Llm, LlmError, LlmErrorKind, MediaSource, Message, ModelRequest, Role, ToolResultContent,
    UnsupportedContentError,
};
use dive_ollama::{Ollama, OllamaBuilderExt};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/chat"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "model": "llava", "created_at": "2026-12-01T04:00:00Z",
            "message": {"role": "assistant", "content": "seen"},
            "done": true, "done_reason": "stop", "prompt_eval_count": 1, "eval_count": 1
        })))
        .mount(&server)
        .await;
    server
}

fn request(block: Content) -> ModelRequest {
    ModelRequest::new(vec![Message::new(Role::User, vec![Content::text("what is this?"), block])])
}

fn refused(error: &LlmError) -> &UnsupportedContentError {
    UnsupportedContentError::of(error).expect("an UnsupportedContentError in the source chain")
}

#[tokio::test]
async fn a_pdf_an_image_url_and_a_file_reference_are_refused_before_any_request() {
    let server = server().await;
    let llm = Ollama::builder().host(server.uri()).model("llava").build().unwrap();
    let cases = [
        (Content::document(MediaSource::base64("application/pdf", "JVBERi0=")), "document", "text documents"),
        (Content::image(MediaSource::url("https://example.com/cat.png")), "image", "inline (base64) images"),
        (
            serde_json::from_value(json!({"type": "file", "file_id": "file-123"})).unwrap(),
            "file",
            "file reference",
        ),
    ];
    for (block, kind, why) in cases {
        let error = llm.generate(request(block.clone())).await.unwrap_err();
        assert_eq!(error.kind, LlmErrorKind::UnsupportedContent);
        assert_eq!(error.provider.as_deref(), Some("ollama"));
        assert_eq!(error.error_type.as_deref(), Some(kind));
        let typed = refused(&error);
        assert_eq!((typed.content_type.as_str(), typed.provider.as_str()), (kind, "ollama"));
        assert!(typed.reason.contains(why), "{}", typed.reason);
        assert!(error.to_string().contains(&format!("ollama cannot send {kind} content")), "{error}");
        assert!(!error.is_retryable());
        let streamed = llm.stream(request(block)).await.expect_err("the stream is refused too");
        assert_eq!(streamed.kind, LlmErrorKind::UnsupportedContent);
    }
    assert!(server.received_requests().await.unwrap().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn an_unsupported_block_inside_a_tool_result_is_refused_too() {
    let server = server().await;
    let llm = Ollama::builder().host(server.uri()).model("llava").build().unwrap();
    let result = ToolResultContent::new("c1", vec![Content::image(MediaSource::file("file-9"))]);
    let messages = vec![
        Message::user("take a screenshot"),
        Message::new(Role::Assistant, vec![Content::tool_use("c1", "shot", json!({}))]),
        Message::new(Role::User, vec![Content::ToolResult(result)]),
    ];
    let error = llm.generate(ModelRequest::new(messages)).await.unwrap_err();
    assert_eq!(refused(&error).content_type, "image");
    assert!(server.received_requests().await.unwrap().is_empty());
}

#[tokio::test]
async fn inline_images_and_text_documents_are_still_sent() {
    let server = server().await;
    let llm = Ollama::builder().host(server.uri()).model("llava").build().unwrap();
    let messages = vec![Message::new(
        Role::User,
        vec![
            Content::image(MediaSource::base64("image/png", "iVBORw0KGgo=")),
            Content::document(MediaSource::Text {
                media_type: "text/plain".into(),
                data: "plain notes".into(),
            }),
        ],
    )];
    llm.generate(ModelRequest::new(messages)).await.unwrap();
    let sent = server.received_requests().await.unwrap();
    let body: serde_json::Value = serde_json::from_slice(&sent[0].body).unwrap();
    assert_eq!(body["messages"][0]["images"], json!(["iVBORw0KGgo="]));
    assert_eq!(body["messages"][0]["content"], "plain notes");
}

#[tokio::test]
async fn an_image_for_a_text_only_model_is_refused_and_a_vision_model_gets_it() {
    let server = server().await;
    let image = || {
        ModelRequest::new(vec![Message::new(
            Role::User,
            vec![Content::image(MediaSource::base64("image/png", "iVBORw0KGgo="))],
        )])
    };
    let text_only = Ollama::builder().host(server.uri()).model("llama3.2").build().unwrap();
    let error = text_only.generate(image()).await.unwrap_err();
    assert_eq!(refused(&error).reason, "model llama3.2 takes text only, no images");
    assert!(server.received_requests().await.unwrap().is_empty());
    let vision = Ollama::builder().host(server.uri()).model("llama3.2-vision").build().unwrap();
    vision.generate(image()).await.unwrap();
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}
