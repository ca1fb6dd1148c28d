//! The stdio server's child process: started in its own process group (as dive-toolkit's
//! Bash and dive-subagent's Monitor start theirs) and killed with its whole tree when the
//! connection is dropped or start-up times out; its stderr kept (the last lines) for errors.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::config::StdioConfig;
use crate::error::McpError;

/// How many stderr lines are kept for error messages.
const STDERR_LINES: usize = 20;

/// A running stdio server. Dropping it kills the server's process group (the server and
/// everything it started) and the server itself.
pub(crate) struct ServerProcess {
    child: Child,
    pgid: Option<u32>,
    stderr: StderrTail,
}

impl std::fmt::Debug for ServerProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerProcess").field("pid", &self.child.id()).finish_non_exhaustive()
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
        Ok((Self { child, pgid, stderr }, stdout, stdin))
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
        if let Some(pgid) = self.pgid {
            let _ = dive_process::kill_group(pgid);
        }
        let _ = self.child.start_kill();
    }
}
