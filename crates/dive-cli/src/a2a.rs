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

/// A remote A2A agent as a subagent type of the `Agent` tool (`--a2a-agent name=URL`): each
/// run is a fresh task on a fresh context, cancelled on the remote side when the parent
/// cancels or `TaskStop` stops it.
struct RemoteSubagent {
    card: dive::a2a::types::AgentCard,
    token: Option<Secret>,
}

impl RemoteSubagent {
    fn client(&self) -> Result<RemoteAgent, String> {
        let remote = RemoteAgent::from_card(self.card.clone()).map_err(|e| e.to_string())?;
        match &self.token {
            Some(token) => remote.with_bearer_token(token).map_err(|e| e.to_string()),
            None => Ok(remote),
        }
    }
}

impl dive::subagent::ExternalAgent for RemoteSubagent {
    fn run<'a>(
        &'a self,
        task: String,
        cancel: dive::CancellationToken,
    ) -> dive::BoxFuture<'a, dive::subagent::Report> {
        use dive::subagent::Report;
        Box::pin(async move {
            let remote = match self.client() {
                Ok(remote) => remote,
                Err(e) => return Report::stopped("", e),
            };
            tokio::select! {
                result = remote.send_text(&task) => match result {
                    Ok(r) if r.is_completed() => Report::answered(r.text),
                    Ok(r) if r.is_input_required() => {
                        Report::stopped(r.text, "the remote agent asked a question a subagent cannot answer")
                    }
                    Ok(r) if r.is_canceled() => Report::stopped(r.text, "the remote task was canceled"),
                    Ok(r) => Report::stopped(r.text, "the remote task failed"),
                    Err(e) => Report::stopped("", format!("the remote agent could not be reached: {e}")),
                },
                () = cancel.cancelled() => {
                    if let Some(id) = remote.last_task_id() {
                        let _ = remote.cancel_task(&id).await;
                    }
                    Report::stopped("", "canceled")
                }
            }
        })
    }
}

/// The remote agents `--a2a-agent name=URL` names, each read from its agent card (its
/// description is what the model sees). One that cannot be read is reported and left out.
pub async fn remote_subagents(
    specs: &[String],
    token: Option<Secret>,
) -> Result<Vec<(dive::subagent::Definition, Arc<dyn dive::subagent::ExternalAgent>)>, String> {
    let mut out = Vec::new();
    for spec in specs {
        let Some((name, url)) =
            spec.split_once('=').filter(|(n, u)| !n.trim().is_empty() && !u.trim().is_empty())
        else {
            return Err(format!(
                "--a2a-agent {spec:?}: expected NAME=URL, e.g. researcher=http://127.0.0.1:8080/"
            ));
        };
        let fetched =
            tokio::time::timeout(std::time::Duration::from_secs(15), RemoteAgent::from_url(url.trim())).await;
        let card = match fetched {
            Ok(Ok(remote)) => remote.card().clone(),
            Ok(Err(e)) => {
                eprintln!("dive: the A2A agent {name} at {url} is left out: {e}");
                continue;
            }
            Err(_) => {
                eprintln!(
                    "dive: the A2A agent {name} at {url} is left out: its card did not arrive within 15 s"
                );
                continue;
            }
        };
        let description = format!("{} (a remote agent)", card.description.trim());
        let definition = dive::subagent::Definition::new(name.trim(), description);
        out.push((
            definition,
            Arc::new(RemoteSubagent { card, token: token.clone() }) as Arc<dyn dive::subagent::ExternalAgent>,
        ));
    }
    Ok(out)
}
