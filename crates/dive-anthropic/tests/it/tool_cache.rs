//! The encoded tool list is cached per provider: a call whose tools changed sends the new
//! list, and a call with the earlier list again sends that one (read from the bodies the
//! server received).
#![allow(clippy::unwrap_used)]

#[path = "../../../dive-openai/tests/support/tool_lists.rs"]
mod tool_lists;

use dive_core::Llm;
use serde_json::{Value, json};
use tool_lists::{CALLS, ask, expected, sent_tools};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn each_call_sends_its_own_tools() {
    let server = MockServer::start().await;
    let reply = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1}});
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(ResponseTemplate::new(200).set_body_json(reply))
        .mount(&server)
        .await;
    let llm = dive_anthropic::Anthropic::builder().api_key("k").base_url(server.uri()).build().unwrap();
    for tools in CALLS {
        assert_eq!(llm.generate(ask(tools)).await.unwrap().text_content(), "ok");
    }
    let sent: Vec<Vec<u8>> = server.received_requests().await.unwrap().into_iter().map(|r| r.body).collect();
    let tools = |b: &Value| b["tools"].as_array().cloned().unwrap_or_default();
    assert_eq!(sent_tools(sent.iter().map(Vec::as_slice), tools, |t| &t["name"]), expected());
}
