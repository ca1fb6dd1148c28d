//! A PDF for an OpenAI-compatible endpoint that takes no file parts is refused by name before
//! any request (an `UnsupportedContent` error saying what to do), while a text document goes as
//! text; a dialect that says the server takes file parts sends the PDF as one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{
    Content, DocumentContent, Llm, LlmErrorKind, MediaSource, Message, ModelRequest, Role,
    UnsupportedContentError,
};
use dive_openai_wire::{Chat, compatible};
use serde_json::json;
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn server() -> MockServer {
    let server = MockServer::start().await;
    let reply = json!({"id": "c1", "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "Read it."}}]});
    Mock::given(wiremock::matchers::any())
        .respond_with(ResponseTemplate::new(200).set_body_json(reply))
        .mount(&server)
        .await;
    server
}

fn asking_about(document: MediaSource) -> ModelRequest {
    let doc = Content::Document(DocumentContent::new(document));
    ModelRequest::new(vec![Message::new(Role::User, vec![Content::text("summarise this"), doc])])
}

#[tokio::test]
async fn a_pdf_is_refused_by_an_endpoint_without_file_parts_and_sent_where_it_has_them() {
    let server = server().await;
    let llm = compatible::<Chat>(server.uri()).model("m").build().unwrap();
    let pdf = MediaSource::base64("application/pdf", "JVBERi0xLjQK");
    let error = llm.generate(asking_about(pdf.clone())).await.unwrap_err();
    assert_eq!(error.kind, LlmErrorKind::UnsupportedContent);
    let refused = UnsupportedContentError::of(&error).unwrap();
    assert_eq!((refused.content_type.as_str(), refused.provider.as_str()), ("document", "openai-compatible"));
    assert!(refused.reason.contains("with_file_parts"), "{}", refused.reason);
    assert!(server.received_requests().await.unwrap().is_empty(), "nothing was sent");

    // A text document is sent as text.
    let text =
        MediaSource::Text { media_type: "text/plain".into(), data: "The meeting moved to Friday.".into() };
    assert_eq!(llm.generate(asking_about(text)).await.unwrap().text_content(), "Read it.");

    // A server said to take file parts gets the PDF as a `file` part.
    let takes = compatible::<Chat>(server.uri()).model("m").map_wire(|w| {
        w.dialect_mut().file_parts = true;
    });
    takes.build().unwrap().generate(asking_about(pdf)).await.unwrap();
    let sent = server.received_requests().await.unwrap();
    let body: serde_json::Value = serde_json::from_slice(&sent.last().unwrap().body).unwrap();
    assert_eq!(body["messages"][0]["content"][1]["type"], "file", "{body}");
}
