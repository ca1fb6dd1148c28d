//! A real terminal for end-to-end tests: a tmux server of the test's own, a window `t` of a
//! fixed size, and helpers to read its screen and quote a command line for it.

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
