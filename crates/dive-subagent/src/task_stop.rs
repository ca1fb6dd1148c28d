//! [`TaskStopTool`]: the `TaskStop` tool (`task_id`), which cancels a background subagent
//! or command.

use dive_core::{BoxFuture, Tool, ToolContext, ToolError, ToolResult};
use serde_json::{Value, json};

use crate::runs::Runs;

/// The `TaskStop` tool over a [`Runs`] tracker.
///
/// ```
/// use dive_core::Tool;
/// use dive_subagent::{Runs, TaskStopTool};
/// let tool = TaskStopTool::new(Runs::new());
/// assert_eq!((tool.name(), tool.input_schema()["required"][0].as_str()), ("TaskStop", Some("task_id")));
/// ```
#[derive(Debug, Clone)]
pub struct TaskStopTool {
    runs: Runs,
    schema: Value,
}

impl TaskStopTool {
    /// The tool over `runs`.
    #[must_use]
    pub fn new(runs: Runs) -> Self {
        let schema = json!({
            "type": "object",
            "properties": {
                "task_id": {"type": "string", "description": "The ID of the background task to stop"}
            },
            "required": ["task_id"],
            "additionalProperties": false
        });
        Self { runs, schema }
    }
}

impl Tool for TaskStopTool {
    fn name(&self) -> &str {
        "TaskStop"
    }

    fn description(&self) -> &str {
        "Stops a running background task (a background agent or a Monitor command) by its ID. A stopped \
         command is killed with every process it started."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn call(&self, input: Value, _ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let Some(id) = input.get("task_id").and_then(Value::as_str) else {
                return Ok(ToolResult::error(
                    "TaskStop needs a task_id: the ID a background task was started with",
                ));
            };
            Ok(match self.runs.stop(id) {
                Ok(()) => {
                    let status = self.runs.wait(id).await.map_or("stopped", |s| s.status.as_str());
                    ToolResult::text(format!("Stopped task {id} ({status})."))
                }
                Err(e) => ToolResult::error(e.to_string()),
            })
        })
    }
}
