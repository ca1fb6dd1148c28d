//! [`McpTool`]: one server tool as a dive [`Tool`] named `mcp__<server>__<tool>`, its
//! schema passed through untouched and its annotations mapped to ours.

use dive_core::{BoxFuture, Tool, ToolAnnotations, ToolContext, ToolError, ToolResult};
use serde_json::Value;

use crate::client::{CallOutcome, WeakClient};
use crate::convert;

/// The name a server's tool gets: `mcp__<server>__<tool>`, every character outside
/// `[A-Za-z0-9_-]` replaced by `_` (what providers accept in a tool name; Claude Code's rule).
///
/// ```
/// assert_eq!(dive_mcp::qualified_tool_name("my server", "get.weather"), "mcp__my_server__get_weather");
/// ```
#[must_use]
pub fn qualified_tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{}__{}", sanitize(server), sanitize(tool))
}

/// The `(server, tool)` parts of a qualified name, `None` for names not of that shape. Server
/// names containing `__` cannot be told apart; the first `__` after the prefix splits.
///
/// ```
/// assert_eq!(dive_mcp::split_qualified_name("mcp__files__read_file"), Some(("files", "read_file")));
/// assert_eq!(dive_mcp::split_qualified_name("Read"), None);
/// ```
#[must_use]
pub fn split_qualified_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp__")?;
    let (server, tool) = rest.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

fn sanitize(part: &str) -> String {
    part.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// One tool of a connected server.
pub struct McpTool {
    client: WeakClient,
    name: String,
    remote_name: String,
    description: String,
    schema: Value,
    annotations: ToolAnnotations,
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool").field("name", &self.name).finish_non_exhaustive()
    }
}

impl McpTool {
    pub(crate) fn new(client: WeakClient, tool: rmcp::model::Tool) -> Self {
        let annotations = convert::annotations_from_mcp(&tool);
        Self {
            name: qualified_tool_name(client.name(), &tool.name),
            remote_name: tool.name.to_string(),
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            schema: Value::Object((*tool.input_schema).clone()),
            annotations,
            client,
        }
    }

    /// The tool's name on its server.
    #[must_use]
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }

    /// The server's configured name.
    #[must_use]
    pub fn server(&self) -> &str {
        self.client.name()
    }
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }

    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let arguments = match input {
                Value::Object(map) => map,
                Value::Null => serde_json::Map::new(),
                other => {
                    return Ok(ToolResult::error(format!("the input must be a JSON object, not {other}")));
                }
            };
            let Some(client) = self.client.upgrade() else {
                return Err(ToolError::new(format!(
                    "MCP server `{}`: the connection was closed by this application",
                    self.client.name()
                )));
            };
            let traceparent = client.traceparent_for(&ctx);
            match client.call_traced(&self.remote_name, arguments, traceparent.as_deref()).await {
                Ok(CallOutcome::Done(output)) => Ok(ToolResult::Output(output)),
                Ok(CallOutcome::InputRequired(request)) => Ok(ToolResult::Suspend(request)),
                Ok(CallOutcome::Task(task)) => Ok(ToolResult::background(task.description(), task.wait())),
                Err(e) => Err(ToolError::from_error(e)),
            }
        })
    }
}
