//! SIGTERM and SIGHUP: a hard cancel. The running turn stops now (its tool processes are
//! killed with their process groups when the engine drops them), the engine saves it as
//! incomplete with a bounded write, and `dive` exits with 128 + the signal number (143 for
//! SIGTERM, 129 for SIGHUP). Without a turn running, `dive` leaves the prompt the same way,
//! and puts the terminal back in the mode it found it in (the line editor may be holding it in
//! raw mode when the signal comes).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use dive::CancellationToken;

/// The termination signals `dive` has seen (cheap to clone).
#[derive(Clone, Default)]
pub struct Signals {
    token: CancellationToken,
    code: Arc<AtomicU8>,
    /// The terminal's mode at start (`stty -g`), when stdin is a terminal.
    tty_mode: Arc<Option<String>>,
}

impl Signals {
    /// Starts listening for SIGTERM and SIGHUP (from then on they no longer kill the process
    /// outright). Must run inside the runtime.
    pub fn install() -> Self {
        let signals = Self { tty_mode: Arc::new(tty_mode()), ..Self::default() };
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

    /// Puts the terminal back in the mode it had at start (after a signal interrupted the
    /// line editor; best effort).
    pub fn restore_terminal(&self) {
        if let Some(mode) = self.tty_mode.as_deref() {
            let _ = std::process::Command::new("stty")
                .arg(mode)
                .stdin(std::process::Stdio::inherit())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
    }

    /// The exit code a termination signal asks for (`None` when none arrived).
    pub fn exit_code(&self) -> Option<u8> {
        match self.code.load(Ordering::SeqCst) {
            0 => None,
            code => Some(code),
        }
    }
}

/// The terminal's mode as `stty -g` prints it, when stdin is a terminal.
fn tty_mode() -> Option<String> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() {
        return None;
    }
    let out = std::process::Command::new("stty")
        .arg("-g")
        .stdin(std::process::Stdio::inherit())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let mode = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !mode.is_empty()).then_some(mode)
}
