//! SIGTERM and SIGHUP: a hard cancel. The running turn stops now (its tool processes are
//! killed with their process groups when the engine drops them), the engine saves it as
//! incomplete with a bounded write, and `dive` exits with 128 + the signal number (143 for
//! SIGTERM, 129 for SIGHUP). Without a turn running, `dive` leaves the prompt the same way.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use dive::CancellationToken;

/// The termination signals `dive` has seen (cheap to clone).
#[derive(Clone, Default)]
pub struct Signals {
    token: CancellationToken,
    code: Arc<AtomicU8>,
}

impl Signals {
    /// Starts listening for SIGTERM and SIGHUP (from then on they no longer kill the process
    /// outright). Must run inside the runtime.
    pub fn install() -> Self {
        let signals = Self::default();
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let (token, code) = (signals.token.clone(), Arc::clone(&signals.code));
            match (signal(SignalKind::terminate()), signal(SignalKind::hangup())) {
                (Ok(mut term), Ok(mut hup)) => {
                    tokio::spawn(async move {
                        let (name, exit) = tokio::select! {
                            _ = term.recv() => ("SIGTERM", 143),
                            _ = hup.recv() => ("SIGHUP", 129),
                        };
                        code.store(exit, Ordering::SeqCst);
                        token.cancel();
                        let _ =
                            writeln!(std::io::stderr(), "\n(dive: {name}: stopping now and saving the turn)");
                    });
                }
                (Err(e), _) | (_, Err(e)) => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "dive: cannot watch SIGTERM/SIGHUP ({e}); they will end dive without saving"
                    );
                }
            }
        }
        signals
    }

    /// A token for one turn's hard cancel: cancelled by a termination signal (and, being a
    /// child, cancellable on its own by Ctrl-C without ending the process).
    pub fn turn_token(&self) -> CancellationToken {
        self.token.child_token()
    }

    /// Completes when a termination signal has arrived.
    pub async fn received(&self) {
        self.token.cancelled().await;
    }

    /// The exit code a termination signal asks for (`None` when none arrived).
    pub fn exit_code(&self) -> Option<u8> {
        match self.code.load(Ordering::SeqCst) {
            0 => None,
            code => Some(code),
        }
    }
}
