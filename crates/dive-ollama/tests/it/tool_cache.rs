//! The encoded tool list is cached per provider: a call whose tools changed sends the new
//! list, a call with the earlier list again sends that one, and `ToolChoice::None` still
//! hides them (read from the bodies the server received).
#![allow(clippy::unwrap_used)]

#[path = "../../../dive-openai/tests/support/tool_lists.rs"]
mod tool_lists;

use dive_core::{Llm, ToolChoice};
use serde_json::{Value, json};
use tool_lists::{CALLS, ask, expected, sent_tools};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[tokio::test]
async fn each_call_sends_its_own_tools() {
    let server = MockServer::start().await;
    let reply = json!({"model": "m", "message": {"role": "assistant", "content": "ok"}, "done": true,
        "done_reason": "stop", "prompt_eval_count": 1, "eval_count": 1});
    Mock::given(method("POST"))
        .and(path("/api/chat"))
        .respond_with(ResponseTemplate::new(200).set_body_json(reply))
        .mount(&server)
        .await;
    let llm = dive_ollama::Ollama::builder().base_url(server.uri()).build().unwrap();
    for tools in CALLS {
        assert_eq!(llm.generate(ask(tools)).await.unwrap().text_content(), "ok");
    }
    let hidden = ask(CALLS[0]).with_tool_choice(ToolChoice::None);
    assert_eq!(llm.generate(hidden).await.unwrap().text_content(), "ok");
    let sent: Vec<Vec<u8>> = server.received_requests().await.unwrap().into_iter().map(|r| r.body).collect();
    let tools = |b: &Value| b["tools"].as_array().cloned().unwrap_or_default();
    let mut want = expected();
    want.push(Vec::new());
    assert_eq!(sent_tools(sent.iter().map(Vec::as_slice), tools, |t| &t["function"]["name"]), want);
}
