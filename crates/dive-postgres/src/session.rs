//! [`PostgresSession`]: one session of a [`PostgresStore`]. Every write is one transaction
//! that locks the session row, checks the lease the session holds (if any), re-reads the
//! session when another worker moved it on, applies the shared [`SessionLog`] rule and writes
//! only what changed.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use deadpool_postgres::Transaction;
use dive_core::{
    BoxFuture, Session, SessionClaimer, SessionDocument, SessionEdit, SessionError, SessionHistory,
    SessionLock, SessionSnapshot, Turn, TurnStore,
};
use dive_session_log::SessionLog;
use tokio_postgres::IsolationLevel;

use crate::error::{Error, Result};
use crate::lease::{self, Lease};
use crate::rows;
use crate::store::PostgresStore;

/// A session in a [`PostgresStore`]. Opened with a [`Lease`]
/// ([`PostgresStore::open_leased`], or after [`SessionClaimer::claim`]), every write is
/// fenced: refused with [`SessionError::Claimed`] once a newer attempt took the session over.
pub struct PostgresSession {
    id: String,
    store: PostgresStore,
    /// The last state read or written, reused while the stored revision matches.
    cache: tokio::sync::Mutex<Option<SessionLog>>,
    lease: Mutex<Option<Lease>>,
    run_lock: SessionLock,
}

impl std::fmt::Debug for PostgresSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresSession")
            .field("id", &self.id)
            .field("lease", &self.lease())
            .finish_non_exhaustive()
    }
}

/// The cached log of `id`, re-read when the stored revision differs (`stored` is `None` when
/// the session has no row).
async fn synced<'c>(
    cache: &'c mut Option<SessionLog>,
    tx: &Transaction<'_>,
    id: &str,
    stored: Option<u64>,
) -> Result<&'c mut SessionLog> {
    let current = match (cache.as_ref(), stored) {
        (Some(log), Some(rev)) => log.revision() == rev,
        (Some(log), None) => log.revision() == 0,
        (None, _) => false,
    };
    if !current {
        let log = match stored {
            Some(_) => rows::read_session(tx, id).await?.unwrap_or_else(|| SessionLog::new(id)),
            None => SessionLog::new(id),
        };
        *cache = Some(log);
    }
    cache.as_mut().ok_or_else(|| Error::Config("unreachable: the session cache was just filled".into()))
}

impl PostgresSession {
    pub(crate) fn new(id: &str, store: PostgresStore, lease: Option<Lease>, run_lock: SessionLock) -> Self {
        Self {
            id: id.to_owned(),
            store,
            cache: tokio::sync::Mutex::new(None),
            lease: Mutex::new(lease),
            run_lock,
        }
    }

    /// The lease this session's writes are fenced by, if it holds one.
    #[must_use]
    pub fn lease(&self) -> Option<Lease> {
        self.lease.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn set_lease(&self, lease: Option<Lease>) {
        *self.lease.lock().unwrap_or_else(PoisonError::into_inner) = lease;
    }

    /// Extends the held lease by `ttl`.
    ///
    /// # Errors
    /// [`Error::LeaseLost`] once a newer attempt exists (the session then holds no lease,
    /// and its writes go on being refused); [`Error::Config`] when it holds none.
    pub async fn renew(&self, ttl: Duration) -> Result<Lease> {
        let held =
            self.lease().ok_or_else(|| Error::Config(format!("session {:?} holds no lease", self.id)))?;
        let renewed = self.store.renew(&held, ttl).await?;
        self.set_lease(Some(renewed.clone()));
        Ok(renewed)
    }

    async fn read<T>(&self, f: impl FnOnce(&SessionLog) -> T + Send) -> Result<T> {
        let mut cache = self.cache.lock().await;
        let mut client = self.store.client().await?;
        let tx = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await?;
        let stored = rows::stored_revision(&tx, &self.id).await?;
        let log = synced(&mut cache, &tx, &self.id, stored).await?;
        let out = f(log);
        tx.commit().await?;
        Ok(out)
    }

    async fn write(
        &self,
        apply: impl FnOnce(&mut SessionLog) -> Result<u64, SessionError> + Send,
    ) -> Result<u64, SessionError> {
        let lease = self.lease();
        let mut cache = self.cache.lock().await;
        let result = self.write_in(&mut cache, lease.as_ref(), apply).await;
        if result.is_err() {
            *cache = None; // the next operation re-reads what the database holds
        }
        Ok(result?)
    }

    async fn write_in(
        &self,
        cache: &mut Option<SessionLog>,
        lease: Option<&Lease>,
        apply: impl FnOnce(&mut SessionLog) -> Result<u64, SessionError> + Send,
    ) -> Result<u64> {
        let mut client = self.store.client().await?;
        let tx = client.transaction().await?;
        let stored = rows::lock_session(&tx, &self.id).await?;
        if let Some(lease) = lease {
            lease::check(&tx, lease).await?;
        }
        let log = synced(cache, &tx, &self.id, Some(stored)).await?;
        let before = log.document().events.len();
        let revision = apply(log)?;
        rows::write_changes(&tx, log.document(), before).await?;
        tx.commit().await?;
        Ok(revision)
    }
}

impl Session for PostgresSession {
    fn id(&self) -> &str {
        &self.id
    }

    fn run_lock(&self) -> Option<SessionLock> {
        Some(self.run_lock.clone())
    }

    fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
        Box::pin(async move {
            if self.read(SessionLog::has_running_turn).await? {
                self.write(|log| {
                    log.recover_running_turn();
                    Ok(log.revision())
                })
                .await?;
            }
            Ok(self.read(SessionLog::snapshot).await?)
        })
    }

    fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
        Box::pin(self.write(move |log| log.record(turn)))
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

impl TurnStore for PostgresSession {
    fn checkpoint_turn<'a>(
        &'a self,
        expected_revision: u64,
        turn: &'a Turn,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        Box::pin(self.write(move |log| log.checkpoint(expected_revision, turn)))
    }
}

impl SessionHistory for PostgresSession {
    fn document(&self) -> BoxFuture<'_, Result<SessionDocument, SessionError>> {
        Box::pin(async move { Ok(self.read(|log| log.document().clone()).await?) })
    }

    fn edit<'a>(
        &'a self,
        expected_revision: Option<u64>,
        edit: &'a SessionEdit,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        Box::pin(self.write(move |log| log.edit(expected_revision, edit)))
    }
}

impl SessionClaimer for PostgresSession {
    /// Takes or renews the session's lease for `owner`; from then on this session's writes
    /// are fenced by it.
    fn claim<'a>(&'a self, owner: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), SessionError>> {
        Box::pin(async move {
            let lease = self.store.lease(&self.id, owner, ttl).await?;
            self.set_lease(Some(lease));
            Ok(())
        })
    }

    fn release<'a>(&'a self, owner: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        Box::pin(async move {
            if self.lease().is_some_and(|l| l.owner == owner) {
                self.set_lease(None);
            }
            let inner = async {
                let mut client = self.store.client().await?;
                let tx = client.transaction().await?;
                lease::release_owner(&tx, &self.id, owner).await?;
                tx.commit().await?;
                Ok::<_, Error>(())
            };
            Ok(inner.await?)
        })
    }
}
