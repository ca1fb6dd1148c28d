//! [`MemoryStore`] and [`MemorySession`]: sessions kept in process memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use dive_core::{
    BoxFuture, ListOptions, Session, SessionClaimer, SessionDocument, SessionEdit, SessionError,
    SessionHistory, SessionPage, SessionSnapshot, SessionStore, StoreCapabilities, Timestamp, Turn,
    TurnStore, future::ready, validate_session_id,
};

use dive_session_log::{SessionLog, page_of};

#[derive(Debug)]
struct State {
    log: SessionLog,
    claim: Option<(String, Timestamp)>,
}

/// A session in memory. Implements [`Session`], [`TurnStore`] and [`SessionClaimer`]
/// (claims are in-process leases).
#[derive(Debug, Clone)]
pub struct MemorySession {
    id: String,
    state: Arc<Mutex<State>>,
    /// Shared by every clone (a store hands out clones), so runs on this session serialise.
    run_lock: dive_core::SessionLock,
}

impl MemorySession {
    /// A new empty session not attached to a store.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        let id = id.into();
        Self {
            state: Arc::new(Mutex::new(State { log: SessionLog::new(id.clone()), claim: None })),
            id,
            run_lock: dive_core::SessionLock::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every turn (superseded incomplete turns marked).
    #[must_use]
    pub fn turns(&self) -> Vec<Turn> {
        self.lock().log.turns()
    }

    /// The current revision.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.lock().log.revision()
    }

    fn from_log(log: SessionLog) -> Self {
        Self {
            id: log.id().to_owned(),
            state: Arc::new(Mutex::new(State { log, claim: None })),
            run_lock: dive_core::SessionLock::new(),
        }
    }
}

impl SessionHistory for MemorySession {
    fn document(&self) -> BoxFuture<'_, Result<SessionDocument, SessionError>> {
        ready(Ok(self.lock().log.document().clone()))
    }

    fn edit<'a>(
        &'a self,
        expected_revision: Option<u64>,
        edit: &'a SessionEdit,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        ready(self.lock().log.edit(expected_revision, edit))
    }
}

impl Session for MemorySession {
    fn id(&self) -> &str {
        &self.id
    }

    fn run_lock(&self) -> Option<dive_core::SessionLock> {
        Some(self.run_lock.clone())
    }

    fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
        ready(Ok(self.lock().log.load().0))
    }

    fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
        ready(self.lock().log.record(turn))
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

impl TurnStore for MemorySession {
    fn checkpoint_turn<'a>(
        &'a self,
        expected_revision: u64,
        turn: &'a Turn,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        ready(self.lock().log.checkpoint(expected_revision, turn))
    }
}

impl SessionClaimer for MemorySession {
    fn claim<'a>(&'a self, owner: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), SessionError>> {
        let now = Timestamp::now();
        let mut state = self.lock();
        let result = match &state.claim {
            Some((holder, expires)) if holder != owner && *expires > now => {
                Err(SessionError::Claimed { id: self.id.clone(), owner: holder.clone() })
            }
            _ => {
                let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
                let expires = Timestamp::from_millis(now.as_millis().saturating_add(ttl_ms));
                state.claim = Some((owner.to_owned(), expires));
                Ok(())
            }
        };
        ready(result)
    }

    fn release<'a>(&'a self, owner: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        let mut state = self.lock();
        if state.claim.as_ref().is_some_and(|(holder, _)| holder == owner) {
            state.claim = None;
        }
        ready(Ok(()))
    }
}

/// Sessions kept in memory, one live [`MemorySession`] per id (all handles share it).
#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    sessions: Arc<Mutex<HashMap<String, MemorySession>>>,
}

impl MemoryStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, MemorySession>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl SessionStore for MemoryStore {
    fn capabilities(&self) -> StoreCapabilities {
        StoreCapabilities::all()
    }

    fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        let result = validate_session_id(id).map(|()| {
            let session = self.lock().entry(id.to_owned()).or_insert_with(|| MemorySession::new(id)).clone();
            Arc::new(session) as Arc<dyn Session>
        });
        ready(result)
    }

    fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
        let infos: Vec<_> = self.lock().values().map(|s| s.lock().log.info().clone()).collect();
        ready(Ok(page_of(infos, options)))
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        self.lock().remove(id);
        ready(Ok(()))
    }

    fn import<'a>(
        &'a self,
        document: &'a SessionDocument,
    ) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        let result = SessionLog::import(document).and_then(|log| {
            let mut sessions = self.lock();
            let id = log.id().to_owned();
            if sessions.get(&id).is_some_and(|s| s.revision() > 0) {
                return Err(SessionLog::exists_error(&id));
            }
            let session = MemorySession::from_log(log);
            sessions.insert(id, session.clone());
            Ok(Arc::new(session) as Arc<dyn Session>)
        });
        ready(result)
    }
}
