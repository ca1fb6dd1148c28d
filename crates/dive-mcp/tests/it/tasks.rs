//! MCP tasks (the 2026-07-28 tasks extension), both sides on rmcp: a served dive tool that
//! goes to the background becomes a task (rmcp's task manager), and our client turns a task
//! into a background tool result whose output comes from polling `tasks/get`; dropping the
//! wait sends `tasks/cancel`, which stops the work on the server. The pinned Python SDK has
//! no tasks support, so these run dive's server against dive's client (the Python client's
//! checks cover the other side: a client without the extension gets the awaited result).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use dive_core::{FunctionTool, Tool, ToolContext, ToolError, ToolOutput, ToolResult};
use dive_mcp::{CallOutcome, ConnectOptions, HttpConfig, McpClient, McpServer, ProtocolChoice, ServerConfig};
use serde_json::json;

/// Sets its flag when dropped: the server's work was stopped (or finished).
struct Dropped(Arc<AtomicBool>);
impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// `build`: goes to the background, sleeps `ms`, answers `built <n>`.
fn build_tool(started: Arc<AtomicUsize>, stopped: Arc<AtomicBool>) -> Arc<dyn Tool> {
    Arc::new(
        FunctionTool::new("build", "A long build.", move |input: serde_json::Value, _ctx| {
            let started = Arc::clone(&started);
            let stopped = Arc::clone(&stopped);
            async move {
                let n = started.fetch_add(1, Ordering::SeqCst) + 1;
                let ms = input["ms"].as_u64().unwrap_or(300);
                Ok::<_, ToolError>(ToolResult::background("building", async move {
                    let _guard = Dropped(stopped);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    ToolOutput::text(format!("built {n}"))
                }))
            }
        })
        .with_schema(json!({"type": "object", "properties": {"ms": {"type": "integer"}}})),
    )
}

async fn serve(tool: Arc<dyn Tool>) -> (dive_mcp::HttpServerHandle, ServerConfig) {
    let handle =
        McpServer::new("jobs").with_tool(tool).serve_http("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let config = ServerConfig::http("jobs", HttpConfig::new(handle.url()));
    (handle, config)
}

fn modern() -> ConnectOptions {
    ConnectOptions::default().with_protocol(ProtocolChoice::Modern)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_tool_is_served_as_a_task_and_its_output_arrives_by_polling() {
    let (started, stopped) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
    let (_handle, config) = serve(build_tool(started.clone(), stopped.clone())).await;
    let client = McpClient::connect(&config, &modern()).await.unwrap();

    let CallOutcome::Task(task) =
        client.call("build", serde_json::Map::from_iter([("ms".into(), json!(300))])).await.unwrap()
    else {
        panic!("the call did not come back as a task")
    };
    assert!(!task.id().is_empty());
    assert_eq!(task.status_message(), Some("building"));
    assert!(!stopped.load(Ordering::SeqCst), "the work is still running when the task handle arrives");
    let output = task.wait().await;
    assert!(!output.is_error, "{output:?}");
    assert_eq!(output.text_content(), "built 1");

    // call_tool waits for the task itself.
    let output =
        client.call_tool("build", serde_json::Map::from_iter([("ms".into(), json!(50))])).await.unwrap();
    assert_eq!(output.text_content(), "built 2");

    // As a dive tool the task is a background result.
    let tools = client.tools().await.unwrap();
    let build = tools.iter().find(|t| t.name() == "mcp__jobs__build").unwrap();
    let ToolResult::Background(background) =
        build.call(json!({"ms": 50}), ToolContext::detached(build.name())).await.unwrap()
    else {
        panic!("the tool did not go to the background")
    };
    assert!(background.description.contains("of `build`: building"), "{}", background.description);
    assert_eq!(background.future.await.text_content(), "built 3");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_wait_cancels_the_task_on_the_server() {
    let (started, stopped) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
    let (_handle, config) = serve(build_tool(started, stopped.clone())).await;
    let client = McpClient::connect(&config, &modern()).await.unwrap();
    let CallOutcome::Task(task) =
        client.call("build", serde_json::Map::from_iter([("ms".into(), json!(60_000))])).await.unwrap()
    else {
        panic!("the call did not come back as a task")
    };
    // Stop waiting after a poll or two: the server is told, and drops the work.
    assert!(tokio::time::timeout(Duration::from_millis(400), task.wait()).await.is_err());
    let gone = async {
        while !stopped.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), gone).await.expect("the server's work was not stopped");
}
