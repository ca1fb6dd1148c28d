//! MCP both ways, offline: dive tools served as an MCP server over streamable HTTP (in this
//! process, on a free local port), then an `mcpServers` config (with `${VAR}` expansion)
//! started by the manager — one server works, one cannot start and is reported — and an
//! agent whose model calls the MCP tool `mcp__local__add`; last, a tool that goes to the
//! background comes back as an MCP task, polled until its output arrives.
//!
//! Runs offline on a scripted model: `cargo run -p dive-examples --example mcp`.
#![allow(clippy::print_stdout)]

use std::sync::Arc;

use dive::mcp::{CallOutcome, ManagerOptions, McpConfig, McpManager, McpServer, ServerState, Vars};
use dive::{Agent, FunctionTool, ModelResponse, Tool, ToolError, ToolOutput, ToolResult};
use dive_test::ScriptedModel;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, schemars::JsonSchema)]
struct AddInput {
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. Any dive tools as an MCP server (`McpServer::serve_stdio` serves them on stdio instead).
    let add: Arc<dyn Tool> =
        Arc::new(FunctionTool::new("add", "Adds two integers.", |input: AddInput, _ctx| async move {
            Ok::<_, ToolError>((input.a + input.b).to_string())
        }));
    // A long job: served as an MCP task to clients that declare the tasks extension (ours do).
    let report: Arc<dyn Tool> = Arc::new(FunctionTool::new(
        "report",
        "Builds a report in the background.",
        |_input: serde_json::Value, _ctx| async move {
            Ok::<_, ToolError>(ToolResult::background("building the report", async {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                ToolOutput::text("report ready: 42 rows")
            }))
        },
    ));
    let server =
        McpServer::new("calculator").with_tools([add, report]).serve_http("127.0.0.1:0".parse()?).await?;
    println!("MCP server listening on {}", server.url());

    // 2. Claude Code's `mcpServers` shape; variables come from what we pass (Vars::from_env()
    //    in an application).
    let vars = Vars::new([("CALC_URL", server.url())]);
    let config = McpConfig::from_arg(
        r#"{"mcpServers": {
            "local":  {"type": "http", "url": "${CALC_URL}", "headers": {"Authorization": "Bearer ${CALC_TOKEN:-dev}"}},
            "broken": {"command": "/nonexistent/mcp-server", "args": ["--stdio"]}
        }}"#,
        &vars,
    )?;

    // 3. Start every server in parallel; the broken one is reported, not fatal.
    let manager = McpManager::start(&config, ManagerOptions::default()).await;
    for status in manager.statuses() {
        match &status.state {
            ServerState::Connected { tools, protocol } => {
                println!("{}: connected ({protocol}), {tools} tool(s)", status.name);
            }
            ServerState::Failed { error } => println!("{}: failed: {error}", status.name),
            other => println!("{}: {other:?}", status.name),
        }
    }

    // 4. The manager is a Toolset: the agent sees `mcp__local__add`.
    let model = ScriptedModel::new([
        ModelResponse::tool_use("call_1", "mcp__local__add", json!({"a": 40, "b": 2})),
        ModelResponse::text("40 + 2 = 42, says the MCP server."),
    ]);
    let agent = Agent::builder().model(model.clone()).toolset(manager.clone()).build()?;
    let response = agent.run("What is 40 + 2?").await?;
    let offered: Vec<String> = model.requests().all()[0].tools.iter().map(|t| t.name.clone()).collect();
    println!("tools offered to the model: {offered:?}");
    println!("answer: {}", response.output_text());

    // 5. The long job: the call answers with a task at once; its output comes by polling.
    let client = manager.client("local").ok_or("the local server is not connected")?;
    if let CallOutcome::Task(task) = client.call("report", serde_json::Map::new()).await? {
        println!("task {} started: {}", task.id(), task.status_message().unwrap_or_default());
        println!("task output: {}", task.wait().await.text_content());
    }

    server.shutdown().await;
    Ok(())
}
