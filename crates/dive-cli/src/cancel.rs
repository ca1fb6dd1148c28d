//! Ctrl-C during a turn: the first press asks for a soft cancel (stop after the current step,
//! running tools finish), the second cancels now; but a first press while the model answers
//! (no tool running) stops the stream at once. The turn is saved either way.

use dive::{CancellationToken, SoftCancel};
use tokio::task::JoinHandle;

use crate::interrupt::TurnState;

/// Watches Ctrl-C while a turn runs; stops watching when dropped.
pub struct CancelWatch {
    task: JoinHandle<()>,
}

impl CancelWatch {
    /// Starts watching a turn whose items `turn` follows: a first press while the model
    /// answers (no tool running) stops it now instead of after the whole reply.
    pub fn start(soft: SoftCancel, hard: CancellationToken, turn: TurnState) -> Self {
        let task = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            if turn.model_is_answering() {
                hard.cancel();
                eprintln!("\n(stopped)");
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
