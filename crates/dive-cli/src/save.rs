//! Never losing a turn, never claiming one was saved when it was not. Before a model call the
//! session directory is checked for writing (a full disk or a read-only directory is found
//! before anything is paid for). After a turn, the engine's persistence state says whether it
//! reached the store; a turn that did not is said plainly, kept in memory, and saved again
//! before the next turn and at exit; if that still fails it is written to a recovery file
//! whose path is printed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dive::{Persistence, Session, SessionError, Turn};
use serde_json::json;

/// A turn the store does not have (yet).
struct Unsaved {
    session: Arc<dyn Session>,
    turn: Turn,
    /// Why the last save failed.
    error: String,
}

/// Turns waiting to be saved, and where sessions live.
pub struct Keeper {
    dir: PathBuf,
    pending: Mutex<Vec<Unsaved>>,
}

/// How long one retry may take (a hung disk must not hang the exit).
const RETRY_TIMEOUT: Duration = Duration::from_secs(5);

impl Keeper {
    /// A keeper for sessions stored in `dir`.
    pub fn new(dir: PathBuf) -> Self {
        Self { dir, pending: Mutex::default() }
    }

    /// The session directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Checks that the session directory takes a write (create, write a page, remove). No
    /// fsync: the file systems in question refuse the write itself when full or read-only, and
    /// this runs before every turn.
    ///
    /// # Errors
    /// What to do, in the user's words.
    pub fn check_writable(&self) -> Result<(), String> {
        let probe = self.dir.join(format!(".dive-write-check-{}", std::process::id()));
        let result = (|| {
            let mut file = std::fs::File::create(&probe)?;
            file.write_all(&[0u8; 4096])?;
            file.flush()
        })();
        let _ = std::fs::remove_file(&probe);
        result.map_err(|e| {
            format!(
                "the session directory {} cannot be written ({e}); nothing was sent to the model. \
                 Free some space or fix its permissions, or pass --session-dir to use another directory",
                self.dir.display()
            )
        })
    }

    /// Looks at a finished turn: returns the line to print when it was not saved, and keeps
    /// it for a later retry.
    pub fn after_turn(
        &self,
        session: &Arc<dyn Session>,
        turn: Option<&Turn>,
        error: Option<&str>,
    ) -> Option<String> {
        let turn = turn?;
        if matches!(turn.persistence, Persistence::Saved | Persistence::None) {
            return None;
        }
        let state = if turn.persistence == Persistence::Unknown {
            "may not have been saved"
        } else {
            "was NOT saved"
        };
        let why = error.map_or_else(String::new, |e| format!(" ({e})"));
        let error = error.unwrap_or("the store did not confirm the write").to_owned();
        self.lock().push(Unsaved { session: Arc::clone(session), turn: turn.clone(), error });
        Some(format!(
            "the turn {state}{why}; dive keeps it and tries to save it again (before the next turn and at exit)"
        ))
    }

    /// Whether turns are waiting to be saved.
    #[cfg(test)]
    pub fn has_pending(&self) -> bool {
        !self.lock().is_empty()
    }

    /// Saves the waiting turns again; returns a line for each that now reached the store and
    /// keeps the others.
    pub async fn retry(&self) -> Vec<String> {
        let pending = std::mem::take(&mut *self.lock());
        let mut said = Vec::new();
        let mut still = Vec::new();
        for mut unsaved in pending {
            match save_again(&unsaved).await {
                Ok(()) => said.push(format!("saved the earlier turn {} now", unsaved.turn.id)),
                Err(e) => {
                    unsaved.error = e;
                    still.push(unsaved);
                }
            }
        }
        self.lock().extend(still);
        said
    }

    /// At exit: one more retry, then every turn still unsaved goes to a recovery file.
    /// Returns the lines to print.
    pub async fn flush(&self) -> Vec<String> {
        let mut said = self.retry().await;
        let left = std::mem::take(&mut *self.lock());
        for unsaved in left {
            let error = &unsaved.error;
            match self.write_recovery(&unsaved) {
                Ok(path) => said.push(format!(
                    "the turn {} of session {} could not be saved ({error}); it is in {}",
                    unsaved.turn.id,
                    unsaved.session.id(),
                    path.display()
                )),
                Err(e) => said.push(format!(
                    "the turn {} of session {} could not be saved ({error}) nor written to a recovery file ({e})",
                    unsaved.turn.id,
                    unsaved.session.id()
                )),
            }
        }
        said
    }

    fn write_recovery(&self, unsaved: &Unsaved) -> Result<PathBuf, String> {
        let record = json!({
            "format": "dive.recovered_turn",
            "session_id": unsaved.session.id(),
            "turn": unsaved.turn,
        });
        let text = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())?;
        let name = format!("{}-{}-{}.json", unsaved.session.id(), unsaved.turn.id, std::process::id());
        let recovery = self.dir.join("recovery");
        let in_session_dir =
            std::fs::create_dir_all(&recovery).and_then(|()| write_new(&recovery, &name, text.as_bytes()));
        let first = match in_session_dir {
            Ok(path) => return Ok(path),
            Err(e) => format!("{}: {e}", recovery.display()),
        };
        // The shared temporary directory: a file of its own, no directory to take over.
        let tmp = std::env::temp_dir();
        write_new(&tmp, &format!("dive-recovery-{name}"), text.as_bytes())
            .map_err(|e| format!("{first}; {}: {e}", tmp.display()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Unsaved>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Why `sessions.db` at `path` cannot be opened, with what to do when the file is damaged.
pub fn open_error(path: &Path, error: &SessionError) -> String {
    if !dive::session::sqlite::is_file_damage(error) {
        if let Some(dir) = path.parent()
            && let Err(full) = Keeper::new(dir.to_path_buf()).check_writable()
        {
            return full;
        }
        return format!("cannot open {}: {error}", path.display());
    }
    let reason = match error {
        SessionError::Corrupt { reason, .. } => reason.trim_end_matches("; not changed"),
        _ => "",
    };
    format!(
        "the session database {path} is damaged ({reason}); dive did not change it and will not write to it. \
         Move it aside to start afresh (`mv {path} {path}.damaged`), try to rescue it with \
         `sqlite3 {path} .recover`, or pass --session-dir to use another directory",
        path = path.display()
    )
}

/// What to do when SQLite finds `sessions.db` damaged while dive runs (the path is in
/// `/status`).
pub fn damaged_later(error: &SessionError) -> String {
    format!(
        "the session database is damaged ({error}); dive will not write to it again. Leave dive, move \
         sessions.db aside (its directory is in /status) or rescue it with `sqlite3 sessions.db .recover`, \
         or pass --session-dir to use another directory"
    )
}

/// Writes `bytes` to a new file `name` in `dir`, readable by the user only (0600) and never
/// through an existing file or link (`O_EXCL`, so a name planted in a shared directory such
/// as `/tmp` is refused); synced, a partial file removed.
fn write_new(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let path = dir.join(name);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&path)?;
    let result = file.write_all(bytes).and_then(|()| file.sync_all());
    match result {
        Ok(()) => Ok(path),
        Err(e) => {
            drop(file);
            let _ = std::fs::remove_file(&path);
            Err(e)
        }
    }
}

/// Saves a turn again. A record that already landed (an earlier write whose outcome was
/// unknown) counts as saved.
async fn save_again(unsaved: &Unsaved) -> Result<(), String> {
    let attempt = async {
        if let Some(history) = unsaved.session.as_history()
            && let Ok(document) = history.document().await
            && document.turns().iter().any(|t| t.id == unsaved.turn.id && t.status == unsaved.turn.status)
        {
            return Ok(());
        }
        unsaved.session.save_turn(&unsaved.turn).await.map(|_| ()).map_err(|e: SessionError| e.to_string())
    };
    tokio::time::timeout(RETRY_TIMEOUT, attempt).await.unwrap_or_else(|_| Err("the save timed out".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive::session::SqliteStore;
    use dive::{Message, SessionStore};

    fn failed_turn(id: &str) -> Turn {
        let mut turn = Turn::completed(id, vec![Message::user("hello"), Message::assistant("hi there")]);
        turn.persistence = Persistence::Failed;
        turn
    }

    #[tokio::test]
    async fn a_saved_turn_is_not_kept_and_a_failed_one_is_retried_into_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let keeper = Keeper::new(dir.path().to_path_buf());
        let store = SqliteStore::open_in_memory().unwrap();
        let session = store.open("s1").await.unwrap();
        let mut saved = failed_turn("t0");
        saved.persistence = Persistence::Saved;
        assert_eq!(keeper.after_turn(&session, Some(&saved), None), None);

        let said = keeper.after_turn(&session, Some(&failed_turn("t1")), Some("disk full")).unwrap();
        assert!(said.contains("was NOT saved (disk full)"), "{said}");
        assert!(keeper.has_pending());
        assert_eq!(keeper.retry().await, vec!["saved the earlier turn t1 now".to_owned()]);
        assert!(!keeper.has_pending());
        assert_eq!(session.load().await.unwrap().history.len(), 2);
        // A second retry of a turn that already landed is not a duplicate.
        keeper.after_turn(&session, Some(&failed_turn("t1")), None);
        assert_eq!(keeper.retry().await.len(), 1);
        assert_eq!(session.load().await.unwrap().history.len(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_recovery_file_is_private_and_never_written_through_a_planted_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = write_new(dir.path(), "turn.json", b"{}").unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let target = dir.path().join("victim");
        std::fs::write(&target, "keep").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("planted.json")).unwrap();
        assert!(write_new(dir.path(), "planted.json", b"{}").is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    }

    #[test]
    fn a_database_found_damaged_while_running_says_what_to_do() {
        let damage = SessionError::Corrupt {
            location: dive::session::sqlite::DAMAGED_LOCATION.into(),
            line: None,
            reason: "database disk image is malformed; not changed".into(),
        };
        let told = crate::errors::from_agent(&dive::AgentError::Session(damage));
        assert_eq!(told.kind, "session_damaged");
        assert!(
            told.message.contains("move sessions.db aside") && told.message.contains("malformed"),
            "{told:?}"
        );
    }

    #[test]
    fn a_read_only_session_directory_is_found_before_the_model_is_called() {
        let dir = tempfile::tempdir().unwrap();
        let keeper = Keeper::new(dir.path().join("missing"));
        let error = keeper.check_writable().unwrap_err();
        assert!(error.contains("cannot be written") && error.contains("--session-dir"), "{error}");
        assert!(Keeper::new(dir.path().to_path_buf()).check_writable().is_ok());
    }
}
