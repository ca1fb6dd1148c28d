//! [`PostgresStore`]: the pool, migrations on connect, and the [`SessionStore`] operations
//! (open, list from the indexes, delete, import), plus leases by session id.

use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Client, Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use dive_core::{
    BoxFuture, ListOptions, Session, SessionDocument, SessionError, SessionInfo, SessionLocks, SessionPage,
    SessionStore, StoreCapabilities, Timestamp, validate_session_id,
};
use dive_session_log::SessionLog;
use tokio_postgres::Row;

use crate::config::PostgresConfig;
use crate::effects::EffectJournal;
use crate::error::{Error, Result};
use crate::lease::{self, Lease, Take};
use crate::queue::RunQueue;
use crate::rows;
use crate::schema;
use crate::session::PostgresSession;

/// Sessions, leases, effects and a run queue in one PostgreSQL database, shared by every
/// worker connected to it. Cheap to clone (clones share the pool).
///
/// Its futures need a Tokio runtime (the driver and the pool run on it).
///
/// ```no_run
/// # async fn demo() -> Result<(), dive_postgres::Error> {
/// use dive_core::{Message, SessionStore, Turn};
/// use dive_postgres::{PostgresConfig, PostgresStore};
///
/// let store = PostgresStore::connect(&PostgresConfig::new("host=127.0.0.1 user=postgres dbname=test")?).await?;
/// let session = store.open("chat").await?;
/// session.save_turn(&Turn::completed("t1", vec![Message::user("hi")])).await?;
/// assert_eq!(session.load().await?.history.len(), 1);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
    locks: Arc<SessionLocks>,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = self.pool.status();
        f.debug_struct("PostgresStore")
            .field("pool_size", &status.size)
            .field("pool_max", &status.max_size)
            .finish_non_exhaustive()
    }
}

fn pool(config: &PostgresConfig) -> Result<Pool> {
    let manager = ManagerConfig { recycling_method: RecyclingMethod::Fast };
    let pg = config.connection();
    #[cfg(feature = "tls")]
    let manager = match &config.tls {
        Some(tls) => {
            Manager::from_config(pg, tokio_postgres_rustls::MakeRustlsConnect::new(tls.clone()), manager)
        }
        None => Manager::from_config(pg, tokio_postgres::NoTls, manager),
    };
    #[cfg(not(feature = "tls"))]
    let manager = Manager::from_config(pg, tokio_postgres::NoTls, manager);
    Pool::builder(manager)
        .max_size(config.pool_size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(config.wait_timeout))
        .create_timeout(Some(config.wait_timeout))
        .build()
        .map_err(|e| Error::Config(e.to_string()))
}

/// Applies pending migrations out of band (a deploy step, before workers start with
/// [`PostgresConfig::with_migrate_on_open`]`(false)`); returns how many ran. Safe to run
/// from several processes at once: they take turns on an advisory lock.
///
/// # Errors
/// [`Error::Pool`] when the server is unreachable, [`Error::SchemaVersion`] when a newer
/// library migrated the schema, [`Error::Database`] when a migration fails (nothing of it
/// is kept).
pub async fn migrate(config: &PostgresConfig) -> Result<usize> {
    let pool = pool(config)?;
    let mut client = pool.get().await?;
    schema::migrate(&mut client, config.schema()).await
}

/// Drops the config's schema and everything in it: sessions, leases, effects, runs
/// (teardown of tests, examples and throw-away deployments).
///
/// # Errors
/// [`Error::Config`] when the config names no schema (the default schema is never dropped);
/// [`Error::Pool`], [`Error::Database`].
pub async fn drop_schema(config: &PostgresConfig) -> Result<()> {
    let schema =
        config.schema().ok_or_else(|| Error::Config("no schema to drop: set one with with_schema".into()))?;
    let client = pool(config)?.get().await?;
    // The name is checked by PostgresConfig::with_schema ([a-z0-9_]), so quoting suffices.
    client.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE")).await?;
    Ok(())
}

impl PostgresStore {
    /// Connects, and migrates the schema unless the config says migrations run out of band
    /// (then a schema that is not up to date is refused).
    ///
    /// # Errors
    /// [`Error::Pool`] when no connection can be made, [`Error::SchemaVersion`],
    /// [`Error::Database`].
    pub async fn connect(config: &PostgresConfig) -> Result<Self> {
        let pool = pool(config)?;
        {
            let mut client = pool.get().await?;
            if config.migrate_on_open {
                schema::migrate(&mut client, config.schema()).await?;
            } else {
                schema::check(&client).await?;
            }
        }
        Ok(Self { pool, locks: Arc::default() })
    }

    pub(crate) async fn client(&self) -> Result<Client> {
        Ok(self.pool.get().await?)
    }

    /// The run queue on this database.
    #[must_use]
    pub fn queue(&self) -> RunQueue {
        RunQueue::new(self.clone())
    }

    /// The intent-before-effect journal on this database.
    #[must_use]
    pub fn effects(&self) -> EffectJournal {
        EffectJournal::new(self.clone())
    }

    /// The schema version in the database.
    ///
    /// # Errors
    /// [`Error::Pool`], [`Error::Database`].
    pub async fn schema_version(&self) -> Result<i64> {
        schema::current_version(&self.client().await?).await
    }

    /// A session object with no lease: writes are not fenced (as for any
    /// [`SessionStore::open`]).
    pub(crate) fn session(&self, id: &str, lease: Option<Lease>) -> PostgresSession {
        PostgresSession::new(id, self.clone(), lease, self.locks.lock_for(id))
    }

    /// Opens the session `lease` is on, with every write fenced by it: refused with
    /// `SessionError::Claimed` once a newer attempt took the session over.
    ///
    /// # Errors
    /// [`SessionError::InvalidId`] for an invalid session id.
    pub fn open_leased(&self, lease: Lease) -> Result<Arc<PostgresSession>, SessionError> {
        validate_session_id(&lease.session_id)?;
        let id = lease.session_id.clone();
        Ok(Arc::new(self.session(&id, Some(lease))))
    }

    /// Takes the lease of `session_id` for `owner` for `ttl`, or renews it when `owner`
    /// already holds it live (same attempt). A lapsed or released lease is taken over with
    /// a higher attempt.
    ///
    /// # Errors
    /// `Error::Session(SessionError::Claimed)` while another owner's lease is live;
    /// [`Error::Pool`], [`Error::Database`].
    pub async fn lease(&self, session_id: &str, owner: &str, ttl: Duration) -> Result<Lease> {
        validate_session_id(session_id)?;
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        match lease::take(&tx, session_id, owner, ttl, Take::ClaimOrRenew).await? {
            Some(lease) => {
                tx.commit().await?;
                Ok(lease)
            }
            None => {
                let holder = lease::holder(&tx, session_id).await?;
                Err(SessionError::Claimed { id: session_id.to_owned(), owner: holder }.into())
            }
        }
    }

    /// Extends `lease` by `ttl` (from now, the database's clock) while it is still the
    /// current attempt.
    ///
    /// # Errors
    /// [`Error::LeaseLost`] once a newer attempt exists or it was released.
    pub async fn renew(&self, lease: &Lease, ttl: Duration) -> Result<Lease> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let renewed = lease::renew(&tx, lease, ttl).await?;
        tx.commit().await?;
        Ok(renewed)
    }

    /// Releases `lease` (nothing when it is no longer current).
    ///
    /// # Errors
    /// [`Error::Pool`], [`Error::Database`].
    pub async fn release(&self, lease: &Lease) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        lease::release(&tx, lease).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn list_page(&self, options: &ListOptions) -> Result<SessionPage> {
        let client = self.client().await?;
        let limit = options.limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX));
        let offset = i64::try_from(options.offset).unwrap_or(i64::MAX);
        let columns = "id, title, created_at, updated_at, event_count, suspended, forked_from, metadata";
        let (total, rows) = match options.suspended {
            None => {
                let total: i64 = client.query_one("SELECT COUNT(*) FROM sessions", &[]).await?.get(0);
                let sql = format!(
                    "SELECT {columns} FROM sessions ORDER BY updated_at DESC, id ASC LIMIT $1 OFFSET $2"
                );
                (total, client.query(&client.prepare_cached(&sql).await?, &[&limit, &offset]).await?)
            }
            Some(suspended) => {
                let total: i64 = client
                    .query_one("SELECT COUNT(*) FROM sessions WHERE suspended = $1", &[&suspended])
                    .await?
                    .get(0);
                let sql = format!(
                    "SELECT {columns} FROM sessions WHERE suspended = $1
                     ORDER BY updated_at DESC, id ASC LIMIT $2 OFFSET $3"
                );
                (
                    total,
                    client.query(&client.prepare_cached(&sql).await?, &[&suspended, &limit, &offset]).await?,
                )
            }
        };
        let sessions = rows.iter().map(info_of).collect::<Result<Vec<_>>>()?;
        Ok(SessionPage::new(sessions, usize::try_from(total).unwrap_or(0)))
    }

    async fn delete_session(&self, id: &str) -> Result<()> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        tx.execute("DELETE FROM sessions WHERE id = $1", &[&id]).await?; // events cascade
        // The lease row stays (released) so a later holder still gets a higher attempt.
        tx.execute("UPDATE claims SET owner = NULL, expires_at = NULL WHERE session_id = $1", &[&id]).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn import_log(&self, log: &SessionLog) -> Result<()> {
        let id = log.id();
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let stored = rows::lock_session(&tx, id).await?;
        if stored > 0 {
            return Err(SessionLog::exists_error(id).into());
        }
        rows::write_session_row(&tx, log.document()).await?;
        rows::write_all_events(&tx, log.document()).await?;
        tx.commit().await?;
        Ok(())
    }
}

fn info_of(row: &Row) -> Result<SessionInfo> {
    let id: String = row.get(0);
    let mut info = SessionInfo::new(id.clone());
    info.title = row.get(1);
    info.created_at = Timestamp::from_millis(row.get(2));
    info.updated_at = Timestamp::from_millis(row.get(3));
    info.event_count = rows::as_u64(row.get(4));
    info.suspended = row.get(5);
    info.forked_from = row.get(6);
    let metadata: &str = row.get(7);
    info.metadata = serde_json::from_str(metadata).map_err(|e| SessionError::Corrupt {
        location: format!("sessions (id {id:?})"),
        line: None,
        reason: format!("bad metadata: {e}"),
    })?;
    Ok(info)
}

impl SessionStore for PostgresStore {
    fn capabilities(&self) -> StoreCapabilities {
        StoreCapabilities::all()
    }

    fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        let opened = validate_session_id(id).map(|()| Arc::new(self.session(id, None)) as Arc<dyn Session>);
        dive_core::future::ready(opened)
    }

    fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
        Box::pin(async move { Ok(self.list_page(options).await?) })
    }

    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        Box::pin(async move {
            validate_session_id(id)?;
            Ok(self.delete_session(id).await?)
        })
    }

    fn import<'a>(
        &'a self,
        document: &'a SessionDocument,
    ) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        Box::pin(async move {
            let log = SessionLog::import(document)?;
            self.import_log(&log).await?;
            Ok(Arc::new(self.session(log.id(), None)) as Arc<dyn Session>)
        })
    }
}
