//! The stdio server's child process: started in its own process group (as dive-toolkit's
//! Bash and dive-subagent's Monitor start theirs) and killed with its whole tree when the
//! connection is dropped or start-up times out; its stderr kept (the last lines) for errors.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

use crate::config::StdioConfig;
use crate::error::McpError;

/// How many stderr lines are kept for error messages.
const STDERR_LINES: usize = 20;

/// A running stdio server. Dropping it kills the server's process group (the server and
/// everything it started) and the server itself. A watcher task owns the child and says when
/// it exited, so a request to a dead server fails at once even when something it started
/// still holds its pipes open.
pub(crate) struct ServerProcess {
    pgid: Option<u32>,
    stderr: StderrTail,
    exited: watch::Receiver<bool>,
    /// Dropped with the process: the watcher then kills the child and reaps it.
    _kill: oneshot::Sender<()>,
}

impl std::fmt::Debug for ServerProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerProcess").field("pid", &self.pgid).finish_non_exhaustive()
    }
}

/// The last lines a server wrote to stderr, shared with the reader task.
#[derive(Clone, Default)]
pub(crate) struct StderrTail(Arc<Mutex<VecDeque<String>>>);

impl StderrTail {
    fn push(&self, line: String) {
        if let Ok(mut lines) = self.0.lock() {
            if lines.len() == STDERR_LINES {
                lines.pop_front();
            }
            lines.push_back(line);
        }
    }

    /// The kept lines, newline-joined.
    pub(crate) fn text(&self) -> String {
        self.0.lock().map(|l| l.iter().map(String::as_str).collect::<Vec<_>>().join("\n")).unwrap_or_default()
    }
}

impl ServerProcess {
    /// Starts `config` for the server `name`, returning the process and its stdout/stdin.
    pub(crate) fn spawn(
        name: &str,
        config: &StdioConfig,
    ) -> Result<(Self, ChildStdout, ChildStdin), McpError> {
        let mut cmd = Command::new(&config.command);
        cmd.args(&config.args)
            .envs(&config.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cwd) = &config.cwd {
            cmd.current_dir(cwd);
        }
        dive_process::own_group(&mut cmd);
        let spawn_error =
            |source| McpError::Spawn { server: name.to_owned(), command: config.command.clone(), source };
        let mut child = cmd.spawn().map_err(spawn_error)?;
        let pgid = child.id();
        let missing = || spawn_error(std::io::Error::other("the child's pipes were not opened"));
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stderr = StderrTail::default();
        if let Some(pipe) = child.stderr.take() {
            let tail = stderr.clone();
            let server = name.to_owned();
            tokio::spawn(async move {
                let mut lines = BufReader::new(pipe).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::debug!(server = %server, "mcp server stderr: {line}");
                    tail.push(line);
                }
            });
        }
        let (exited_tx, exited) = watch::channel(false);
        let (kill, killed) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let kill_requested = tokio::select! {
                _ = child.wait() => false,
                _ = killed => true,
            };
            if kill_requested {
                let _ = child.start_kill();
                let _ = child.wait().await;
            }
            let _ = exited_tx.send(true);
        });
        Ok((Self { pgid, stderr, exited, _kill: kill }, stdout, stdin))
    }

    /// Whether the server process has exited.
    pub(crate) fn has_exited(&self) -> bool {
        *self.exited.borrow()
    }

    /// Resolves once the server process has exited (at once if it already has).
    pub(crate) fn exited(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut exited = self.exited.clone();
        async move {
            while !*exited.borrow_and_update() {
                if exited.changed().await.is_err() {
                    return;
                }
            }
        }
    }

    /// The server's process id (also its process group id).
    pub(crate) fn id(&self) -> Option<u32> {
        self.pgid
    }

    /// The last lines the server wrote to stderr.
    pub(crate) fn stderr(&self) -> StderrTail {
        self.stderr.clone()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // The whole group at once; dropping `_kill` then has the watcher kill and reap the
        // server itself.
        if let Some(pgid) = self.pgid {
            let _ = dive_process::kill_group(pgid);
        }
    }
}
