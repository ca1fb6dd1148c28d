//! Ctrl-C during a turn: the first press asks for a soft cancel (stop after the current step,
//! running tools finish), the second cancels now. The turn is saved either way.

use dive::{CancellationToken, SoftCancel};
use tokio::task::JoinHandle;

/// Watches Ctrl-C while a turn runs; stops watching when dropped.
pub struct CancelWatch {
    task: JoinHandle<()>,
}

impl CancelWatch {
    /// Starts watching.
    pub fn start(soft: SoftCancel, hard: CancellationToken) -> Self {
        let task = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            soft.cancel();
            eprintln!("\n(stopping after the current step; press Ctrl-C again to stop now)");
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            hard.cancel();
            eprintln!("(stopping now)");
        });
        Self { task }
    }
}

impl Drop for CancelWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}
