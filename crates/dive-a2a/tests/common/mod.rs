//! Shared by the integration tests: the served agents and their servers.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use dive_a2a::{A2aServer, RunningServer};
use dive_agent::Agent;
use dive_core::{
    BoxFuture, SessionStore, SuspendRequest, Tool, ToolContext, ToolError, ToolResult, empty_object_schema,
};
use dive_test::TestModel;
use serde_json::Value;

/// A tool that suspends with "What is your name?" (its result is the answer).
pub struct AskName(Value);

impl AskName {
    pub fn new() -> Self {
        Self(empty_object_schema())
    }
}

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

/// A tool that sleeps for a minute (to cancel a running task).
pub struct Sleep(Value);

impl Sleep {
    pub fn new() -> Self {
        Self(empty_object_schema())
    }
}

impl Tool for Sleep {
    fn name(&self) -> &str {
        "sleep"
    }
    fn description(&self) -> &str {
        "Sleeps for a minute."
    }
    fn input_schema(&self) -> &Value {
        &self.0
    }
    fn call(&self, _input: Value, _ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(ToolResult::text("slept"))
        })
    }
}

/// An agent on TestModel with these tools.
pub fn agent(name: &str, tools: Vec<Arc<dyn Tool>>) -> Arc<Agent> {
    let mut builder =
        Agent::builder().name(name).description(format!("{name} (test agent)")).model(TestModel::new());
    for tool in tools {
        builder = builder.tool(tool);
    }
    Arc::new(builder.build().unwrap())
}

/// Serves `agent` on a free local port with `store`.
pub async fn serve(agent: Arc<Agent>, store: Arc<dyn SessionStore>) -> RunningServer {
    A2aServer::builder(agent).store(store).build().unwrap().bind("127.0.0.1:0").await.unwrap()
}

pub fn memory() -> Arc<dyn SessionStore> {
    Arc::new(dive_session::MemoryStore::new())
}

/// A port free right now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Waits until something accepts connections on `port` (a child server started).
pub async fn wait_for_port(port: u16, limit: Duration) {
    let start = std::time::Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(start.elapsed() < limit, "nothing listened on port {port} within {limit:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A test peer's path.
pub fn peer(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers").join(name)
}
