//! Calling Claude through `dive::anthropic`: streaming, a tool, adaptive thinking, the retry
//! hook and cost.
//!
//! ```text
//! cargo run -p dive-examples --example anthropic
//! ```
//!
//! With `ANTHROPIC_API_KEY` set this calls the real API (and `ANTHROPIC_BASE_URL`, if set).
//! Without it, the example starts a local server that answers with a canned stream, so it
//! runs offline (CI runs it that way).
#![allow(clippy::print_stdout)]

use std::time::Duration;

use dive::anthropic::Anthropic;
use dive::provider::RetryPolicy;
use dive::{ContentDelta, Llm, Message, ModelRequest, Reasoning, StreamEvent, ToolDefinition};
use futures::StreamExt;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CANNED: &str = concat!(
    "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_demo\",\"type\":\"message\",",
    "\"role\":\"assistant\",\"model\":\"claude-sonnet-5-5\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,",
    "\"usage\":{\"input_tokens\":420,\"output_tokens\":1}}}\n\n",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me check \"}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"the weather.\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_demo\",\"name\":\"weather\",\"input\":{}}}\n\n",
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"Paris\\\"}\"}}\n\n",
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
    "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":38}}\n\n",
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
);

/// A one-route local server answering every request with `CANNED`.
async fn offline_server() -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 8192];
                // Read the head and the declared body before answering.
                while let Ok(n) = socket.read(&mut buf).await {
                    request.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&request);
                    let Some(end) = text.find("\r\n\r\n") else { continue };
                    let length = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().to_owned())
                        })
                        .and_then(|v| v.parse::<usize>().ok())
                        .unwrap_or(0);
                    if n == 0 || request.len() >= end + 4 + length {
                        break;
                    }
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    CANNED.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(CANNED.as_bytes()).await;
            });
        }
    });
    Ok(format!("http://{addr}"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let retry = RetryPolicy::default()
        .with_max_retries(3)
        .with_base_delay(Duration::from_millis(500))
        .on_retry(|a| println!("[retry {} in {:?}: {}]", a.attempt, a.delay, a.error));
    let builder = Anthropic::builder_from_env().model("claude-sonnet-5-5").retry_policy(retry);
    let claude = if std::env::var("ANTHROPIC_API_KEY").is_ok_and(|k| !k.is_empty()) {
        println!("(calling the Anthropic API)");
        builder.build()?
    } else {
        let url = offline_server().await?;
        println!("(ANTHROPIC_API_KEY is not set: answering from a local canned stream at {url})");
        builder.api_key("offline-demo-key").base_url(url).build()?
    };

    let weather = ToolDefinition::new(
        "weather",
        "Current weather for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    );
    let request = ModelRequest::new(vec![Message::user("What's the weather in Paris?")])
        .with_system("You are a concise assistant.")
        .with_tools(vec![weather])
        .with_reasoning(Reasoning::adaptive())
        .with_max_tokens(1024);

    let mut stream = claude.stream(request).await?;
    while let Some(event) = stream.next().await {
        if let StreamEvent::ContentBlockDelta { delta: ContentDelta::TextDelta { text }, .. } = event? {
            print!("{text}");
        }
    }
    println!();
    // The stream accumulated the events as they passed.
    let response = stream.into_response();
    for call in response.tool_uses() {
        println!("tool call: {}({})", call.name, call.input);
    }
    let cost = response.usage.cost.as_ref().map_or(0.0, |c| c.total);
    println!(
        "stop: {} | tokens in/out: {}/{} | cost ${cost:.6}",
        response.stop_reason, response.usage.input_tokens, response.usage.output_tokens
    );
    Ok(())
}
