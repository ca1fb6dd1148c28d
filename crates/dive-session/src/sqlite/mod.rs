//! [`SqliteStore`]: sessions in one SQLite database (feature `sqlite`).
//!
//! The schema (see `docs/guides/sessions.md` and [`schema`]) is versioned by a migration
//! table; the database runs in WAL mode with a busy timeout, so several processes can share
//! it. Every write is one `IMMEDIATE` transaction that checks the revision inside it:
//! a `checkpoint_turn` with a stale revision fails with [`SessionError::RevisionConflict`]
//! even when the other writer is another process. Claims are lease rows
//! `(session_id, owner, expires_at, attempt)` fenced by the attempt: a lease taken over (after
//! it lapsed or was released) gets a higher attempt, and a write made under an older one is
//! refused with [`SessionError::Claimed`], even when the new holder uses the same owner name. All database work runs on one dedicated thread per store
//! (see `worker.rs`), never on the caller's async runtime. Once SQLite reports the file
//! damaged ("malformed", "not a database") the store writes nothing more to it; a
//! [`SqliteStore::checkpoint`] at exit leaves every session in the `.db` file alone.

mod rows;
pub mod schema;
mod worker;

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dive_core::{
    BoxFuture, ListOptions, Session, SessionClaimer, SessionDocument, SessionEdit, SessionError,
    SessionHistory, SessionPage, SessionSnapshot, SessionStore, StoreCapabilities, Turn, TurnStore,
    future::ready, validate_session_id,
};
use rusqlite::Connection;

use dive_session_log::SessionLog;
use rows::Db;
use worker::Worker;

/// The `location` of a [`SessionError::Corrupt`] that SQLite itself reported: the file is
/// damaged (or is not a database at all), not one session's data.
pub const DAMAGED_LOCATION: &str = "the SQLite database file";

/// Wraps a database error; SQLite's "malformed" and "not a database" become
/// [`SessionError::Corrupt`] at [`DAMAGED_LOCATION`].
pub(crate) fn backend(e: impl std::error::Error + Send + Sync + 'static) -> SessionError {
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(e);
    let code = boxed.downcast_ref::<rusqlite::Error>().and_then(rusqlite::Error::sqlite_error_code);
    if matches!(code, Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)) {
        return SessionError::Corrupt {
            location: DAMAGED_LOCATION.into(),
            line: None,
            reason: format!("{boxed}; not changed"),
        };
    }
    SessionError::Backend(boxed)
}

/// Whether `error` says the database file itself is damaged (after which the store writes
/// nothing more to it).
#[must_use]
pub fn is_file_damage(error: &SessionError) -> bool {
    matches!(error, SessionError::Corrupt { location, .. } if location == DAMAGED_LOCATION)
}

/// Sessions in a SQLite database, shared safely by threads and processes.
///
/// ```
/// use dive_core::{Message, SessionStore, Turn};
/// use dive_session::SqliteStore;
/// # futures::executor::block_on(async {
/// let store = SqliteStore::open_in_memory()?;
/// let session = store.open("chat").await?;
/// session.save_turn(&Turn::completed("t1", vec![Message::user("hi")])).await?;
/// assert_eq!(session.load().await?.history.len(), 1);
/// # Ok::<(), dive_core::SessionError>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct SqliteStore {
    worker: Worker,
    /// One run lock per session id, shared by this store's clones (one database).
    locks: Arc<dive_core::SessionLocks>,
}

impl SqliteStore {
    /// Opens (or creates) the database at `path` and migrates its schema. Appends survive a
    /// process crash; use [`open_with_full_sync`](Self::open_with_full_sync) to also survive
    /// power loss.
    ///
    /// This is blocking I/O: call it at start-up, not from inside an async task's hot path.
    ///
    /// # Errors
    /// [`SessionError::Backend`] when the database cannot be opened or migrated;
    /// [`SessionError::Corrupt`] when a newer version of this library migrated it, or when
    /// the file is damaged or not a database ([`is_file_damage`]; nothing is written then).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, SessionError> {
        Self::start(Connection::open(path).map_err(backend)?, false)
    }

    /// Like [`open`](Self::open), with `synchronous = FULL`: every commit is fsynced.
    ///
    /// # Errors
    /// As for [`open`](Self::open).
    pub fn open_with_full_sync(path: impl AsRef<Path>) -> Result<Self, SessionError> {
        Self::start(Connection::open(path).map_err(backend)?, true)
    }

    /// A private in-memory database (for tests and examples).
    ///
    /// # Errors
    /// [`SessionError::Backend`] when SQLite cannot start.
    pub fn open_in_memory() -> Result<Self, SessionError> {
        Self::start(Connection::open_in_memory().map_err(backend)?, false)
    }

    fn start(mut conn: Connection, full_sync: bool) -> Result<Self, SessionError> {
        schema::prepare(&mut conn, full_sync)?;
        Ok(Self { worker: Worker::spawn(Db::new(conn))?, locks: Arc::default() })
    }

    /// Folds the write-ahead log into the database file and truncates the log, so the `.db`
    /// file alone holds every session (call it at a clean exit; the log is otherwise kept until
    /// SQLite checkpoints it on its own). Returns `false` when another connection's readers
    /// kept part of the log (that connection folds it in later).
    ///
    /// # Errors
    /// [`SessionError::Backend`] when SQLite fails; [`SessionError::Corrupt`] when the file
    /// was found damaged (nothing is written then).
    pub fn checkpoint(&self) -> BoxFuture<'_, Result<bool, SessionError>> {
        self.worker.run(Db::checkpoint)
    }

    fn session(&self, id: &str) -> Arc<dyn Session> {
        Arc::new(SqliteSession {
            id: id.to_owned(),
            worker: self.worker.clone(),
            held_claim: Mutex::default(),
            run_lock: self.locks.lock_for(id),
        })
    }
}

/// A session in a [`SqliteStore`].
#[derive(Debug)]
pub struct SqliteSession {
    id: String,
    worker: Worker,
    /// The lease this session writes under: owner and attempt.
    held_claim: Mutex<Option<(String, u64)>>,
    run_lock: dive_core::SessionLock,
}

impl SqliteSession {
    fn write(
        &self,
        apply: impl FnOnce(&mut SessionLog) -> Result<u64, SessionError> + Send + 'static,
    ) -> BoxFuture<'_, Result<u64, SessionError>> {
        let id = self.id.clone();
        let held = self.held_claim.lock().unwrap_or_else(PoisonError::into_inner).clone();
        self.worker.run(move |db| db.write(&id, held.as_ref(), apply))
    }
}

impl Session for SqliteSession {
    fn id(&self) -> &str {
        &self.id
    }

    fn run_lock(&self) -> Option<dive_core::SessionLock> {
        Some(self.run_lock.clone())
    }

    fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
        let id = self.id.clone();
        let held = self.held_claim.lock().unwrap_or_else(PoisonError::into_inner).clone();
        self.worker.run(move |db| {
            if db.read(&id, SessionLog::has_running_turn)? {
                db.write(&id, held.as_ref(), |log| {
                    log.recover_running_turn();
                    Ok(log.revision())
                })?;
            }
            db.read(&id, SessionLog::snapshot)
        })
    }

    fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
        let turn = turn.clone();
        self.write(move |log| log.record(&turn))
    }

    fn as_turn_store(&self) -> Option<&dyn TurnStore> {
        Some(self)
    }

    fn as_claimer(&self) -> Option<&dyn SessionClaimer> {
        Some(self)
    }

    fn as_history(&self) -> Option<&dyn SessionHistory> {
        Some(self)
    }
}

impl TurnStore for SqliteSession {
    fn checkpoint_turn<'a>(
        &'a self,
        expected_revision: u64,
        turn: &'a Turn,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        let turn = turn.clone();
        self.write(move |log| log.checkpoint(expected_revision, &turn))
    }
}

impl SessionHistory for SqliteSession {
    fn document(&self) -> BoxFuture<'_, Result<SessionDocument, SessionError>> {
        let id = self.id.clone();
        self.worker.run(move |db| db.read(&id, |log| log.document().clone()))
    }

    fn edit<'a>(
        &'a self,
        expected_revision: Option<u64>,
        edit: &'a SessionEdit,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        let edit = edit.clone();
        self.write(move |log| log.edit(expected_revision, &edit))
    }
}

impl SessionClaimer for SqliteSession {
    fn claim<'a>(&'a self, owner: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), SessionError>> {
        let (id, who) = (self.id.clone(), owner.to_owned());
        let claimed = self.worker.run(move |db| db.claim(&id, &who, ttl));
        Box::pin(async move {
            let attempt = claimed.await?;
            *self.held_claim.lock().unwrap_or_else(PoisonError::into_inner) =
                Some((owner.to_owned(), attempt));
            Ok(())
        })
    }

    fn release<'a>(&'a self, owner: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        let mut held = self.held_claim.lock().unwrap_or_else(PoisonError::into_inner);
        if held.as_ref().is_some_and(|(holder, _)| holder == owner) {
            *held = None;
        }
        drop(held);
        let (id, who) = (self.id.clone(), owner.to_owned());
        self.worker.run(move |db| db.release(&id, &who))
    }
}

impl SessionStore for SqliteStore {
    fn capabilities(&self) -> StoreCapabilities {
        StoreCapabilities::all()
    }

    fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        ready(validate_session_id(id).map(|()| self.session(id)))
    }

    fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
        let options = options.clone();
        self.worker.run(move |db| db.list(&options))
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        if let Err(e) = validate_session_id(id) {
            return ready(Err(e));
        }
        let id = id.to_owned();
        self.worker.run(move |db| db.delete(&id))
    }

    fn import<'a>(
        &'a self,
        document: &'a SessionDocument,
    ) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        let log = match SessionLog::import(document) {
            Ok(log) => log,
            Err(e) => return ready(Err(e)),
        };
        let id = log.id().to_owned();
        let imported = self.worker.run(move |db| db.import(log));
        Box::pin(async move {
            imported.await?;
            Ok(self.session(&id))
        })
    }
}
