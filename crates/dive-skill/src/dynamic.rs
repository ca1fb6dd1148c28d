//! [`DynamicContext`]: the opt-in `` !`command` `` runner. Each command is the skill author's
//! text, run by a shell as written; the invocation's arguments reach it only as data — the
//! positional parameters `$1`…, and the environment variables `ARGUMENTS` and one per named
//! argument — so nothing a model or user passes is ever parsed as shell code.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Command;

use crate::expand::Arguments;
use crate::skill::Skill;

/// Runs `` !`command` `` dynamic context in skill bodies. Off unless an application passes
/// one to [`SkillExtension::dynamic_context`](crate::SkillExtension::dynamic_context).
///
/// ```
/// use std::time::Duration;
/// use dive_skill::DynamicContext;
/// let dynamic = DynamicContext::new("/path/to/project").with_timeout(Duration::from_secs(5));
/// assert_eq!(dynamic.timeout(), Duration::from_secs(5));
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct DynamicContext {
    cwd: PathBuf,
    shell: String,
    timeout: Duration,
    max_output: usize,
}

impl DynamicContext {
    /// Commands run in `cwd` with `sh`, 10 seconds each, at most 30,000 bytes of output.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self { cwd: cwd.into(), shell: "sh".into(), timeout: Duration::from_secs(10), max_output: 30_000 }
    }

    /// The shell used when a skill names none (`shell:`); it is run as `SHELL -c COMMAND`.
    pub fn with_shell(mut self, shell: impl Into<String>) -> Self {
        self.shell = shell.into();
        self
    }

    /// How long one command may run before its whole process group is killed.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The most output kept from one command.
    pub fn with_max_output(mut self, bytes: usize) -> Self {
        self.max_output = bytes;
        self
    }

    /// The time limit of one command.
    #[must_use]
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The environment variable a named argument is passed in: the name with `-` as `_`.
    #[must_use]
    pub fn variable_for(name: &str) -> String {
        name.replace('-', "_")
    }

    /// Runs one command and returns what replaces it in the body: its output, or a note
    /// saying why there is none. Never fails: a failing command is part of the context.
    pub(crate) async fn run(&self, command: &str, skill: &Skill, args: &Arguments) -> String {
        let shell = skill.shell.as_deref().unwrap_or(&self.shell);
        let mut cmd = Command::new(shell);
        // `sh -c SCRIPT NAME ARG…`: the arguments become $1… inside the script, as data.
        cmd.arg("-c").arg(command).arg(&skill.name).args(args.positional());
        cmd.env("ARGUMENTS", args.raw());
        for (i, name) in skill.arguments.iter().enumerate() {
            let value = args.positional().get(i).map_or("", String::as_str);
            cmd.env(Self::variable_for(name), value);
        }
        if let Some(dir) = skill.dir() {
            cmd.env("DIVE_SKILL_DIR", dir);
        }
        cmd.current_dir(&self.cwd).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        dive_process::own_group(&mut cmd);
        let mut child = match cmd.spawn() {
            Ok(child) => child,
            Err(e) => return format!("[command `{command}` could not start: {e}]"),
        };
        let pid = child.id();
        let (mut stdout, mut stderr) = (child.stdout.take(), child.stderr.take());
        let limit = u64::try_from(self.max_output).unwrap_or(u64::MAX);
        let work = async {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let read_out = async {
                if let Some(s) = stdout.as_mut() {
                    let _ = s.take(limit).read_to_end(&mut out).await;
                    let _ = tokio::io::copy(s, &mut tokio::io::sink()).await;
                }
            };
            let read_err = async {
                if let Some(s) = stderr.as_mut() {
                    let _ = s.take(limit).read_to_end(&mut err).await;
                    let _ = tokio::io::copy(s, &mut tokio::io::sink()).await;
                }
            };
            tokio::join!(read_out, read_err);
            let status = child.wait().await;
            (status, out, err)
        };
        let Ok((status, out, err)) = tokio::time::timeout(self.timeout, work).await else {
            kill_group(pid);
            return format!("[command `{command}` timed out after {} s]", self.timeout.as_secs_f64());
        };
        kill_group(pid); // whatever the command left running in the background goes too
        let text = String::from_utf8_lossy(&out).trim_end().to_owned();
        match status {
            Ok(status) if status.success() => text,
            Ok(status) => {
                let err = String::from_utf8_lossy(&err);
                let code = status.code().map_or_else(|| "a signal".to_owned(), |c| format!("status {c}"));
                let sep = if text.is_empty() { "" } else { "\n" };
                format!("{text}{sep}[command `{command}` exited with {code}: {}]", err.trim())
            }
            Err(e) => format!("[command `{command}` failed: {e}]"),
        }
    }
}

/// Kills the command's group (its pid, when it had one).
fn kill_group(pid: Option<u32>) {
    if let Some(pid) = pid {
        let _ = dive_process::kill_group(pid);
    }
}
