//! [`RemoteAgentTool`]: a remote A2A agent as a tool of a dive agent.

use std::sync::Arc;

use dive_core::{BoxFuture, Tool, ToolContext, ToolError, ToolResult};
use serde_json::{Value, json};

use crate::client::RemoteAgent;

/// A remote agent as a tool: the model sends it a message (and, to answer a question the
/// remote agent asked, the task id it gave); the tool returns the remote answer.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// let remote = dive_a2a::RemoteAgent::from_url("http://127.0.0.1:9999").await?;
/// let tool = dive_a2a::RemoteAgentTool::new(Arc::new(remote));
/// # let _ = tool; Ok(()) }
/// ```
#[derive(Clone)]
pub struct RemoteAgentTool {
    agent: Arc<RemoteAgent>,
    name: String,
    description: String,
    schema: Value,
    traceparent: Option<TraceparentSource>,
}

/// Where a call's W3C `traceparent` comes from: with `dive-otel`,
/// `Arc::new(dive_otel::propagation::tool_traceparent)` (the call's `execute_tool` span), so
/// the remote agent's work joins the caller's trace.
pub type TraceparentSource = Arc<dyn Fn(&ToolContext) -> Option<String> + Send + Sync>;

impl std::fmt::Debug for RemoteAgentTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteAgentTool")
            .field("name", &self.name)
            .field("agent", &self.agent)
            .field("traceparent", &self.traceparent.is_some())
            .finish()
    }
}

/// `ask_<card name>` with every character outside `[A-Za-z0-9_-]` made `_`.
fn tool_name(card_name: &str) -> String {
    let clean: String = card_name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .collect();
    format!("ask_{clean}").chars().take(64).collect()
}

impl RemoteAgentTool {
    /// The tool for this agent, named `ask_<card name>`, described by its card.
    #[must_use]
    pub fn new(agent: Arc<RemoteAgent>) -> Self {
        let card = agent.card();
        let skills: Vec<String> =
            card.skills.iter().map(|s| format!("{}: {}", s.name, s.description)).collect();
        let mut description = format!("Ask the remote agent {:?}. {}", card.name, card.description);
        if !skills.is_empty() {
            description.push_str(&format!(" Its skills: {}.", skills.join("; ")));
        }
        let schema = json!({
            "type": "object",
            "properties": {
                "message": {"type": "string", "description": "What to ask or tell the remote agent."},
                "task_id": {
                    "type": "string",
                    "description": "To answer a question the remote agent asked: the task id it gave."
                }
            },
            "required": ["message"]
        });
        Self { name: tool_name(&card.name), description, agent, schema, traceparent: None }
    }

    /// Sends each call's `traceparent` from `source` (see [`TraceparentSource`]).
    #[must_use]
    pub fn with_traceparent_source(mut self, source: TraceparentSource) -> Self {
        self.traceparent = Some(source);
        self
    }

    /// Another name.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

impl Tool for RemoteAgentTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let Some(message) = input.get("message").and_then(Value::as_str) else {
                return Ok(ToolResult::error("give `message`: the text to send to the remote agent"));
            };
            let task = input.get("task_id").and_then(Value::as_str).filter(|t| !t.is_empty());
            let traceparent = self.traceparent.as_ref().and_then(|source| source(&ctx));
            let result = self.agent.send_text_in(message, task, traceparent.as_deref()).await;
            let result = match result {
                Ok(r) => r,
                Err(e) => {
                    return Ok(ToolResult::error(format!("the remote agent could not be reached: {e}")));
                }
            };
            Ok(if result.is_completed() {
                ToolResult::text(result.text)
            } else if result.is_input_required() {
                ToolResult::text(format!(
                    "The remote agent needs an answer (task_id {:?}): {}\nCall this tool again with that task_id \
                     and the answer as message.",
                    result.id, result.text
                ))
            } else {
                ToolResult::error(format!("the remote task ended {}: {}", result.state.as_str(), result.text))
            })
        })
    }
}
