//! MCP tasks (the 2026-07-28 tasks extension): a server may answer a long `tools/call` with a
//! task instead of a result. [`McpTask::wait`] polls `tasks/get` at the pace the server asks
//! for until the task ends; dropping the wait before then sends `tasks/cancel`. As a dive tool
//! result a task is a background task: the turn goes on and the output arrives later.

use std::time::Duration;

use dive_core::ToolOutput;
use rmcp::model::{CallToolResult, CancelTaskParams, GetTaskParams, TaskPayload};

use crate::client::McpClient;
use crate::convert;

/// The wait between two polls when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// Bounds on the server's suggestion, so a bad value neither spins nor stalls.
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(30);

/// A task a server started for a tool call.
#[derive(Debug)]
pub struct McpTask {
    client: McpClient,
    tool: String,
    id: String,
    poll: Duration,
    status: Option<String>,
}

impl McpTask {
    pub(crate) fn new(client: McpClient, tool: &str, task: &rmcp::model::Task) -> Self {
        Self {
            client,
            tool: tool.to_owned(),
            id: task.task_id.clone(),
            poll: poll_interval(task.poll_interval_ms),
            status: task.status_message.clone(),
        }
    }

    /// The server's task id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// What the server says the task is doing, if it said.
    #[must_use]
    pub fn status_message(&self) -> Option<&str> {
        self.status.as_deref()
    }

    /// A description for people and models: the tool and the server's status message.
    #[must_use]
    pub fn description(&self) -> String {
        match &self.status {
            Some(status) => format!("MCP task {} of `{}`: {status}", self.id, self.tool),
            None => format!("MCP task {} of `{}`", self.id, self.tool),
        }
    }

    /// Polls until the task ends and returns its output: the tool's result when it
    /// completed, an error output saying so when it failed, was cancelled or asks for input
    /// (which a background task cannot give). A dropped connection ends the wait with an
    /// error output too. Dropping the future before the end cancels the task on the server.
    pub async fn wait(self) -> ToolOutput {
        let mut guard = CancelOnDrop { task: Some((self.client.clone(), self.id.clone())) };
        let output = self.poll_until_done().await;
        guard.task = None;
        output
    }

    async fn poll_until_done(&self) -> ToolOutput {
        let server = self.client.name().to_owned();
        let mut wait = self.poll;
        loop {
            tokio::time::sleep(wait).await;
            let got = self.client.peer().get_task(GetTaskParams::new(self.id.clone())).await;
            let detailed = match got {
                Ok(result) => result.task,
                Err(e) => {
                    return ToolOutput::error(format!(
                        "MCP server `{server}`: polling task {} of `{}` failed: {e}",
                        self.id, self.tool
                    ));
                }
            };
            wait = poll_interval(detailed.task.poll_interval_ms.or(Some(duration_ms(self.poll))));
            match detailed.payload {
                TaskPayload::Completed { result } => {
                    return match serde_json::from_value::<CallToolResult>(serde_json::Value::Object(result)) {
                        Ok(result) => convert::output_from_mcp(result),
                        Err(e) => ToolOutput::error(format!(
                            "MCP server `{server}`: task {} of `{}` finished with a result this client cannot read: {e}",
                            self.id, self.tool
                        )),
                    };
                }
                TaskPayload::Failed { error } => {
                    let message = error.get("message").and_then(|m| m.as_str()).unwrap_or("no reason given");
                    return ToolOutput::error(format!(
                        "MCP server `{server}`: task {} of `{}` failed: {message}",
                        self.id, self.tool
                    ));
                }
                TaskPayload::Cancelled => {
                    return ToolOutput::error(format!(
                        "MCP server `{server}`: task {} of `{}` was cancelled",
                        self.id, self.tool
                    ));
                }
                TaskPayload::InputRequired { .. } => {
                    // Nobody can answer a background task: say so, and stop it.
                    let _ = self.client.peer().cancel_task(CancelTaskParams::new(self.id.clone())).await;
                    return ToolOutput::error(format!(
                        "MCP server `{server}`: task {} of `{}` asked for input, which a background task \
                         cannot give; it was cancelled (call the tool again in the foreground)",
                        self.id, self.tool
                    ));
                }
                // Working (or a status this client does not know yet): poll again.
                _ => {}
            }
        }
    }
}

/// Sends `tasks/cancel` when a wait is dropped before the task ended.
struct CancelOnDrop {
    task: Option<(McpClient, String)>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some((client, id)) = self.task.take() else { return };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = client.peer().cancel_task(CancelTaskParams::new(id.clone())).await {
                    tracing::debug!(task = %id, error = %e, "mcp: cancelling a dropped task failed");
                }
            });
        }
    }
}

fn duration_ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn poll_interval(ms: Option<u64>) -> Duration {
    ms.map_or(DEFAULT_POLL, Duration::from_millis).clamp(MIN_POLL, MAX_POLL)
}
