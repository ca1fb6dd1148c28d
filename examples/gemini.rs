//! Calling Gemini through `dive::google`: streaming with thinking, parallel function calls,
//! thought signatures kept for the next turn, the retry hook and cost.
//!
//! ```text
//! cargo run -p dive-examples --example gemini
//! ```
//!
//! With `GEMINI_API_KEY` (or `GOOGLE_API_KEY`) set this calls the real API (and
//! `GEMINI_BASE_URL`, if set). Without it, the example starts a local server that answers
//! with a canned stream, so it runs offline (CI runs it that way).
#![allow(clippy::print_stdout)]

use std::time::Duration;

use dive::google::Gemini;
use dive::provider::RetryPolicy;
use dive::{
    Content, ContentDelta, Llm, Message, ModelRequest, Reasoning, ReasoningEffort, ResponseAccumulator,
    StreamEvent, ToolDefinition, ToolResultContent,
};
use futures::StreamExt;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const CANNED: &str = concat!(
    "data: {\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": [{\"text\": \"The user wants two cities; ",
    "I can ask for both at once.\", \"thought\": true, \"thoughtSignature\": \"VGhvdWdodA==\"}]}}], ",
    "\"modelVersion\": \"gemini-3.5-flash\", \"responseId\": \"demo-1\"}\n\n",
    "data: {\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": [{\"text\": \"Checking both cities.\"}]}}], ",
    "\"modelVersion\": \"gemini-3.5-flash\", \"responseId\": \"demo-1\"}\n\n",
    "data: {\"candidates\": [{\"content\": {\"role\": \"model\", \"parts\": [",
    "{\"functionCall\": {\"name\": \"weather\", \"args\": {\"city\": \"Paris\"}}, \"thoughtSignature\": \"Q2FsbA==\"}, ",
    "{\"functionCall\": {\"name\": \"weather\", \"args\": {\"city\": \"Tokyo\"}}}]}, \"finishReason\": \"STOP\"}], ",
    "\"usageMetadata\": {\"promptTokenCount\": 420, \"candidatesTokenCount\": 30, \"thoughtsTokenCount\": 64, ",
    "\"totalTokenCount\": 514}, \"modelVersion\": \"gemini-3.5-flash\", \"responseId\": \"demo-1\"}\n\n",
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
    // builder_from_env reads GEMINI_API_KEY (or GOOGLE_API_KEY) and GEMINI_BASE_URL.
    let builder = Gemini::builder_from_env().model("gemini-3.5-flash").retry_policy(retry);
    let live =
        ["GEMINI_API_KEY", "GOOGLE_API_KEY"].iter().any(|k| std::env::var(k).is_ok_and(|v| !v.is_empty()));
    let gemini = if live {
        println!("(calling the Gemini API)");
        builder.build()?
    } else {
        let url = offline_server().await?;
        println!("(GEMINI_API_KEY is not set: answering from a local canned stream at {url})");
        builder.api_key("offline-demo-key").base_url(url).build()?
    };

    let weather = ToolDefinition::new(
        "weather",
        "Current weather for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    );
    let mut history = vec![Message::user("What's the weather in Paris and Tokyo?")];
    let request = ModelRequest::new(history.clone())
        .with_system("You are a concise assistant.")
        .with_tools(vec![weather.clone()])
        .with_reasoning(Reasoning::effort(ReasoningEffort::Low))
        .with_max_tokens(1024);

    let mut stream = gemini.stream(request).await?;
    let mut acc = ResponseAccumulator::new();
    while let Some(event) = stream.next().await {
        let event = event?;
        match &event {
            StreamEvent::ContentBlockDelta { delta: ContentDelta::ThinkingDelta { thinking }, .. } => {
                println!("[thinking] {thinking}");
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
        "stop: {} | tokens in/out (thinking): {}/{} ({}) | cost ${cost:.6}",
        response.stop_reason,
        response.usage.input_tokens,
        response.usage.output_tokens,
        response.usage.reasoning_tokens
    );

    // Run the (pretend) tool for every call; the ids were synthesised, Gemini pairs results by
    // function name and call order.
    let results: Vec<ToolResultContent> = response
        .tool_uses()
        .map(|call| {
            println!("tool call {}: {}({})", call.id, call.name, call.input);
            ToolResultContent::text(call.id.clone(), format!("{} is 20 °C", call.input["city"]))
        })
        .collect();
    history.push(response.into_message());
    history.push(Message::tool_results(results));

    // The next request replays every thought signature on the part it came with.
    let next = ModelRequest::new(history).with_tools(vec![weather]);
    let body = gemini.request_body(&next, false)?;
    let signed = body["contents"][1]["parts"]
        .as_array()
        .map_or(0, |parts| parts.iter().filter(|p| p.get("thoughtSignature").is_some()).count());
    println!(
        "next request: {} contents, {signed} signed parts replayed",
        body["contents"].as_array().map_or(0, Vec::len)
    );
    let kept = next.messages[1].content.iter().filter(|c| matches!(c, Content::Thinking(_))).count();
    println!("thinking blocks kept in the history: {kept}");
    Ok(())
}
