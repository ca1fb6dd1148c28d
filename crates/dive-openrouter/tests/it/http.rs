//! OpenRouter against a local server: the provider-reported cost wins over catalog prices,
//! keep-alive comments in streams are skipped, and a multi-turn tool conversation is sent
//! back with its tool-call ids and arguments exactly as Chat Completions requires.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dive_core::{
    Content, Llm, Message, ModelRequest, ResponseAccumulator, Role, ToolDefinition, ToolResultContent,
};
use dive_provider::RetryPolicy;
use futures::StreamExt;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn client(server: &MockServer) -> dive_openrouter::OpenRouter {
    dive_openrouter::builder()
        .api_key("sk-or-test")
        .base_url(format!("{}/api/v1", server.uri()))
        .model("openai/gpt-5")
        .header("X-Title", "dive tests")
        .retry_policy(RetryPolicy::default().with_base_delay(Duration::from_millis(5)).with_jitter(0.0))
        .build()
        .unwrap()
}

#[tokio::test]
async fn provider_reported_cost_wins_and_attribution_headers_are_sent() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v1/chat/completions"))
        .and(header("authorization", "Bearer sk-or-test"))
        .and(header("x-title", "dive tests"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "gen-1", "object": "chat.completion", "model": "openai/gpt-5", "provider": "OpenAI",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi", "reasoning": "Greet back."},
                "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12, "cost": 0.000123}
        })))
        .mount(&server)
        .await;
    let r = client(&server).generate(ModelRequest::new(vec![Message::user("hi")])).await.unwrap();
    assert_eq!(r.text_content(), "Hi");
    assert_eq!(r.content[0].kind(), "thinking");
    let cost = r.usage.cost.unwrap();
    assert_eq!((cost.total, cost.source.as_deref()), (0.000123, Some("provider")));
    let sent: Value = serde_json::from_slice(&server.received_requests().await.unwrap()[0].body).unwrap();
    assert_eq!(sent["usage"], json!({"include": true}));
}

#[tokio::test]
async fn keep_alive_comments_are_skipped_in_streams() {
    let server = MockServer::start().await;
    let body = concat!(
        ": OPENROUTER PROCESSING\n\n",
        "data: {\"id\":\"gen-2\",\"object\":\"chat.completion.chunk\",\"model\":\"openai/gpt-5\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n",
        ": OPENROUTER PROCESSING\n\n",
        "data: {\"id\":\"gen-2\",\"object\":\"chat.completion.chunk\",\"model\":\"openai/gpt-5\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: {\"id\":\"gen-2\",\"object\":\"chat.completion.chunk\",\"model\":\"openai/gpt-5\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7,\"cost\":0.00002}}\n\n",
        "data: [DONE]\n\n",
    );
    Mock::given(method("POST"))
        .and(path("/api/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), "text/event-stream"))
        .mount(&server)
        .await;
    let mut events = client(&server).stream(ModelRequest::new(vec![Message::user("hi")])).await.unwrap();
    let mut acc = ResponseAccumulator::new();
    while let Some(e) = events.next().await {
        acc.add(&e.unwrap()).unwrap();
    }
    assert!(acc.is_complete());
    let r = acc.into_response();
    assert_eq!(r.text_content(), "Hello");
    assert_eq!(r.usage.cost.unwrap().source.as_deref(), Some("provider"));
}

#[tokio::test]
async fn a_tool_conversation_is_replayed_with_its_ids_and_arguments() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "gen-3", "object": "chat.completion", "model": "openai/gpt-5",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Done."}, "finish_reason": "stop"}]
        })))
        .mount(&server)
        .await;
    let tool = ToolDefinition::new(
        "calc",
        "Arithmetic.",
        json!({"type": "object", "properties": {"expr": {"type": "string"}}}),
    );
    let history = vec![
        Message::user("2+2 and 3*3?"),
        Message::new(
            Role::Assistant,
            vec![
                Content::tool_use("call_a1", "calc", json!({"expr": "2+2"})),
                Content::tool_use("call_b2", "calc", json!({"expr": "3*3"})),
            ],
        ),
        Message::tool_results(vec![
            ToolResultContent::text("call_a1", "4"),
            ToolResultContent::text("call_b2", "9"),
        ]),
    ];
    client(&server).generate(ModelRequest::new(history).with_tools(vec![tool])).await.unwrap();
    let sent: Value = serde_json::from_slice(&server.received_requests().await.unwrap()[0].body).unwrap();
    assert_eq!(
        sent["messages"],
        json!([
            {"role": "user", "content": "2+2 and 3*3?"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_a1", "type": "function", "function": {"name": "calc", "arguments": "{\"expr\":\"2+2\"}"}},
                {"id": "call_b2", "type": "function", "function": {"name": "calc", "arguments": "{\"expr\":\"3*3\"}"}}]},
            {"role": "tool", "tool_call_id": "call_a1", "content": "4"},
            {"role": "tool", "tool_call_id": "call_b2", "content": "9"}
        ])
    );
}
