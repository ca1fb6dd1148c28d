//! A real terminal for end-to-end tests: a tmux server of the test's own, a window `t` of a
//! fixed size, and helpers to read its screen and quote a command line for it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of its own (its own socket), killed on drop.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// A new server on a socket of its own.
    pub fn new() -> Self {
        Self { socket: format!("dive-test-{}-{}", std::process::id(), dive_nanos()) }
    }

    /// Runs a tmux command on this server; panics when it fails.
    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("tmux runs");
        assert!(out.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible text of window `t`.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    /// Waits (up to 30 s) until the screen shows `needle`; returns the screen.
    pub fn wait_for(&self, needle: &str) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "no {needle:?} on the screen:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-L").arg(&self.socket).arg("kill-server").status();
    }
}

fn dive_nanos() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
}

/// `s` quoted for `sh`.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The shell line that runs `dive` on the mock with a clean environment plus `extra`, then
/// prints how it exited and keeps the window open.
pub fn dive_line(api: &super::MockApi, sessions: &Path, workspace: &Path, extra: &[&str]) -> String {
    dive_line_then(api, sessions, workspace, extra, "echo EXITED-$?; sleep 30")
}

/// Like [`dive_line`], running the shell commands `then` after `dive` exits.
pub fn dive_line_then(
    api: &super::MockApi,
    sessions: &Path,
    workspace: &Path,
    extra: &[&str],
    then: &str,
) -> String {
    let mut parts = vec![
        "env -i".to_owned(),
        format!("PATH={}", sh_quote(&std::env::var("PATH").unwrap_or_default())),
        format!("HOME={}", sh_quote(&sessions.display().to_string())),
        format!("ANTHROPIC_BASE_URL={}", sh_quote(&api.server.uri())),
        "ANTHROPIC_API_KEY=sk-ant-test-key".to_owned(),
    ];
    parts.extend(extra.iter().map(|e| (*e).to_owned()));
    parts.extend([
        sh_quote(env!("CARGO_BIN_EXE_dive")),
        "--session-dir".to_owned(),
        sh_quote(&sessions.display().to_string()),
        "--workspace".to_owned(),
        sh_quote(&workspace.display().to_string()),
        format!("; {then}"),
    ]);
    parts.join(" ")
}
