//! The converted, encoded tool list is cached per provider: a call whose tools changed sends
//! the new declarations, and a call with the earlier list again sends that one (read from
//! the bodies the server received); a schema Gemini cannot take stays an error on every call.
#![allow(clippy::unwrap_used)]

#[path = "../../../dive-openai/tests/support/tool_lists.rs"]
mod tool_lists;

use dive_core::{Llm, LlmErrorKind, Message, ModelRequest, ToolDefinition};
use serde_json::{Value, json};
use tool_lists::{CALLS, ask, expected, sent_tools};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn each_call_sends_its_own_tools() {
    let server = MockServer::start().await;
    let reply = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]},
        "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1}});
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(reply))
        .mount(&server)
        .await;
    let llm = dive_google::Gemini::builder().api_key("k").base_url(server.uri()).build().unwrap();
    for tools in CALLS {
        assert_eq!(llm.generate(ask(tools)).await.unwrap().text_content(), "ok");
    }
    let bad = ToolDefinition::new("bad", "Bad.", json!({"type": "object", "patternProperties": {"^a": {}}}));
    let refused = ModelRequest::new(vec![Message::user("hi")]).with_tools(vec![bad]);
    for _ in 0..2 {
        let err = llm.generate(refused.clone()).await.unwrap_err();
        assert_eq!(err.kind, LlmErrorKind::InvalidRequest, "{err}");
    }
    let sent: Vec<Vec<u8>> = server.received_requests().await.unwrap().into_iter().map(|r| r.body).collect();
    let tools = |b: &Value| b["tools"][0]["functionDeclarations"].as_array().cloned().unwrap_or_default();
    assert_eq!(sent_tools(sent.iter().map(Vec::as_slice), tools, |t| &t["name"]), expected());
}
