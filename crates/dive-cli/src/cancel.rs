//! Ctrl-C during a turn: the first press asks for a soft cancel (stop after the current step,
//! running tools finish), the second cancels now. In interactive mode a first press while the
//! model answers (no tool running) stops the stream at once. The turn is saved either way.

use dive::{CancellationToken, SoftCancel};
use tokio::task::JoinHandle;

use crate::interrupt::TurnState;

/// Watches Ctrl-C while a turn runs; stops watching when dropped.
pub struct CancelWatch {
    task: JoinHandle<()>,
}

impl CancelWatch {
    /// Starts watching.
    pub fn start(soft: SoftCancel, hard: CancellationToken) -> Self {
        Self::watch(soft, hard, None)
    }

    /// Starts watching an interactive turn: a first press while the model answers stops it
    /// now instead of after the whole reply.
    pub fn start_interactive(soft: SoftCancel, hard: CancellationToken, turn: TurnState) -> Self {
        Self::watch(soft, hard, Some(turn))
    }

    fn watch(soft: SoftCancel, hard: CancellationToken, turn: Option<TurnState>) -> Self {
        let task = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_err() {
                return;
            }
            if turn.is_some_and(|t| t.model_is_answering()) {
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
