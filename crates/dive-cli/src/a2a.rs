//! A2A in the CLI: `dive a2a serve` exposes the configured agent (its model, toolkit,
//! permission mode, skills, subagents and MCP servers) as an A2A 1.0 server, its tasks kept in
//! `a2a-tasks.db` in the session directory so a restart loses none; `dive a2a call URL "prompt"`
//! sends a prompt to a remote agent and prints its answer. `DIVE_A2A_TOKEN`, when set, is the
//! bearer token the server requires and the client sends.
//!
//! A served agent has nobody at a terminal: a call that would ask permission is refused, as in
//! print mode, unless the permission mode or a rule allows it.

use std::path::Path;
use std::sync::Arc;

use dive::Secret;
use dive::a2a::{A2aServer, RemoteAgent, TaskResult};
use dive::session::SqliteStore;

/// The task store's file in the session directory.
pub const TASKS_FILE: &str = "a2a-tasks.db";

/// The bearer token from `DIVE_A2A_TOKEN` (unset or empty: none).
pub fn token_from_env() -> Option<Secret> {
    std::env::var("DIVE_A2A_TOKEN").ok().filter(|t| !t.is_empty()).map(Secret::new)
}

/// Serves `agent` on `addr` until Ctrl-C.
pub async fn serve(
    agent: dive::Agent,
    session_dir: &Path,
    addr: &str,
    url: Option<String>,
    token: Option<Secret>,
) -> Result<(), String> {
    let path = session_dir.join(TASKS_FILE);
    let store = SqliteStore::open(&path).map_err(|e| crate::save::open_error(&path, &e))?;
    let mut builder = A2aServer::builder(Arc::new(agent)).store(Arc::new(store));
    if let Some(url) = url {
        builder = builder.url(url);
    }
    if let Some(token) = token {
        builder = builder.bearer_token(token);
    }
    let server = builder.build().map_err(|e| e.to_string())?;
    let running = server.bind(addr).await.map_err(|e| format!("cannot serve A2A on {addr}: {e}"))?;
    eprintln!(
        "dive: serving A2A at {} (agent card at {}.well-known/agent-card.json; Ctrl-C stops)",
        running.url(),
        running.url()
    );
    let _ = tokio::signal::ctrl_c().await;
    running.shutdown().await;
    Ok(())
}

/// How `dive a2a call` ended: the exit code and what it printed.
pub async fn call(url: &str, prompt: &str, task: Option<&str>, token: Option<Secret>) -> Result<u8, String> {
    let mut remote = RemoteAgent::from_url(url).await.map_err(|e| e.to_string())?;
    if let Some(token) = &token {
        remote = remote.with_bearer_token(token).map_err(|e| e.to_string())?;
    }
    let result = match task {
        Some(id) => remote.send_text_on_task(id, prompt).await,
        None => remote.send_text(prompt).await,
    }
    .map_err(|e| e.to_string())?;
    Ok(report(url, &result))
}

/// Prints a task's result: the answer on stdout; a question, a failure or a cancel on stderr
/// with what to do. Returns the exit code (0 completed, 3 waiting for input, 1 otherwise).
fn report(url: &str, result: &TaskResult) -> u8 {
    let text = crate::sanitize::for_stderr(&result.text);
    if result.is_completed() {
        say!("{}", result.text.trim_end());
        0
    } else if result.is_input_required() {
        eprintln!("{text}");
        eprintln!(
            "dive: the agent needs an answer; reply with `dive a2a call {url} --task {} \"…\"`",
            result.id
        );
        3
    } else if result.is_canceled() {
        eprintln!(
            "dive: the task {} was canceled{}",
            result.id,
            if text.is_empty() { String::new() } else { format!(": {text}") }
        );
        1
    } else {
        eprintln!(
            "dive: the task {} failed{}",
            result.id,
            if text.is_empty() { String::new() } else { format!(": {text}") }
        );
        1
    }
}
