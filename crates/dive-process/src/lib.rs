//! Child processes in a process group of their own, so that a timeout, a stop or a drop ends
//! the whole tree a command started — the shell, and whatever it put in the background — not
//! only the shell. Tools that run commands (Bash, Monitor, skills' dynamic context, MCP stdio
//! servers) share these few functions.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! let mut command = tokio::process::Command::new("sh");
//! command.arg("-c").arg("sleep 60 & sleep 60");
//! dive_process::own_group(&mut command);
//! let mut child = command.spawn()?;
//! // … on a timeout or a stop:
//! dive_process::kill_tree(&mut child).await; // both sleeps are gone, and the shell is reaped
//! # Ok(()) }
//! ```
//!
//! On platforms without process groups the functions fall back to killing the child alone.

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]

use tokio::process::{Child, Command};

/// Makes `command` start in a new process group whose id is its pid (`setpgid(0, 0)`), and be
/// killed if its `Child` is dropped.
pub fn own_group(command: &mut Command) -> &mut Command {
    #[cfg(unix)]
    command.process_group(0);
    command.kill_on_drop(true)
}

/// Sends SIGKILL to the process group `pgid` (a child started with [`own_group`] has its pid
/// as its group id). A group already gone is not an error.
///
/// # Errors
/// The system's error when the signal cannot be sent (permission).
pub fn kill_group(pgid: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use nix::errno::Errno;
        use nix::sys::signal::{Signal, killpg};
        use nix::unistd::Pid;
        let raw = i32::try_from(pgid).map_err(|_| std::io::Error::other("a process group id past i32"))?;
        match killpg(Pid::from_raw(raw), Signal::SIGKILL) {
            Ok(()) | Err(Errno::ESRCH) => Ok(()),
            Err(e) => Err(std::io::Error::from(e)),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = pgid;
        Ok(())
    }
}

/// Kills the child's whole group, then the child itself, and reaps it.
pub async fn kill_tree(child: &mut Child) {
    if let Some(pid) = child.id() {
        let _ = kill_group(pid);
    }
    let _ = child.start_kill();
    let _ = child.wait().await;
}

/// Kills a child's group when dropped (a future abandoned mid-command, a panic), unless
/// [`disarm`](Self::disarm)ed.
#[derive(Debug)]
#[must_use = "the group is killed when the guard is dropped"]
pub struct GroupGuard {
    pgid: Option<u32>,
}

impl GroupGuard {
    /// A guard over the group of `child` (started with [`own_group`]).
    pub fn new(child: &Child) -> Self {
        Self { pgid: child.id() }
    }

    /// The group id, while the child had one.
    #[must_use]
    pub fn pgid(&self) -> Option<u32> {
        self.pgid
    }

    /// Kills the group now (what the drop would do).
    pub fn kill(&self) {
        if let Some(pgid) = self.pgid {
            let _ = kill_group(pgid);
        }
    }

    /// Leaves the group alone on drop.
    pub fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}
