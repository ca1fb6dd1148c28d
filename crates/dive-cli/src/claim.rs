//! One `dive` process a session: the session is claimed at start (a lease in the store,
//! renewed in the background) and released at exit. A second process is told at start which
//! process holds it, before it pays for a turn it could not save, and is offered a fork.

use std::sync::Arc;
use std::time::Duration;

use dive::{Session, SessionError};
use tokio::task::JoinHandle;

/// How long a claim lives without renewal: a process that died stops blocking the session
/// after this long.
pub const TTL: Duration = Duration::from_secs(30);

/// A held claim, renewed until released or dropped.
pub struct Claim {
    session: Arc<dyn Session>,
    owner: String,
    renewal: JoinHandle<()>,
}

/// Why the session could not be claimed.
pub enum Refused {
    /// Another process holds it.
    Held {
        /// Who, as that process wrote it (`dive pid 1234 on host`).
        owner: String,
    },
    /// The store failed.
    Store(String),
}

/// This process as a claim owner: pid and host, so the user can find it.
pub fn owner() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty());
    match host {
        Some(host) => format!("dive pid {} on {host}", std::process::id()),
        None => format!("dive pid {}", std::process::id()),
    }
}

/// Whether `holder` (as [`owner`] wrote it) is a process of this machine that no longer
/// runs. Unknown formats and other machines count as alive (their lease runs out instead).
fn holder_is_gone(holder: &str) -> bool {
    let Some(rest) = holder.strip_prefix("dive pid ") else { return false };
    let (pid, host) = rest.split_once(" on ").map_or((rest, None), |(p, h)| (p, Some(h)));
    let Ok(pid) = pid.trim().parse::<u32>() else { return false };
    let this = owner();
    let this_host = this.split_once(" on ").map(|(_, h)| h);
    if host != this_host || pid == std::process::id() {
        return false;
    }
    !std::path::Path::new(&format!("/proc/{pid}")).exists() && std::path::Path::new("/proc/self").exists()
}

impl Claim {
    /// Claims `session` for this process. A store without claims gives `Ok(None)`.
    ///
    /// # Errors
    /// [`Refused::Held`] with the holder when another process has it.
    pub async fn take(session: Arc<dyn Session>) -> Result<Option<Self>, Refused> {
        let Some(claimer) = session.as_claimer() else { return Ok(None) };
        let owner = owner();
        let mut first = true;
        loop {
            match claimer.claim(&owner, TTL).await {
                Ok(()) => break,
                // A dive on this machine that no longer runs (killed, crashed) blocks nobody.
                Err(SessionError::Claimed { owner: holder, .. }) if first && holder_is_gone(&holder) => {
                    first = false;
                    let _ = claimer.release(&holder).await;
                }
                Err(SessionError::Claimed { owner, .. }) => return Err(Refused::Held { owner }),
                Err(e) => return Err(Refused::Store(e.to_string())),
            }
        }
        let (s, who) = (Arc::clone(&session), owner.clone());
        let renewal = tokio::spawn(async move {
            let mut warned = false;
            loop {
                tokio::time::sleep(TTL / 3).await;
                let Some(claimer) = s.as_claimer() else { return };
                match claimer.claim(&who, TTL).await {
                    Ok(()) => warned = false,
                    Err(SessionError::Claimed { owner, .. }) => {
                        warn(&format!(
                            "{owner} took over session {} (this process was paused too long); new turns \
                             here cannot be saved to it — use /clear or restart with --fork-session",
                            s.id()
                        ));
                        return;
                    }
                    Err(e) if !warned => {
                        warned = true;
                        warn(&format!("cannot renew the claim on session {}: {e}", s.id()));
                    }
                    Err(_) => {}
                }
            }
        });
        Ok(Some(Self { session, owner, renewal }))
    }

    /// Stops renewing and releases the claim (bounded; a failure only means the lease runs
    /// out on its own).
    pub async fn release(self) {
        self.renewal.abort();
        if let Some(claimer) = self.session.as_claimer() {
            let _ = tokio::time::timeout(Duration::from_secs(2), claimer.release(&self.owner)).await;
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        self.renewal.abort();
    }
}

fn warn(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "\ndive: warning: {text}");
}

/// The refusal in the user's words, with the way out for print mode.
pub fn held_message(session: &str, owner: &str) -> String {
    format!(
        "session {session} is in use by {owner}. Wait for it to finish, or continue from it in a new \
         session with --fork-session (e.g. `dive --resume {session} --fork-session -p …`); if that process \
         is gone, its claim expires within {} s",
        TTL.as_secs()
    )
}

/// Claims the session of `setup` for this process. When another process holds it: with
/// `input` (interactive) the user is offered a fork; without (print mode) it is an error that
/// says how to fork. `fork` (`--fork-session`) continues a resumed session in a copy first.
///
/// # Errors
/// The refusal, or why the fork failed, in the user's words.
pub async fn hold(
    setup: &mut crate::setup::Setup,
    input: Option<&crate::input::Input>,
    fork: bool,
) -> Result<(), String> {
    if fork && setup.resumed {
        fork_into_new(setup).await?;
    }
    let id = setup.session.id().to_owned();
    let owner = match Claim::take(Arc::clone(&setup.session)).await {
        Ok(claim) => {
            setup.guard.claim = claim;
            return Ok(());
        }
        Err(Refused::Store(e)) => {
            warn(&format!("cannot claim session {id} ({e}); another dive process could write to it too"));
            return Ok(());
        }
        Err(Refused::Held { owner }) => owner,
    };
    let Some(input) = input else { return Err(held_message(&id, &owner)) };
    eprintln!("session {id} is in use by {owner}.");
    let input = input.clone();
    let answer = tokio::task::spawn_blocking(move || {
        input.read_line("Continue in a new session copied from it? [Y/n] ")
    })
    .await;
    let yes = match answer {
        Ok(crate::input::Line::Text(line)) => {
            let line = line.trim().to_ascii_lowercase();
            line.is_empty() || line == "y" || line == "yes"
        }
        _ => false,
    };
    if !yes {
        return Err(held_message(&id, &owner));
    }
    fork_into_new(setup).await?;
    setup.guard.claim = Claim::take(Arc::clone(&setup.session)).await.map_err(|r| match r {
        Refused::Held { owner } => held_message(setup.session.id(), &owner),
        Refused::Store(e) => e,
    })?;
    Ok(())
}

/// Replaces the session of `setup` with a new copy of it (open turn included).
async fn fork_into_new(setup: &mut crate::setup::Setup) -> Result<(), String> {
    use dive::SessionStore;
    let from = setup.session.id().to_owned();
    let to = dive::new_id("session");
    let options = dive::ForkOptions::default().with_open_turn();
    setup.session = setup
        .store
        .fork(&from, &to, &options)
        .await
        .map_err(|e| format!("cannot fork session {from}: {e}"))?;
    eprintln!("forked session {from} into {to} (the original is unchanged)");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_dead_process_of_this_machine_gives_up_its_claim() {
        let mut dead = std::process::Command::new("true").spawn().unwrap();
        let pid = dead.id();
        dead.wait().unwrap();
        let host = owner().split_once(" on ").map(|(_, h)| format!(" on {h}")).unwrap_or_default();
        assert!(holder_is_gone(&format!("dive pid {pid}{host}")));
        assert!(!holder_is_gone(&owner()), "this process is alive");
        assert!(!holder_is_gone(&format!("dive pid {pid} on some-other-host")));
        assert!(!holder_is_gone("a worker of another program"));
    }
}
