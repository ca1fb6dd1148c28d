//! The encoded tool list is cached per provider: a call whose tools changed sends the new
//! list, and a call with the earlier list again sends that one (read from the bodies the
//! server received, for both APIs).
#![allow(clippy::unwrap_used)]

#[path = "../support/tool_lists.rs"]
mod tool_lists;

use dive_core::{Llm, Message, ModelRequest};
use serde_json::{Value, json};
use tool_lists::{CALLS, ask, expected, sent_tools};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn server(route: &str, reply: Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(route))
        .respond_with(ResponseTemplate::new(200).set_body_json(reply))
        .mount(&server)
        .await;
    server
}

async fn bodies(server: &MockServer) -> Vec<Vec<u8>> {
    server.received_requests().await.unwrap().into_iter().map(|r| r.body).collect()
}

fn tools(body: &Value) -> Vec<Value> {
    body["tools"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn chat_completions_sends_each_calls_own_tools() {
    let reply = json!({"id": "c1", "model": "gpt-5.5", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]});
    let server = server("/chat/completions", reply).await;
    let llm = dive_openai::ChatCompletions::builder().api_key("k").base_url(server.uri()).build().unwrap();
    for tools in CALLS {
        assert_eq!(llm.generate(ask(tools)).await.unwrap().text_content(), "ok");
    }
    let no_tools = llm.generate(ModelRequest::new(vec![Message::user("hi")])).await.unwrap();
    assert_eq!(no_tools.text_content(), "ok");
    let mut want = expected();
    want.push(Vec::new());
    let sent = bodies(&server).await;
    assert_eq!(sent_tools(sent.iter().map(Vec::as_slice), tools, |t| &t["function"]["name"]), want);
}

#[tokio::test]
async fn responses_sends_each_calls_own_tools() {
    let reply = json!({"id": "resp_1", "model": "gpt-5.5", "status": "completed", "output": [{"type": "message",
        "id": "msg_1", "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": "ok", "annotations": []}]}]});
    let server = server("/responses", reply).await;
    let llm = dive_openai::OpenAi::builder().api_key("k").base_url(server.uri()).build().unwrap();
    for tools in CALLS {
        assert_eq!(llm.generate(ask(tools)).await.unwrap().text_content(), "ok");
    }
    let sent = bodies(&server).await;
    assert_eq!(sent_tools(sent.iter().map(Vec::as_slice), tools, |t| &t["name"]), expected());
}
