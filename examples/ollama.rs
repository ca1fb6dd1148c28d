//! A local model through `dive::ollama`: an agent with a tool, streamed from Ollama's native
//! `/api/chat` (thinking and tool calls included).
//!
//! ```text
//! cargo run -p dive-examples --example ollama
//! OLLAMA_MODEL=qwen3:8b cargo run -p dive-examples --example ollama   # a model you pulled
//! ```
//!
//! With an Ollama server at `OLLAMA_HOST` (default `http://localhost:11434`) this uses it.
//! When none answers, the example says so and starts a tiny local mock that speaks the same
//! NDJSON protocol, so it runs offline (CI runs it that way).
#![allow(clippy::print_stdout)]

use std::time::Duration;

use dive::ollama::{Ollama, OllamaBuilderExt, parse_host};
use dive::provider::HttpOptions;
use dive::{Agent, FunctionTool, ResponseItem, RunOptions, ToolError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// First turn: think, then call the tool. Second turn (the request holds a tool result): answer.
const CALL_TOOL: &str = concat!(
    "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"The user wants Lisbon's weather; \"},\"done\":false}\n",
    "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"I'll use the tool.\"},\"done\":false}\n",
    "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"function\":{\"name\":\"weather\",\"arguments\":{\"city\":\"Lisbon\"}}}]},\"done\":false}\n",
    "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":160,\"eval_count\":31}\n",
);
const ANSWER: &str = concat!(
    "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"It is sunny in Lisbon, \"},\"done\":false}\n",
    "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"21°C.\"},\"done\":false}\n",
    "{\"model\":\"qwen3:8b\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"done_reason\":\"stop\",\"prompt_eval_count\":205,\"eval_count\":12}\n",
);

/// Whether an Ollama server answers at `base` (its `/api/version`).
async fn ollama_answers(base: &str) -> bool {
    let Ok(client) = HttpOptions::default().with_connect_timeout(Duration::from_millis(500)).build_client()
    else {
        return false;
    };
    let probe = client.get(format!("{base}/api/version")).timeout(Duration::from_secs(2)).send();
    matches!(probe.await, Ok(r) if r.status().is_success())
}

/// A local mock of `/api/chat`: reads each request, answers with `CALL_TOOL` or `ANSWER`.
async fn mock_server() -> std::io::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = vec![0u8; 16 * 1024];
                loop {
                    let Ok(n) = socket.read(&mut buf).await else { return };
                    if n == 0 {
                        return;
                    }
                    request.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&request);
                    let Some(head_end) = text.find("\r\n\r\n") else { continue };
                    let length = text[..head_end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length:")
                                .map(|v| v.trim().to_owned())
                        })
                        .and_then(|v| v.parse::<usize>().ok())
                        .unwrap_or(0);
                    if request.len() >= head_end + 4 + length {
                        break;
                    }
                }
                let text = String::from_utf8_lossy(&request);
                let body = if text.contains("\"role\":\"tool\"") { ANSWER } else { CALL_TOOL };
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/x-ndjson\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
            });
        }
    });
    Ok(format!("http://{addr}"))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct WeatherInput {
    /// City name.
    city: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let host = parse_host(&std::env::var("OLLAMA_HOST").unwrap_or_default());
    let (host, model) = if ollama_answers(&host).await {
        println!("Using the Ollama server at {host}.");
        (host, std::env::var("OLLAMA_MODEL").unwrap_or_else(|_| dive::ollama::DEFAULT_MODEL.to_owned()))
    } else {
        println!("No Ollama server answers at {host}: using a built-in mock that speaks /api/chat.");
        (mock_server().await?, "qwen3:8b".to_owned())
    };

    let llm = Ollama::builder().host(host).model(model).num_ctx(16_384).build()?;
    let weather =
        FunctionTool::new("weather", "Current weather for a city.", |x: WeatherInput, _ctx| async move {
            Ok::<_, ToolError>(format!("{}: sunny, 21°C", x.city))
        });
    let agent = Agent::builder()
        .system_prompt("You answer briefly. Use the weather tool for weather questions.")
        .model(llm)
        .tool(weather)
        .build()?;
    let options = RunOptions::text("What's the weather in Lisbon?").on_event(|item| {
        match item {
            ResponseItem::ToolCall { call, .. } => println!("→ {} {}", call.name, call.input),
            ResponseItem::ToolCallResult { result } => {
                let text = result.output.as_ref().map(|o| o.text_content()).unwrap_or_default();
                println!("← {}: {text}", result.name);
            }
            _ => {}
        }
        Ok(())
    });
    let response = agent.run(options).await?;
    println!("\n{}", response.output_text());
    println!("\n{} model calls, {} tokens", response.model_calls.len(), response.usage.total_tokens());
    Ok(())
}
