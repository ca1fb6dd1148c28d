//! [`BashTool`] (`Bash`): runs a shell command in its own process group, with a timeout that
//! kills the whole tree, merged and capped output, and the exit code reported.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dive_core::{ToolAnnotations, ToolContext, ToolError, ToolOutput, ToolPreview, ToolResult, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncReadExt as _};

use crate::util::truncate_chars;
use crate::workspace::{Access, Workspace};

/// Timeout when none is given (2 minutes).
pub const DEFAULT_BASH_TIMEOUT: Duration = Duration::from_secs(120);
/// Longest timeout a call may ask for (10 minutes).
pub const MAX_BASH_TIMEOUT: Duration = Duration::from_secs(600);
/// Output characters returned; the rest is cut and the cut is said.
pub const MAX_BASH_OUTPUT_CHARS: usize = 30_000;

/// Input of [`BashTool`] (Claude Code's `Bash`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct BashInput {
    /// The command, run with `bash -c`.
    pub command: String,
    /// Timeout in milliseconds (default 120000, at most 600000).
    #[serde(default)]
    pub timeout: Option<u64>,
    /// What the command does, in 5–10 words (shown to people).
    #[serde(default)]
    pub description: Option<String>,
    /// The directory to run in (default: the workspace root; must be inside it).
    #[serde(default)]
    pub working_directory: Option<String>,
}

/// Runs shell commands in the workspace.
///
/// Each command gets its own process group. On timeout, or when the call is dropped, the
/// whole group (children and grandchildren) is killed; so are background processes the
/// command leaves behind when it exits, so nothing outlives the call.
#[derive(Debug, Clone)]
pub struct BashTool {
    workspace: Workspace,
    shell: PathBuf,
    default_timeout: Duration,
}

impl BashTool {
    /// A `Bash` tool running in `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace, shell: PathBuf::from("bash"), default_timeout: DEFAULT_BASH_TIMEOUT }
    }

    /// Uses another shell (it must accept `-c COMMAND`).
    #[must_use]
    pub fn with_shell(mut self, shell: impl Into<PathBuf>) -> Self {
        self.shell = shell.into();
        self
    }

    /// Sets the timeout used when a call gives none (capped at [`MAX_BASH_TIMEOUT`]).
    #[must_use]
    pub fn with_default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout.min(MAX_BASH_TIMEOUT);
        self
    }
}

/// Output gathered from stdout and stderr in arrival order, capped in bytes.
#[derive(Default)]
struct Collected {
    bytes: Vec<u8>,
    dropped: usize,
}

const MAX_COLLECTED_BYTES: usize = MAX_BASH_OUTPUT_CHARS * 4;

async fn pump(mut from: impl AsyncRead + Unpin, into: Arc<Mutex<Collected>>, ctx: ToolContext) {
    let mut buf = vec![0u8; 8192];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let chunk = &buf[..n];
                ctx.stream_output(&String::from_utf8_lossy(chunk));
                if let Ok(mut c) = into.lock() {
                    let room = MAX_COLLECTED_BYTES.saturating_sub(c.bytes.len());
                    let keep = room.min(n);
                    c.bytes.extend_from_slice(&chunk[..keep]);
                    c.dropped += n - keep;
                }
            }
        }
    }
}

/// How a command ended.
enum Ending {
    Exited(Option<i32>),
    TimedOut(Duration),
}

fn render(collected: &Collected, ending: &Ending) -> ToolOutput {
    let mut text = String::from_utf8_lossy(&collected.bytes).into_owned();
    let total_chars = text.chars().count() + collected.dropped;
    if truncate_chars(&mut text, MAX_BASH_OUTPUT_CHARS) || collected.dropped > 0 {
        text.push_str(&format!(
            "\n[output truncated: showing the first {MAX_BASH_OUTPUT_CHARS} of about {total_chars} characters]"
        ));
    }
    match ending {
        Ending::Exited(Some(0)) => {
            ToolOutput::text(if text.is_empty() { "(no output)".into() } else { text })
        }
        Ending::Exited(code) => {
            let code = code.map_or_else(|| "killed by a signal".to_string(), |c| c.to_string());
            ToolOutput::error(format!("<error>Exit code {code}\n{text}</error>"))
        }
        Ending::TimedOut(after) => ToolOutput::error(format!(
            "<error>Command timed out after {} ms; its process tree was killed\n{text}</error>",
            after.as_millis()
        )),
    }
}

impl TypedTool for BashTool {
    type Input = BashInput;

    fn name(&self) -> &str {
        "Bash"
    }

    fn description(&self) -> &str {
        "Runs a bash command in the workspace and returns its combined stdout and stderr (at most 30000 \
         characters) and, on failure, its exit code. Timeout in ms: default 120000, max 600000; on \
         timeout the command and everything it started are killed. Processes left running in the \
         background are killed when the command returns."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::default()
            .with_title("Run shell command")
            .with_read_only(false)
            .with_destructive(true)
    }

    fn preview(&self, input: &BashInput) -> Option<ToolPreview> {
        let summary = input.description.clone().unwrap_or_else(|| "Run a shell command".into());
        Some(ToolPreview::new(summary).with_details(format!("```bash\n{}\n```", input.command)))
    }

    async fn call(&self, input: BashInput, ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let dir = match self
            .workspace
            .resolve(input.working_directory.as_deref().unwrap_or("."), Access::Write)
        {
            Ok(dir) if dir.is_dir() => dir,
            Ok(dir) => {
                return Ok(ToolResult::error(format!("{} is not a directory", self.workspace.display(&dir))));
            }
            Err(e) => return Ok(ToolResult::error(e.to_string())),
        };
        let timeout = input
            .timeout
            .map_or(self.default_timeout, Duration::from_millis)
            .min(MAX_BASH_TIMEOUT)
            .max(Duration::from_millis(1));
        let mut command = tokio::process::Command::new(&self.shell);
        command
            .arg("-c")
            .arg(&input.command)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        dive_process::own_group(&mut command);
        let mut child = command
            .spawn()
            .map_err(|e| ToolError::new(format!("cannot start {}: {e}", self.shell.display())))?;
        let guard = dive_process::GroupGuard::new(&child);
        let collected = Arc::new(Mutex::new(Collected::default()));
        let out = child.stdout.take().map(|s| tokio::spawn(pump(s, collected.clone(), ctx.clone())));
        let err = child.stderr.take().map(|s| tokio::spawn(pump(s, collected.clone(), ctx.clone())));
        let ending = match tokio::time::timeout(timeout, child.wait()).await {
            Ok(Ok(status)) => Ending::Exited(status.code()),
            Ok(Err(e)) => return Err(ToolError::new(format!("waiting for the command failed: {e}"))),
            Err(_) => Ending::TimedOut(timeout),
        };
        // Kill the group now: on timeout that is the point; on exit it stops leftover
        // background processes, which would otherwise hold the pipes open.
        drop(guard);
        let _ = child.wait().await;
        for task in [out, err].into_iter().flatten() {
            let _ = task.await;
        }
        let collected = collected.lock().map_err(|_| ToolError::new("output buffer poisoned"))?;
        Ok(render(&collected, &ending).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_exit_codes_and_truncation() {
        let c = Collected { bytes: b"boom".to_vec(), dropped: 0 };
        let out = render(&c, &Ending::Exited(Some(2)));
        assert!(out.is_error);
        assert_eq!(out.text_content(), "<error>Exit code 2\nboom</error>");
        let big = Collected { bytes: vec![b'x'; MAX_BASH_OUTPUT_CHARS + 5], dropped: 10 };
        let text = render(&big, &Ending::Exited(Some(0))).text_content();
        assert!(text.ends_with(&format!(
            "first {MAX_BASH_OUTPUT_CHARS} of about {} characters]",
            MAX_BASH_OUTPUT_CHARS + 15
        )));
    }
}
