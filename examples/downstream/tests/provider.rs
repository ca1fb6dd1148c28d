//! `LineModel` against a real local HTTP server: what it sends (the provider contract on the
//! wire) and what it makes of each answer, including the bad ones.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{
    Content, Llm, LlmErrorKind, Message, ModelRequest, Reminder, ResponseAccumulator, Role, Secret, StopKind,
    ToolDefinition,
    serde_json::{self, Value, json},
};
use downstream_example::LineModel;
use futures::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A server answering one request with `response` (raw bytes: status line, headers, body),
/// and handing back the request it received (head and body).
async fn serve_once(response: String) -> (String, oneshot::Receiver<(String, Value)>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = oneshot::channel();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut bytes = Vec::new();
        let mut buf = [0u8; 4096];
        let (head, body) = loop {
            let n = socket.read(&mut buf).await.unwrap();
            bytes.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("Content-Length: "))
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                if body.len() >= length {
                    break (head.to_owned(), body.to_owned());
                }
            }
            assert!(n > 0, "the client closed before sending its whole request");
        };
        socket.write_all(response.as_bytes()).await.unwrap();
        socket.shutdown().await.ok();
        let _ = tx.send((head, serde_json::from_str(&body).unwrap_or(Value::Null)));
    });
    (url, rx)
}

fn ok(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn ndjson(lines: &[Value]) -> String {
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    format!("HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\n\r\n{body}")
}

fn request(messages: Vec<Message>) -> ModelRequest {
    ModelRequest::new(messages)
}

#[tokio::test]
async fn a_response_decodes_to_text_calls_stop_and_usage() {
    let body = json!({"id": "r1", "text": "Counting.", "calls": [{"id": "c1", "name": "word_count", "arguments": {"text": "a b"}}],
        "stop": "tool_calls", "usage": {"input": 12, "output": 5}});
    let (url, _) = serve_once(ok(&body.to_string())).await;
    let model = LineModel::new(&url, "line-1").unwrap();
    let response = model.generate(request(vec![Message::user("count")])).await.unwrap();
    assert_eq!(response.id, "r1");
    assert_eq!(response.text_content(), "Counting.");
    assert_eq!(response.stop_kind(), StopKind::ToolUse);
    let call = response.tool_uses().next().unwrap();
    assert_eq!(
        (call.id.as_str(), call.name.as_str(), &*call.input),
        ("c1", "word_count", &json!({"text": "a b"}))
    );
    assert_eq!((response.usage.input_tokens, response.usage.output_tokens), (12, 5));
}

#[tokio::test]
async fn the_request_answers_unanswered_calls_and_renders_reminders_without_changing_history() {
    let (url, received) = serve_once(ok(r#"{"text": "ok", "stop": "stop"}"#)).await;
    let model = LineModel::new(&url, "line-1").unwrap().with_api_key(Secret::new("sk-line-123"));
    let mut req = request(vec![
        Message::user("go"),
        Message::new(Role::Assistant, vec![Content::tool_use("c1", "word_count", json!({"text": "x"}))]),
        Message::new(
            Role::User,
            vec![
                Content::text("and now?"),
                Content::Reminder(Reminder::new("clock", "It is noon.").unwrap()),
            ],
        ),
    ]);
    req.tools = vec![ToolDefinition::new("word_count", "Counts words.", json!({"type": "object"}))].into();
    let history = req.messages.clone();
    model.generate(req.clone()).await.unwrap();
    assert_eq!(req.messages, history, "the caller's history is never changed");
    let (head, body) = received.await.unwrap();
    assert!(head.starts_with("POST /v1/chat HTTP/1.1"), "{head}");
    assert!(head.contains("Authorization: Bearer sk-line-123"), "{head}");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[1]["calls"][0]["id"], "c1");
    assert_eq!(messages[2]["role"], "tool", "the unanswered call got an answer: {body}");
    assert_eq!(messages[2]["call_id"], "c1");
    let last = messages.last().unwrap()["text"].as_str().unwrap();
    assert!(
        last.contains("It is noon.") && last.contains("<system-reminder"),
        "reminder rendered as user text: {last}"
    );
    assert_eq!(body["tools"][0]["name"], "word_count");
    assert_eq!(body["stream"], false);
}

#[tokio::test]
async fn a_block_the_server_cannot_take_is_refused_not_dropped() {
    let model = LineModel::new("http://127.0.0.1:9", "line-1").unwrap();
    let image = Content::Image(dive_core::ImageContent::new(dive_core::MediaSource::url(
        "https://example.com/a.png",
    )));
    let err = model.generate(request(vec![Message::new(Role::User, vec![image])])).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Unsupported);
    assert!(err.to_string().contains("image"), "{err}");
}

#[tokio::test]
async fn a_stream_arrives_in_deltas_and_accumulates_to_the_response() {
    let (url, received) = serve_once(ndjson(&[
        json!({"type": "start", "id": "r2"}),
        json!({"type": "text", "delta": "Two "}),
        json!({"type": "text", "delta": "words."}),
        json!({"type": "call", "id": "c9", "name": "word_count", "arguments": {"text": "two words"}}),
        json!({"type": "end", "stop": "tool_calls", "usage": {"input": 3, "output": 4}}),
    ]))
    .await;
    let model = LineModel::new(&url, "line-1").unwrap();
    assert!(model.supports_streaming());
    let events: Vec<_> = model.stream(request(vec![Message::user("hi")])).await.unwrap().collect().await;
    let mut acc = ResponseAccumulator::new();
    let mut text_deltas = 0;
    for event in &events {
        let event = event.as_ref().unwrap();
        if matches!(
            event,
            dive_core::StreamEvent::ContentBlockDelta {
                delta: dive_core::ContentDelta::TextDelta { .. },
                ..
            }
        ) {
            text_deltas += 1;
        }
        acc.add(event).unwrap();
    }
    assert!(acc.is_complete());
    assert_eq!(text_deltas, 2);
    let response = acc.into_response();
    assert_eq!((response.id.as_str(), response.text_content().as_str()), ("r2", "Two words."));
    assert_eq!(response.tool_uses().next().unwrap().input, json!({"text": "two words"}));
    assert_eq!(response.stop_kind(), StopKind::ToolUse);
    assert_eq!(response.usage.output_tokens, 4);
    assert_eq!(received.await.unwrap().1["stream"], true);
}

#[tokio::test]
async fn a_stream_cut_before_its_end_line_is_an_interrupted_stream_not_a_success() {
    let (url, _) =
        serve_once(ndjson(&[json!({"type": "start", "id": "r3"}), json!({"type": "text", "delta": "Half"})]))
            .await;
    let model = LineModel::new(&url, "line-1").unwrap();
    let events: Vec<_> = model.stream(request(vec![Message::user("hi")])).await.unwrap().collect().await;
    let last = events.last().unwrap().as_ref().unwrap_err();
    assert_eq!(last.kind, LlmErrorKind::StreamInterrupted);
    assert!(events[..events.len() - 1].iter().all(Result::is_ok), "the events before the cut are kept");
}

#[tokio::test]
async fn error_answers_are_typed_with_the_servers_message_and_retry_after() {
    let body = r#"{"error": "slow down"}"#;
    let (url, _) = serve_once(format!(
        "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ))
    .await;
    // No retry here: what one error answer maps to (the conformance suite checks the retries).
    let model = LineModel::new(&url, "line-1")
        .unwrap()
        .with_api_key(Secret::new("sk-line-123"))
        .with_retries(0, std::time::Duration::ZERO);
    let err = model.generate(request(vec![Message::user("hi")])).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::RateLimited);
    assert_eq!(err.retry_after, Some(std::time::Duration::from_secs(7)));
    assert!(err.to_string().contains("slow down"), "{err}");
    assert!(!format!("{err} {err:?}").contains("sk-line-123"));

    let (url, _) =
        serve_once("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into())
            .await;
    let err = LineModel::new(&url, "line-1")
        .unwrap()
        .generate(request(vec![Message::user("hi")]))
        .await
        .unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Authentication);
}

#[test]
fn the_key_never_shows_in_debug_and_a_bad_base_url_says_what_to_give() {
    let model =
        LineModel::new("http://127.0.0.1:8080/", "line-1").unwrap().with_api_key(Secret::new("sk-line-123"));
    assert!(!format!("{model:?}").contains("sk-line-123"), "{model:?}");
    let err = LineModel::new("https://models.example.com", "line-1").unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::InvalidRequest);
    assert!(err.to_string().contains("http://127.0.0.1:8080"), "{err}");
}
