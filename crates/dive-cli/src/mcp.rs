//! MCP in the CLI: servers from the project's `.mcp.json` (only in a trusted workspace: it
//! names commands to run) and from `--mcp-config`, started in parallel, their tools offered as
//! `mcp__<server>__<tool>` behind the same permission prompts as every other tool; `/mcp`; and
//! `dive mcp serve`, the workspace tools served to another MCP client through the permission
//! rules (a call that would ask is refused, since nobody is there to answer).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use dive::mcp::oauth::{Authorization, CallbackListener, OAuth};
use dive::mcp::{
    ConnectOptions, ManagerOptions, McpConfig, McpManager, McpServer, ServerConfig, ServerState, Transport,
    Vars,
};
use dive::permission::{Decision, PermissionManager, SettingsFile, ToolCall};
use dive::{BoxFuture, Tool, ToolAnnotations, ToolContext, ToolError, ToolResult};
use serde_json::Value;

/// The project's MCP configuration file.
pub const PROJECT_FILE: &str = ".mcp.json";

/// The servers to start, later sources replacing earlier ones of the same name: the user's
/// settings file's `mcpServers`, then — in a trusted workspace only — the project's
/// `.mcp.json` and its settings files' `mcpServers`, then each `--mcp-config` (a file or inline
/// JSON); `disabledMcpjsonServers` in any settings file read turns servers off. `None` when
/// there are none.
pub fn config(
    workspace: &Path,
    trusted: bool,
    settings_files: &[SettingsFile],
    args: &[String],
) -> Result<Option<McpConfig>, String> {
    let vars = Vars::from_env();
    let mut config = McpConfig::new();
    let mut disabled = Vec::new();
    let mut untrusted = Vec::new();
    let (project_files, user_files): (Vec<&SettingsFile>, Vec<&SettingsFile>) =
        settings_files.iter().partition(|f| f.path.starts_with(workspace.join(".dive")));
    let mut settings = |file: &SettingsFile, config: &mut McpConfig| -> Result<(), String> {
        let (servers, off) = McpConfig::load_settings(&file.path, &vars).map_err(|e| e.to_string())?;
        config.merge(servers);
        disabled.extend(off);
        Ok(())
    };
    for file in user_files {
        settings(file, &mut config)?;
    }
    let project = workspace.join(PROJECT_FILE);
    if project.is_file() {
        if trusted {
            config.merge(McpConfig::load(&project, &vars).map_err(|e| e.to_string())?);
        } else {
            untrusted.push(PROJECT_FILE.to_owned());
        }
    }
    for file in project_files {
        if trusted {
            settings(file, &mut config)?;
        } else if file.value.get("mcpServers").is_some() {
            untrusted.push(crate::trust::describe(workspace, std::slice::from_ref(&file.path)));
        }
    }
    for arg in args {
        config.merge(McpConfig::from_arg(arg, &vars).map_err(|e| e.to_string())?);
    }
    config.disable(&disabled);
    if !untrusted.is_empty() {
        eprintln!(
            "dive: the MCP servers in {} are not started: this workspace is not trusted (`dive trust` trusts it)",
            untrusted.join(", ")
        );
    }
    Ok((!config.is_empty()).then_some(config))
}

/// Starts the servers (each with its own time limit); a server that fails is reported and
/// left out, the others work. With `traced`, each call carries the caller's W3C
/// `traceparent` in its `_meta`; with `elicitation` (interactive mode) a server's request
/// for input is asked on the terminal.
pub async fn start(
    config: &McpConfig,
    traced: bool,
    session_dir: &Path,
    elicitation: Option<dive::mcp::ElicitationHandler>,
) -> McpManager {
    let mut connect = ConnectOptions::default().with_oauth(oauth(session_dir));
    if let Some(handler) = elicitation {
        connect = connect.with_elicitation(handler);
    }
    if traced {
        let source = dive::mcp::TraceparentSource::new(dive::otel::propagation::tool_traceparent);
        connect = connect.with_traceparent(source);
    }
    let manager = McpManager::start(config, ManagerOptions::default().with_connect(connect)).await;
    for status in manager.statuses() {
        let name = crate::sanitize::for_stderr(&status.name);
        match &status.state {
            ServerState::Failed { error } => {
                eprintln!("dive: MCP server {name} did not start: {}", crate::sanitize::for_stderr(error));
            }
            ServerState::NeedsAuthorization { .. } => {
                eprintln!("dive: MCP server {name} needs authorization: run `dive mcp login {name}`");
            }
            _ => {}
        }
    }
    manager
}

/// Where OAuth tokens for MCP servers are kept: `mcp-tokens/` in the session directory,
/// owner-only.
fn oauth(session_dir: &Path) -> OAuth {
    OAuth::new(session_dir.join("mcp-tokens"))
}

/// `dive mcp login NAME`: the OAuth flow for one HTTP server, the browser coming back to a
/// loopback listener; the tokens are kept for the next runs.
pub async fn login(
    config: &McpConfig,
    session_dir: &Path,
    name: &str,
    limit: Duration,
) -> Result<(), String> {
    let server = http_server(config, name)?;
    let oauth = oauth(session_dir);
    let port = if let Transport::Http(http) = &server.transport { http.oauth.callback_port } else { None };
    let callback = CallbackListener::bind(port)
        .await
        .map_err(|e| format!("cannot listen for the authorization redirect on 127.0.0.1: {e}"))?;
    let authorization =
        Authorization::start(server, &oauth, &callback.redirect_uri()).await.map_err(|e| e.to_string())?;
    crate::out::line(format!("Open this URL to authorize dive for MCP server {name}:"));
    crate::out::line(authorization.url());
    let redirect =
        callback.wait(limit).await.map_err(|e| format!("{e} (run `dive mcp login {name}` again)"))?;
    authorization.complete(&redirect).await.map_err(|e| e.to_string())?;
    crate::out::line(format!("Authorized: the tokens are kept in {}", oauth.token_dir().display()));
    Ok(())
}

/// `dive mcp logout NAME`: deletes the server's tokens.
pub fn logout(config: &McpConfig, session_dir: &Path, name: &str) -> Result<(), String> {
    let Transport::Http(http) = &http_server(config, name)?.transport else {
        return Err(format!("MCP server {name} is not an HTTP server"));
    };
    let removed = oauth(session_dir).forget(http).map_err(|e| format!("cannot delete the tokens: {e}"))?;
    crate::out::line(if removed {
        "Logged out: the tokens are deleted."
    } else {
        "There were no tokens to delete."
    });
    Ok(())
}

/// The configured HTTP server `name`, or an error that lists the ones there are.
fn http_server<'a>(config: &'a McpConfig, name: &str) -> Result<&'a ServerConfig, String> {
    let Some(server) = config.server(name) else {
        let names: Vec<&str> = config.servers().map(|s| s.name.as_str()).collect();
        return Err(if names.is_empty() {
            format!("no MCP server named {name}: none is configured (.mcp.json, settings or --mcp-config)")
        } else {
            format!("no MCP server named {name} (configured: {})", names.join(", "))
        });
    };
    match server.transport {
        Transport::Http(_) => Ok(server),
        _ => Err(format!("MCP server {name} runs over stdio: OAuth applies to HTTP servers")),
    }
}

/// `/mcp`: one line a server, then its tools.
pub async fn status_lines(manager: &McpManager) -> Vec<String> {
    let mut lines = Vec::new();
    for line in server_lines(manager) {
        lines.push(line.0);
        if let Some(client) = line.1 {
            let tools = client.tools().await.unwrap_or_default();
            let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
            if !names.is_empty() {
                lines.push(crate::sanitize::visible(&format!("    {}", names.join(", "))).into_owned());
            }
        }
    }
    lines
}

/// A line a server, with its client when connected.
fn server_lines(manager: &McpManager) -> Vec<(String, Option<dive::mcp::McpClient>)> {
    manager
        .statuses()
        .into_iter()
        .map(|status| {
            let client = manager.client(&status.name);
            let state = match status.state {
                ServerState::Connected { tools, protocol } => {
                    format!("connected, {tools} tools (MCP {protocol})")
                }
                ServerState::Reconnecting { attempt, error } => {
                    format!("reconnecting (attempt {attempt}): {error}")
                }
                ServerState::Failed { error } => format!("failed: {error}"),
                ServerState::NeedsAuthorization { .. } => {
                    format!("needs authorization: run `dive mcp login {}`", status.name)
                }
                ServerState::Disabled => "disabled".to_owned(),
                _ => "unknown".to_owned(),
            };
            (crate::sanitize::visible(&format!("{:<16} {state}", status.name)).into_owned(), client)
        })
        .collect()
}

/// `/mcp__<server>__<prompt> args`: the prompt rendered by its server, its messages' text
/// joined as the message to send. The words of `args` fill the prompt's arguments in the
/// order it declares them (the last takes the rest). `None` when `name` is no MCP prompt
/// name or its server is not connected.
pub async fn prompt(manager: &McpManager, name: &str, args: &str) -> Option<Result<String, String>> {
    let (server, prompt) = dive::mcp::split_qualified_name(name)?;
    let client = manager.client(server)?;
    let listed = match client.list_prompts().await {
        Ok(listed) => listed,
        Err(e) => return Some(Err(e.to_string())),
    };
    let declared = listed.into_iter().find(|p| p.name == prompt)?;
    let names: Vec<String> = declared.arguments.unwrap_or_default().into_iter().map(|a| a.name).collect();
    let arguments = fill(&names, args);
    Some(match client.get_prompt(prompt, arguments).await {
        Ok(messages) => Ok(messages.iter().map(dive::Message::text).collect::<Vec<_>>().join("\n\n")),
        Err(e) => Err(e.to_string()),
    })
}

/// Print mode: a prompt that starts with an MCP prompt command, rendered by its server; other
/// prompts stay as they are.
pub async fn expand_prompt(manager: Option<&McpManager>, prompt: String) -> Result<String, String> {
    let Some(manager) = manager else { return Ok(prompt) };
    let Some((name, args)) = crate::slash::split(prompt.trim_start()) else { return Ok(prompt) };
    match self::prompt(manager, name, args).await {
        Some(rendered) => rendered,
        None => Ok(prompt),
    }
}

/// The words of `args` given to `names` in order; the last name takes the rest.
fn fill(names: &[String], args: &str) -> Vec<(String, String)> {
    let mut rest = args.trim();
    let mut out = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if rest.is_empty() {
            break;
        }
        let value = if i + 1 == names.len() {
            std::mem::take(&mut rest)
        } else {
            let (word, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            rest = tail.trim_start();
            word
        };
        out.push((name.clone(), value.to_owned()));
    }
    out
}

/// The `/help` lines of the servers' prompts (empty when there are none).
pub async fn prompt_help(manager: &McpManager) -> String {
    let mut out = String::new();
    for client in manager.clients() {
        for prompt in client.list_prompts().await.unwrap_or_default() {
            let args: Vec<String> =
                prompt.arguments.unwrap_or_default().into_iter().map(|a| format!("[{}]", a.name)).collect();
            let usage = format!(
                "/{} {}",
                dive::mcp::qualified_tool_name(client.name(), &prompt.name),
                args.join(" ")
            );
            let description: String = prompt.description.unwrap_or_default().chars().take(70).collect();
            out.push_str(&crate::sanitize::visible(&format!("  {usage:<16} {description}\n")));
        }
    }
    if out.is_empty() { out } else { format!("MCP prompts:\n{out}") }
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

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn words_fill_the_arguments_in_order_and_the_last_takes_the_rest() {
        let names = vec!["file".to_owned(), "focus".to_owned()];
        let pairs =
            |v: Vec<(String, String)>| v.into_iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>();
        assert_eq!(
            pairs(fill(&names, "src/lib.rs error handling")),
            ["file=src/lib.rs", "focus=error handling"]
        );
        assert_eq!(pairs(fill(&names, " a ")), ["file=a"]);
        assert!(fill(&names, "").is_empty());
        assert!(fill(&[], "ignored").is_empty());
    }
}
