//! [`KvStore`]: a session store of a downstream crate, keeping each session as one JSON
//! document under its id in a key-value backend (here a map in memory standing in for Redis,
//! DynamoDB or a table with a blob column).
//!
//! The store decides only where the document lives. Every change goes through
//! [`SessionLog`], the write rules every store shares (open turns, refusals while suspended,
//! closed turns never re-recorded, revisions, recovery of a turn left running, compaction),
//! so this file holds no rule of its own: it reads the document, runs the rule, and writes the
//! document back only when the rule succeeded, so a refused write never changes what is
//! stored. It passes `dive-test`'s store conformance suite (`tests/store_conformance.rs`).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use dive_core::{
    BoxFuture, ListOptions, Session, SessionDocument, SessionEdit, SessionError, SessionHistory, SessionPage,
    SessionSnapshot, SessionStore, StoreCapabilities, Turn, TurnStore, future::ready, serde_json,
    validate_session_id,
};
use dive_session_log::{SessionLog, page_of};

/// The backend: one byte value per key.
type Backend = Arc<Mutex<BTreeMap<String, Vec<u8>>>>;

/// Sessions as JSON documents in a key-value backend. Declares revision-checked turns, the
/// full history (with compaction), fork and import.
#[derive(Debug, Clone, Default)]
pub struct KvStore {
    backend: Backend,
}

impl KvStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The stored bytes of a session, as the backend holds them.
    #[must_use]
    pub fn raw(&self, id: &str) -> Option<Vec<u8>> {
        lock(&self.backend).get(id).cloned()
    }
}

fn lock(backend: &Backend) -> MutexGuard<'_, BTreeMap<String, Vec<u8>>> {
    backend.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reads a session's log: a new one when nothing is stored, a typed `Corrupt` error (the
/// bytes left as they are) when what is stored does not parse.
fn read(map: &BTreeMap<String, Vec<u8>>, id: &str) -> Result<SessionLog, SessionError> {
    match map.get(id) {
        None => Ok(SessionLog::new(id)),
        Some(bytes) => {
            serde_json::from_slice::<SessionDocument>(bytes).map(SessionLog::from_stored).map_err(|e| {
                SessionError::Corrupt {
                    location: format!("key {id:?}"),
                    line: None,
                    reason: format!("the stored document does not parse: {e}"),
                }
            })
        }
    }
}

fn write(map: &mut BTreeMap<String, Vec<u8>>, log: &SessionLog) -> Result<(), SessionError> {
    map.insert(log.id().to_owned(), serde_json::to_vec(log.document())?);
    Ok(())
}

/// One session of a [`KvStore`].
#[derive(Debug, Clone)]
pub struct KvSession {
    id: String,
    backend: Backend,
}

impl KvSession {
    /// Runs `rule` on the stored log and writes the log back when the rule succeeded.
    fn change<T>(
        &self,
        rule: impl FnOnce(&mut SessionLog) -> Result<T, SessionError>,
    ) -> Result<T, SessionError> {
        let mut map = lock(&self.backend);
        let mut log = read(&map, &self.id)?;
        let value = rule(&mut log)?;
        write(&mut map, &log)?;
        Ok(value)
    }
}

impl Session for KvSession {
    fn id(&self) -> &str {
        &self.id
    }

    fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
        // Loading recovers a turn left running by a crashed process; the recovery is stored
        // once, so the next load sees it recovered.
        ready((|| {
            let mut map = lock(&self.backend);
            let mut log = read(&map, &self.id)?;
            let (snapshot, recovered) = log.load();
            if recovered {
                write(&mut map, &log)?;
            }
            Ok(snapshot)
        })())
    }

    fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
        ready(self.change(|log| log.record(turn)))
    }

    fn as_turn_store(&self) -> Option<&dyn TurnStore> {
        Some(self)
    }

    fn as_history(&self) -> Option<&dyn SessionHistory> {
        Some(self)
    }
}

impl TurnStore for KvSession {
    fn checkpoint_turn<'a>(
        &'a self,
        expected_revision: u64,
        turn: &'a Turn,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        ready(self.change(|log| log.checkpoint(expected_revision, turn)))
    }
}

impl SessionHistory for KvSession {
    fn document(&self) -> BoxFuture<'_, Result<SessionDocument, SessionError>> {
        ready(read(&lock(&self.backend), &self.id).map(SessionLog::into_document))
    }

    fn edit<'a>(
        &'a self,
        expected_revision: Option<u64>,
        edit: &'a SessionEdit,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        ready(self.change(|log| log.edit(expected_revision, edit)))
    }
}

impl SessionStore for KvStore {
    fn capabilities(&self) -> StoreCapabilities {
        StoreCapabilities::none().with_turn_store().with_history().with_compaction().with_fork().with_import()
    }

    fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        ready(validate_session_id(id).map(|()| {
            Arc::new(KvSession { id: id.to_owned(), backend: Arc::clone(&self.backend) }) as Arc<dyn Session>
        }))
    }

    fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
        let map = lock(&self.backend);
        let logs: Result<Vec<SessionLog>, SessionError> = map.keys().map(|id| read(&map, id)).collect();
        ready(logs.map(|logs| page_of(logs.iter().map(|log| log.info().clone()), options)))
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        lock(&self.backend).remove(id);
        ready(Ok(()))
    }

    fn import<'a>(
        &'a self,
        document: &'a SessionDocument,
    ) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        let result = SessionLog::import(document).and_then(|log| {
            let mut map = lock(&self.backend);
            if read(&map, log.id())?.revision() > 0 {
                return Err(SessionLog::exists_error(log.id()));
            }
            write(&mut map, &log)?;
            Ok(Arc::new(KvSession { id: log.id().to_owned(), backend: Arc::clone(&self.backend) })
                as Arc<dyn Session>)
        });
        ready(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreadable_stored_bytes_are_a_corrupt_error_and_stay_as_they_are() {
        let store = KvStore::new();
        lock(&store.backend).insert("chat".into(), b"{not json".to_vec());
        let session = KvSession { id: "chat".into(), backend: Arc::clone(&store.backend) };
        let err = futures::executor::block_on(session.load()).unwrap_err();
        assert!(matches!(err, SessionError::Corrupt { .. }), "{err:?}");
        let turn = Turn::new("t1", vec![dive_core::Message::user("hi")]);
        assert!(futures::executor::block_on(session.save_turn(&turn)).is_err());
        assert_eq!(store.raw("chat").as_deref(), Some(&b"{not json"[..]), "nothing overwrote the bytes");
    }
}
