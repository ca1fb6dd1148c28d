//! [`MonitorTool`]: the `Monitor` tool (`command`, `description`, `timeout_ms`), which runs a
//! shell command in the background and delivers its output lines to the model as
//! notifications; long lines are cut, and a timeout or `TaskStop` kills the whole process
//! tree.

use std::process::Stdio;
use std::time::Duration;

use dive_core::{BoxFuture, Tool, ToolContext, ToolError, ToolResult};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};

use crate::runs::{RunHandle, RunKind, RunStatus, Runs};

/// The timeout when the model gives none: five minutes.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// The longest timeout the model may ask for: one hour.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);
/// Lines longer than this many bytes are cut and marked `[line truncated]`.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

#[derive(Debug, Deserialize)]
struct Input {
    command: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    timeout_ms: Option<u64>,
}

/// The `Monitor` tool over a [`Runs`] tracker.
///
/// ```
/// use dive_core::Tool;
/// use dive_subagent::{MonitorTool, Runs};
/// let tool = MonitorTool::new(Runs::new());
/// assert_eq!(tool.name(), "Monitor");
/// assert_eq!(tool.input_schema()["required"][0], "command");
/// ```
#[derive(Debug, Clone)]
pub struct MonitorTool {
    runs: Runs,
    shell: String,
    schema: Value,
}

impl MonitorTool {
    /// The tool over `runs`, running commands with `sh -c`.
    #[must_use]
    pub fn new(runs: Runs) -> Self {
        let schema = json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The shell command to run in the background"},
                "description": {"type": "string", "description": "A short description of what the command does"},
                "timeout_ms": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TIMEOUT.as_millis() as u64,
                    "description": "Kill the command after this many milliseconds (default 300000, max 3600000)"
                }
            },
            "required": ["command"],
            "additionalProperties": false
        });
        Self { runs, shell: "sh".into(), schema }
    }

    /// Starts `command` and returns its run (what the tool does, for callers outside a model).
    ///
    /// # Errors
    /// The spawn error when the shell cannot start.
    pub fn start(&self, command: &str, description: &str, timeout: Duration) -> std::io::Result<RunHandle> {
        let mut cmd = Command::new(&self.shell);
        cmd.arg("-c").arg(command).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        dive_process::own_group(&mut cmd);
        let mut child = cmd.spawn()?;
        let handle = self.runs.start(RunKind::Monitor, description, true);
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let worker = handle.clone();
        tokio::spawn(async move {
            let (status, result) = watch(child, stdout, stderr, &worker, timeout.min(MAX_TIMEOUT)).await;
            worker.finish(status, result);
        });
        Ok(handle)
    }
}

async fn watch(
    mut child: Child,
    stdout: Option<impl AsyncRead + Unpin>,
    stderr: Option<impl AsyncRead + Unpin>,
    handle: &RunHandle,
    timeout: Duration,
) -> (RunStatus, String) {
    let output = async {
        tokio::join!(read_lines(stdout, handle), read_lines(stderr, handle));
        child.wait().await
    };
    let ended = tokio::select! {
        status = output => Ok(status),
        () = handle.token().cancelled() => Err((RunStatus::Stopped, "stopped by TaskStop".to_owned())),
        () = tokio::time::sleep(timeout) => {
            Err((RunStatus::Failed, format!("timed out after {} ms and was killed", timeout.as_millis())))
        }
    };
    match ended {
        Ok(Ok(status)) if status.success() => (RunStatus::Completed, "exited with code 0".to_owned()),
        Ok(Ok(status)) => (RunStatus::Failed, format!("exited with {status}")),
        Ok(Err(e)) => (RunStatus::Failed, format!("waiting for the command failed: {e}")),
        Err((status, text)) => {
            kill_tree(&mut child).await;
            (status, text)
        }
    }
}

/// Kills the command's whole process group (the shell and everything it started), then
/// reaps the shell.
async fn kill_tree(child: &mut Child) {
    if let Some(Err(e)) = child.id().map(dive_process::kill_group) {
        tracing::warn!(error = %e, "killing a monitored command's process group failed");
    }
    let _ = child.start_kill();
    let _ = child.wait().await;
}

/// Sends every line to the run, cutting lines longer than [`MAX_LINE_BYTES`] without ever
/// holding more than that of one line.
async fn read_lines(reader: Option<impl AsyncRead + Unpin>, handle: &RunHandle) {
    let Some(reader) = reader else { return };
    let mut reader = BufReader::new(reader);
    let mut line: Vec<u8> = Vec::new();
    let mut cut = false;
    loop {
        let buf = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(buf) => buf,
        };
        let (chunk, newline) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(line.len());
        if chunk.len() > room {
            cut = true;
        }
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len() + usize::from(newline);
        reader.consume(used);
        if newline {
            emit(handle, &mut line, &mut cut);
        }
    }
    if !line.is_empty() || cut {
        emit(handle, &mut line, &mut cut);
    }
}

fn emit(handle: &RunHandle, line: &mut Vec<u8>, cut: &mut bool) {
    let mut text = String::from_utf8_lossy(line).trim_end_matches('\r').to_owned();
    if *cut {
        text.push_str(" [line truncated]");
    }
    handle.notify(text);
    line.clear();
    *cut = false;
}

impl Tool for MonitorTool {
    fn name(&self) -> &str {
        "Monitor"
    }

    fn description(&self) -> &str {
        "Runs a shell command in the background and streams its output lines to you as notifications \
         (before your next turn), e.g. to watch a build, a test run or a log. Returns a task ID at once; \
         stop the command with TaskStop. The command and everything it starts is killed at the timeout \
         (default 5 minutes, at most 1 hour)."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn call(&self, input: Value, _ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let input: Input = match serde_json::from_value(input) {
                Ok(input) => input,
                Err(e) => return Ok(ToolResult::error(format!("Invalid Monitor input: {e}"))),
            };
            let timeout = input.timeout_ms.map_or(DEFAULT_TIMEOUT, Duration::from_millis);
            if timeout > MAX_TIMEOUT {
                return Ok(ToolResult::error("timeout_ms may be at most 3600000 (one hour)"));
            }
            let description = input.description.unwrap_or_else(|| input.command.clone());
            Ok(match self.start(&input.command, &description, timeout) {
                Ok(run) => ToolResult::text(format!(
                    "Started monitor {}: {description}. Its output lines are delivered to you as they \
                     arrive; stop it with TaskStop.",
                    run.id()
                )),
                Err(e) => ToolResult::error(format!("Cannot start the command: {e}")),
            })
        })
    }
}
