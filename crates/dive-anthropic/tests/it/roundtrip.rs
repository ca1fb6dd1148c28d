//! Full calls against a local server: what is sent (body, headers, URL) and what comes back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_anthropic::{API_VERSION, Anthropic, AnthropicOptions};
use dive_core::{Llm, Message, ModelRequest, ResponseAccumulator, StopKind, StreamEvent};
use futures::StreamExt;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn llm(base: &str) -> Anthropic {
    Anthropic::builder().api_key("sk-ant-rt").base_url(base).model("claude-opus-5").build().unwrap()
}

#[tokio::test]
async fn generate_sends_the_encoded_body_and_decodes_the_message() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(header("anthropic-version", API_VERSION))
        .and(header("content-type", "application/json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-5",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "sig=="},
                {"type": "text", "text": "Hi", "citations": null},
                {"type": "tool_use", "id": "toolu_1", "name": "calc", "input": {"x": 1}, "caller": {"type": "direct"}}
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "stop_details": null,
            "usage": {"input_tokens": 10, "output_tokens": 20, "cache_read_input_tokens": 1000,
                      "cache_creation_input_tokens": 100, "output_tokens_details": {"thinking_tokens": 5}}
        })))
        .mount(&server)
        .await;
    let client = llm(&server.uri());
    let request = ModelRequest::new(vec![Message::user("Hello")]).with_system("sys");
    let response = client.generate(request.clone()).await.unwrap();
    assert_eq!(response.stop_kind(), StopKind::ToolUse);
    assert_eq!(response.content.len(), 3);
    assert_eq!(response.usage.reasoning_tokens, 5);
    let cost = response.usage.cost.clone().unwrap();
    let expected = (10.0 * 5.0 + 20.0 * 25.0 + 1000.0 * 0.5 + 100.0 * 6.25) / 1e6;
    assert!((cost.total - expected).abs() < 1e-12, "{cost:?}");
    // Replaying the response sends the blocks back exactly (caller included).
    let replay = client
        .request_body(&ModelRequest::new(vec![Message::user("Hello"), response.to_message()]), false)
        .unwrap();
    assert_eq!(
        replay["messages"][1]["content"][0],
        json!({"type": "thinking", "thinking": "hmm", "signature": "sig=="})
    );
    assert_eq!(replay["messages"][1]["content"][2]["caller"], json!({"type": "direct"}));

    let sent: Value = server.received_requests().await.unwrap()[0].body_json().unwrap();
    assert_eq!(sent, client.request_body(&request, false).unwrap());
}

#[tokio::test]
async fn stream_decodes_prices_and_sends_beta_headers() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .and(query_param("beta", "true"))
        .and(header("x-custom", "1"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(
            include_bytes!("../fixtures/web_search_citations.sse").to_vec(),
            "text/event-stream",
        ))
        .mount(&server)
        .await;
    let mut request = ModelRequest::new(vec![Message::user("news?")]);
    request.headers.insert("x-custom".into(), "1".into());
    request.options.insert(
        AnthropicOptions::default().with_beta("interleaved-thinking-2025-05-14").with_context_edits(vec![
            serde_json::from_value(json!({"type": "clear_thinking_20251015", "keep": "all"})).unwrap(),
        ]),
    );
    let client = llm(&server.uri());
    assert!(client.supports_streaming());
    let mut stream = client.stream(request.clone()).await.unwrap();
    let mut acc = ResponseAccumulator::new();
    let mut pings = 0;
    while let Some(event) = stream.next().await {
        let event = event.unwrap();
        pings += usize::from(matches!(event, StreamEvent::Ping));
        acc.add(&event).unwrap();
    }
    assert_eq!(pings, 1);
    let r = acc.into_response();
    assert_eq!(r.text_content(), "Rust 1.95 was released this week — ünïcode ✓.");
    assert_eq!(r.content[3].as_text().map(|t| t.chars().count()), Some(45));
    assert!(r.content[2].is_server_tool_content());
    assert!(r.usage.cost.is_some_and(|c| c.total > 0.0));
    let received = &server.received_requests().await.unwrap()[0];
    assert_eq!(
        received.headers.get("anthropic-beta").unwrap().to_str().unwrap(),
        "context-management-2025-06-27,interleaved-thinking-2025-05-14"
    );
    let sent: Value = received.body_json().unwrap();
    assert_eq!(sent["stream"], true);
    assert_eq!(sent, client.request_body(&request, true).unwrap());
}

#[test]
fn catalog_and_env_configuration() {
    let info = dive_anthropic::model_info("claude-haiku-4-5-20251001").unwrap();
    assert_eq!((info.context_window, info.max_output_tokens), (200_000, 64_000));
    assert!(dive_anthropic::MODELS.iter().all(|m| m.pricing.is_some() && m.vendor == "anthropic"));
    let client = Anthropic::builder().api_key("k-test").base_url("http://localhost:1/").build().unwrap();
    assert_eq!(client.base_url(), "http://localhost:1");
    assert_eq!(client.model(), dive_anthropic::DEFAULT_MODEL);
    assert!(client.model_info().is_some());
}
