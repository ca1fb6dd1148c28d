//! A downstream crate's pieces in one agent, offline: `LineModel` talks to a toy model server
//! started here on 127.0.0.1 (it calls `word_count` once, then answers with the count), the
//! turn is saved in a `KvStore`, `TextTools` brings the tool, its hook and its rule, and a
//! `ToolBudget` hook is read after the run.
//!
//! `cargo run -p downstream-example --example downstream`
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::sync::Arc;

use dive_agent::{Agent, RunOptions};
use dive_core::serde_json::{self, Value, json};
use dive_core::{Hooks, SessionStore};
use downstream_example::{KvStore, LineModel, TextTools, ToolBudget};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(answer(socket));
        }
    });

    let budget = Arc::new(ToolBudget::new(3));
    let store = KvStore::new();
    let agent = Agent::builder()
        .model(LineModel::new(&url, "toy-1")?)
        .system_prompt("You answer questions about texts.")
        .extension(Arc::new(TextTools))
        .hooks(Hooks::new().on_pre_tool_use(Arc::clone(&budget)))
        .session(store.open("demo").await?)
        .build()?;
    let response = agent.run(RunOptions::text("How many words are in: the quick brown fox")).await?;

    println!("answer: {}", response.output_text());
    println!("tool calls allowed by the budget: {}", budget.allowed());
    println!("stored session: {} bytes", store.raw("demo").map_or(0, |b| b.len()));
    if response.output_text() != "4 words." || budget.allowed() != 1 {
        return Err("the toy server's conversation did not go as scripted".into());
    }
    Ok(())
}

/// The toy server: reads one request; calls `word_count` on the last user text until a tool
/// result is in the conversation, then answers with it. Streams NDJSON when asked.
async fn answer(socket: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(socket);
    let mut length = 0;
    let mut line = String::new();
    while reader.read_line(&mut line).await? > 0 && line != "\r\n" {
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        line.clear();
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).await?;
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let lines = match messages.iter().rev().find(|m| m["role"] == "tool") {
        Some(result) => vec![
            json!({"type": "text", "delta": format!("{} words.", result["text"].as_str().unwrap_or("?"))}),
            json!({"type": "end", "stop": "stop", "usage": {"input": 40, "output": 3}}),
        ],
        None => {
            let text = messages
                .iter()
                .rev()
                .find(|m| m["role"] == "user")
                .map_or("", |m| m["text"].as_str().unwrap_or(""));
            let text = text.split_once(':').map_or(text, |(_, t)| t.trim());
            vec![
                json!({"type": "call", "id": "call-1", "name": "word_count", "arguments": {"text": text}}),
                json!({"type": "end", "stop": "tool_calls", "usage": {"input": 30, "output": 8}}),
            ]
        }
    };
    let socket = reader.get_mut();
    if request["stream"] == true {
        let mut out = String::from(
            "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nConnection: close\r\n\r\n",
        );
        out.push_str(&json!({"type": "start", "id": "toy"}).to_string());
        out.push('\n');
        for l in lines {
            out.push_str(&l.to_string());
            out.push('\n');
        }
        socket.write_all(out.as_bytes()).await?;
    } else {
        let mut whole = json!({"id": "toy", "text": "", "calls": [], "stop": "", "usage": {}});
        for l in lines {
            match l["type"].as_str() {
                Some("text") => whole["text"] = l["delta"].clone(),
                Some("call") => {
                    whole["calls"] = json!([{"id": l["id"], "name": l["name"], "arguments": l["arguments"]}])
                }
                _ => (whole["stop"], whole["usage"]) = (l["stop"].clone(), l["usage"].clone()),
            }
        }
        let text = whole.to_string();
        let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", text.len());
        socket.write_all(head.as_bytes()).await?;
        socket.write_all(text.as_bytes()).await?;
    }
    socket.shutdown().await
}
