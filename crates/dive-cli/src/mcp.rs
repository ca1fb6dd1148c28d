//! MCP in the CLI: servers from the project's `.mcp.json` (only in a trusted workspace: it
//! names commands to run) and from `--mcp-config`, started in parallel, their tools offered as
//! `mcp__<server>__<tool>` behind the same permission prompts as every other tool; `/mcp`; and
//! `dive mcp serve`, the workspace tools served to another MCP client through the permission
//! rules (a call that would ask is refused, since nobody is there to answer).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use dive::mcp::{ManagerOptions, McpConfig, McpManager, McpServer, ServerState, Vars};
use dive::permission::{Decision, PermissionManager, ToolCall};
use dive::{BoxFuture, Tool, ToolAnnotations, ToolContext, ToolError, ToolResult};
use serde_json::Value;

/// The project's MCP configuration file.
pub const PROJECT_FILE: &str = ".mcp.json";

/// The servers to start: the project's `.mcp.json` when the workspace is trusted, then each
/// `--mcp-config` (a file or inline JSON). `None` when there are none.
pub fn config(workspace: &Path, trusted: bool, args: &[String]) -> Result<Option<McpConfig>, String> {
    let vars = Vars::from_env();
    let mut config = McpConfig::new();
    let project = workspace.join(PROJECT_FILE);
    if project.is_file() {
        if trusted {
            config.merge(McpConfig::load(&project, &vars).map_err(|e| e.to_string())?);
        } else {
            eprintln!(
                "dive: the MCP servers in {PROJECT_FILE} are not started: this workspace is not trusted \
                 (`dive trust` trusts it)"
            );
        }
    }
    for arg in args {
        config.merge(McpConfig::from_arg(arg, &vars).map_err(|e| e.to_string())?);
    }
    Ok((!config.is_empty()).then_some(config))
}

/// Starts the servers (each with its own time limit); a server that fails is reported and
/// left out, the others work.
pub async fn start(config: &McpConfig) -> McpManager {
    let manager = McpManager::start(config, ManagerOptions::default()).await;
    for status in manager.statuses() {
        if let ServerState::Failed { error } = &status.state {
            eprintln!(
                "dive: MCP server {} did not start: {}",
                crate::sanitize::for_stderr(&status.name),
                crate::sanitize::for_stderr(error)
            );
        }
    }
    manager
}

/// `/mcp`: one line a server.
pub fn status_lines(manager: &McpManager) -> Vec<String> {
    manager
        .statuses()
        .into_iter()
        .map(|status| {
            let state = match status.state {
                ServerState::Connected { tools, protocol } => {
                    format!("connected, {tools} tools (MCP {protocol})")
                }
                ServerState::Reconnecting { attempt, error } => {
                    format!("reconnecting (attempt {attempt}): {error}")
                }
                ServerState::Failed { error } => format!("failed: {error}"),
                ServerState::Disabled => "disabled".to_owned(),
                _ => "unknown".to_owned(),
            };
            crate::sanitize::visible(&format!("{:<16} {state}", status.name)).into_owned()
        })
        .collect()
}

/// A tool served over MCP, checked against the permission rules on every call.
struct Guarded {
    tool: Arc<dyn Tool>,
    permissions: Arc<PermissionManager>,
}

impl Tool for Guarded {
    fn name(&self) -> &str {
        self.tool.name()
    }

    fn description(&self) -> &str {
        self.tool.description()
    }

    fn input_schema(&self) -> &Value {
        self.tool.input_schema()
    }

    fn annotations(&self) -> &ToolAnnotations {
        self.tool.annotations()
    }

    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        let decision = self
            .permissions
            .evaluate(ToolCall::new(self.tool.name(), &input, self.tool.annotations()))
            .decision;
        match decision {
            Decision::Allow => self.tool.call(input, ctx),
            Decision::Deny => Box::pin(async { Ok(ToolResult::error("Denied by the permission rules.")) }),
            _ => Box::pin(async {
                Ok(ToolResult::error(
                    "This call needs approval, and `dive mcp serve` has nobody to ask: the user can allow it \
                     with a permission rule or a permission mode.",
                ))
            }),
        }
    }
}

/// `dive mcp serve`: the workspace tools over stdio, or streamable HTTP on `http`, until the
/// client goes away (stdio) or Ctrl-C (HTTP).
pub async fn serve(
    tools: Vec<Arc<dyn Tool>>,
    permissions: Arc<PermissionManager>,
    http: Option<SocketAddr>,
) -> Result<(), String> {
    let guarded: Vec<Arc<dyn Tool>> = tools
        .into_iter()
        .map(|tool| Arc::new(Guarded { tool, permissions: Arc::clone(&permissions) }) as Arc<dyn Tool>)
        .collect();
    let server = McpServer::new("dive").with_version(env!("CARGO_PKG_VERSION")).with_tools(guarded);
    match http {
        None => server.serve_stdio().await.map_err(|e| e.to_string()),
        Some(addr) => {
            let handle = server.serve_http(addr).await.map_err(|e| e.to_string())?;
            eprintln!("dive: serving MCP at {} (Ctrl-C stops)", handle.url());
            let _ = tokio::signal::ctrl_c().await;
            handle.shutdown().await;
            Ok(())
        }
    }
}
