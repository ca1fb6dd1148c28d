//! A2A both ways, offline: an agent served as an A2A 1.0 endpoint on a free local port (tasks
//! kept in a SQLite file), then called with our client — a blocking send, a stream, a task
//! that asks a question and is answered, the task list — and used as a tool of another agent.
//!
//! Runs offline on test models: `cargo run -p dive-examples --example a2a`.
#![allow(clippy::print_stdout)]

use std::sync::Arc;

use dive::a2a::types::{ListTasksRequest, Message, SendMessageRequest, StreamResponse};
use dive::a2a::{A2aServer, RemoteAgent, RemoteAgentTool};
use dive::session::SqliteStore;
use dive::{Agent, BoxFuture, SuspendRequest, Tool, ToolContext, ToolError, ToolResult};
use dive_test::{ScriptedModel, TestModel};
use futures::StreamExt;
use serde_json::{Value, json};

/// A tool that asks the person on the other end for their name (the turn suspends).
struct AskName(Value);

impl Tool for AskName {
    fn name(&self) -> &str {
        "ask_name"
    }
    fn description(&self) -> &str {
        "Asks the user's name."
    }
    fn input_schema(&self) -> &Value {
        &self.0
    }
    fn call(&self, _input: Value, _ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async { Ok(ToolResult::suspend(SuspendRequest::new("What is your name?"))) })
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. Serve an agent. TestModel calls each tool once, then answers; a real one would be
    //    `dive::model("anthropic/claude-…")`.
    let dir = tempfile::tempdir()?;
    let store = Arc::new(SqliteStore::open(dir.path().join("a2a-tasks.db"))?);
    let agent = Agent::builder()
        .name("greeter")
        .description("Greets you by name.")
        .model(TestModel::new())
        .tool(AskName(dive::empty_object_schema()))
        .build()?;
    let server = A2aServer::builder(Arc::new(agent)).store(store).build()?.bind("127.0.0.1:0").await?;
    println!("serving {} (card at {}/.well-known/agent-card.json)", server.url(), server.url());

    // 2. Call it: the card first, then a task that needs input.
    let remote = RemoteAgent::from_url(&server.url()).await?;
    println!(
        "card: {} — skills {:?}",
        remote.card().name,
        remote.card().skills.iter().map(|s| &s.id).collect::<Vec<_>>()
    );
    let waiting = remote.send_text("Hello!").await?;
    println!("task {} is {}: {}", waiting.id, waiting.state.as_str(), waiting.text);
    assert!(waiting.is_input_required());
    let done = remote.send_text_on_task(&waiting.id, "Ada").await?;
    println!("task {} is {}: {}", done.id, done.state.as_str(), done.text);
    assert!(done.is_completed() && done.text.contains("Ada"));

    // 3. A stream: the task, its status updates, the answer as an artifact.
    let mut events = remote.stream(SendMessageRequest::new(Message::user_text("Hi again"))).await?;
    while let Some(event) = events.next().await {
        match event? {
            StreamResponse::Task(t) => println!("  stream: task {} {}", t.id, t.status.state.as_str()),
            StreamResponse::StatusUpdate(u) => println!("  stream: status {}", u.status.state.as_str()),
            StreamResponse::ArtifactUpdate(a) => println!("  stream: artifact {:?}", a.artifact.text()),
            other => println!("  stream: {other:?}"),
        }
    }
    let page = remote.list_tasks(&ListTasksRequest::new().with_page_size(10)).await?;
    println!("{} tasks stored", page.total_size);

    // 4. The remote agent as a tool of another agent (scripted: it calls the tool once).
    let tool = RemoteAgentTool::new(Arc::new(RemoteAgent::from_url(&server.url()).await?));
    let caller = Agent::builder()
        .model(ScriptedModel::new([
            dive::ModelResponse::tool_calls(vec![dive::ToolUse::new(
                "c1",
                tool.name(),
                json!({"message": "Hello"}),
            )]),
            dive::ModelResponse::text("The greeter wants to know your name."),
        ]))
        .tool(tool)
        .build()?;
    let response = caller.run("Say hello to the greeter").await?;
    let result = response.tool_call_results().next().map(|r| r.output.as_ref().map(|o| o.text_content()));
    println!("tool result: {result:?}");
    println!("answer: {}", response.output_text());

    server.shutdown().await;
    Ok(())
}
