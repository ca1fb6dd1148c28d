//! Calling OpenAI through `dive::openai`: the Responses API streaming reasoning and two
//! parallel tool calls, the history sent back exactly (encrypted reasoning, call ids), strict
//! structured output, Chat Completions, and cost.
//!
//! ```text
//! cargo run -p dive-examples --example openai
//! ```
//!
//! With `OPENAI_API_KEY` set this calls the real API (and `OPENAI_BASE_URL`, if set). Without
//! it, the example starts a local server that answers with a canned stream, so it runs
//! offline (CI runs it that way).
#![allow(clippy::print_stdout)]

use dive::openai::{ChatCompletions, OpenAi};
use dive::{
    ContentDelta, Llm, Message, ModelRequest, Reasoning, ReasoningEffort, ResponseAccumulator,
    ResponseFormat, StreamEvent, ToolDefinition, ToolResultContent,
};
use futures::StreamExt;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A realistic Responses API stream: a reasoning item, a commentary message, two calls.
const CANNED: &str = include_str!("../crates/dive-openai/tests/fixtures/responses_reasoning_tools.sse");

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
    Ok(format!("http://{addr}/v1"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let builder = OpenAi::builder_from_env().model("gpt-5.5");
    let online = std::env::var("OPENAI_API_KEY").is_ok_and(|k| !k.is_empty());
    let gpt = if online {
        println!("(calling the OpenAI Responses API)");
        builder.build()?
    } else {
        let url = offline_server().await?;
        println!("(OPENAI_API_KEY is not set: answering from a local canned stream at {url})");
        builder.api_key("offline-demo-key").base_url(url).build()?
    };

    let weather = ToolDefinition::new(
        "get_weather",
        "Current weather for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"]}),
    );
    let mut reasoning = Reasoning::effort(ReasoningEffort::Medium);
    reasoning.summary = serde_json::from_value(json!("auto"))?;
    let mut history = vec![Message::user("Weather in Paris and Oslo?")];
    let request = ModelRequest::new(history.clone())
        .with_system("You are a concise assistant.")
        .with_tools(vec![weather.clone()])
        .with_reasoning(reasoning);

    let mut stream = gpt.stream(request.clone()).await?;
    let mut acc = ResponseAccumulator::new();
    while let Some(event) = stream.next().await {
        let event = event?;
        match &event {
            StreamEvent::ContentBlockDelta { delta: ContentDelta::ThinkingDelta { thinking }, .. } => {
                print!("\x1b[2m{thinking}\x1b[0m");
            }
            StreamEvent::ContentBlockDelta { delta: ContentDelta::TextDelta { text }, .. } => {
                print!("{text}")
            }
            _ => {}
        }
        acc.add(&event)?;
    }
    println!();
    let response = acc.into_response();
    let cost = response.usage.cost.as_ref().map_or(0.0, |c| c.total);
    println!(
        "stop: {} | input {} (+{} cached) | output {} ({} reasoning) | cost ${cost:.6}",
        response.stop_reason,
        response.usage.input_tokens,
        response.usage.cache_read_input_tokens,
        response.usage.output_tokens,
        response.usage.reasoning_tokens
    );

    // Run the tools and send everything back: reasoning (encrypted), the commentary message
    // with its phase, and each call id with its exact argument string.
    let results = response
        .tool_uses()
        .map(|call| {
            println!("tool call {}: {}({})", call.id, call.name, call.input);
            ToolResultContent::text(call.id.clone(), "14°C, cloudy")
        })
        .collect();
    history.push(response.into_message());
    history.push(Message::tool_results(results));
    let next = ModelRequest::new(history).with_tools(vec![weather]);
    let body = gpt.request_body(&next, true)?;
    let kinds: Vec<&str> =
        body["input"].as_array().into_iter().flatten().filter_map(|i| i["type"].as_str()).collect();
    println!("next request replays: {kinds:?}");

    // Strict structured output: optional properties become required-and-nullable.
    let format: ResponseFormat = serde_json::from_value(json!({"type": "json_schema", "name": "forecast",
        "schema": {"type": "object", "properties": {"city": {"type": "string"}, "high": {"type": "number"}},
        "required": ["city"]}}))?;
    let structured = gpt.request_body(
        &ModelRequest::new(vec![Message::user("Forecast?")]).with_response_format(format),
        false,
    )?;
    println!("strict schema sent: {}", structured["text"]["format"]["schema"]);

    // The same conversation through Chat Completions (also `dive::model("openai-completions/gpt-5.5")`).
    let chat = ChatCompletions::builder().api_key("offline-demo-key").model("gpt-5.5").build()?;
    println!(
        "chat completions body: {} messages",
        chat.request_body(&next, false)?["messages"].as_array().map_or(0, Vec::len)
    );
    Ok(())
}
