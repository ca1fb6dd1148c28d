//! Whether a child process a test killed is gone, for tests of process-group cleanup.

use std::time::{Duration, Instant};

/// Whether process `pid` is gone: no such process, or a zombie waiting for its reaper (it
/// runs no more code and holds nothing). Reads `/proc`.
#[must_use]
pub fn is_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Whether `pid` is gone within `limit` (a SIGKILL is delivered asynchronously), checking
/// every 10 ms.
///
/// The first sight of the process gone decides: once it is reaped its pid is free, and on a
/// busy machine another process may take it at once, so a second look could see a stranger.
#[must_use]
pub fn gone_within(pid: i32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if is_gone(pid) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
