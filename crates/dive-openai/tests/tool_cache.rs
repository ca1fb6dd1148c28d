//! The encoded tool list is cached per provider: a call whose tools changed sends the new
//! list, and a call with the earlier list again sends that one (read from the bodies the
//! server received, for both APIs).
#![allow(clippy::unwrap_used)]

use dive_core::{Llm, Message, ModelRequest, ToolDefinition};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn tool(name: &str) -> ToolDefinition {
    ToolDefinition::new(name, format!("The {name} tool."), json!({"type": "object", "properties": {}}))
}

fn ask(tools: &[&str]) -> ModelRequest {
    ModelRequest::new(vec![Message::user("hi")]).with_tools(tools.iter().map(|t| tool(t)).collect())
}

/// The tool names of each body the server received, read with `name` from each tool.
async fn sent_tools(server: &MockServer, name: impl Fn(&Value) -> &Value) -> Vec<Vec<String>> {
    let requests = server.received_requests().await.unwrap();
    requests
        .iter()
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap();
            let tools = body["tools"].as_array().cloned().unwrap_or_default();
            tools.iter().map(|t| name(t).as_str().unwrap().to_owned()).collect()
        })
        .collect()
}

async fn server(route: &str, reply: Value) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(route))
        .respond_with(ResponseTemplate::new(200).set_body_json(reply))
        .mount(&server)
        .await;
    server
}

const CALLS: [&[&str]; 4] = [&["read", "write"], &["read", "write"], &["search"], &["read", "write"]];

fn expected() -> Vec<Vec<String>> {
    CALLS.iter().map(|c| c.iter().map(|t| (*t).to_owned()).collect()).collect()
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
    assert_eq!(sent_tools(&server, |t| &t["function"]["name"]).await, want);
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
    assert_eq!(sent_tools(&server, |t| &t["name"]).await, expected());
}
