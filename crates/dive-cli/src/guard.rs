//! What keeps a run's work safe around each turn: termination signals, the session claim,
//! unsaved turns, and where the settings came from. Interactive and print mode call the same
//! three steps: [`Guard::before_turn`], [`Guard::after_turn`], [`Guard::finish`].

use std::path::PathBuf;
use std::sync::Arc;

use dive::{Session, Turn};

use crate::claim::Claim;
use crate::provenance::Provenance;
use crate::save::Keeper;
use crate::signals::Signals;

/// Signals, claim, unsaved turns and the `.env` that was read.
pub struct Guard {
    /// SIGTERM / SIGHUP.
    pub signals: Signals,
    /// Unsaved turns and the write check.
    pub keeper: Keeper,
    /// The claim on the current session.
    pub claim: Option<Claim>,
    /// Where the settings came from (for `/status`).
    pub provenance: Arc<Provenance>,
}

impl Guard {
    /// A guard for sessions in `session_dir`; starts watching termination signals.
    pub fn new(session_dir: PathBuf) -> Self {
        Self {
            signals: Signals::install(),
            keeper: Keeper::new(session_dir),
            claim: None,
            provenance: Arc::default(),
        }
    }

    /// Before a model call: saves turns that failed earlier, then checks that the session
    /// directory takes a write.
    ///
    /// # Errors
    /// Why the turn must not start (the model has not been called).
    pub async fn before_turn(&self) -> Result<(), String> {
        for line in self.keeper.retry().await {
            say_err(&line);
        }
        self.keeper.check_writable()
    }

    /// After a turn: says plainly when it was not saved, and keeps it.
    pub fn after_turn(&self, session: &Arc<dyn Session>, turn: Option<&Turn>, error: Option<&str>) -> bool {
        match self.keeper.after_turn(session, turn, error) {
            Some(line) => {
                say_err(&line);
                true
            }
            None => false,
        }
    }

    /// At exit: unsaved turns are saved or written to a recovery file, the claim released.
    pub async fn finish(&mut self) {
        for line in self.keeper.flush().await {
            say_err(&line);
        }
        if let Some(claim) = self.claim.take() {
            claim.release().await;
        }
        if self.signal_exit().is_some() {
            self.signals.restore_terminal();
        }
    }

    /// The exit code a termination signal asks for.
    pub fn signal_exit(&self) -> Option<u8> {
        self.signals.exit_code()
    }
}

/// A `dive:` line on stderr that never panics on a closed terminal.
pub fn say_err(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "dive: {line}");
}
