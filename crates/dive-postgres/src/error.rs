//! [`Error`]: what the store's own operations (connect, migrate, leases, queue, effects) can
//! fail with. Session trait methods return dive-core's `SessionError`; [`Error`] converts
//! into it.

use dive_core::SessionError;

/// A boxed cause (a driver or pool error), kept as a source so our API does not expose
/// `tokio-postgres` types.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

/// The failures of `dive-postgres`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The connection settings are invalid (a bad connection string or schema name).
    #[error("invalid PostgreSQL configuration: {0}")]
    Config(String),
    /// The database refused or failed a statement.
    #[error("PostgreSQL error: {0}")]
    Database(#[source] Cause),
    /// No connection could be taken from the pool (the server is unreachable, or the pool
    /// timed out).
    #[error("no PostgreSQL connection: {0}")]
    Pool(#[source] Cause),
    /// The database schema is not the one this library writes: newer (migrated by a newer
    /// version; nothing is changed), or older while migrations on open are turned off.
    #[error("schema version {found} in the database, this library needs {expected}: {advice}")]
    SchemaVersion {
        /// The version found.
        found: i64,
        /// The version this library knows.
        expected: i64,
        /// What to do.
        advice: &'static str,
    },
    /// The lease is no longer held: it was released, or a newer owner took it over (a
    /// higher attempt). Nothing was written.
    #[error("lease on session {session_id:?} (attempt {attempt}) is lost; now held by {holder:?}")]
    LeaseLost {
        /// The session.
        session_id: String,
        /// The attempt the writer held.
        attempt: u64,
        /// The current holder (empty when nobody holds it).
        holder: String,
    },
    /// A result was delivered for an effect that already has a different recorded result.
    #[error("effect {effect_id:?} already has a different result; the duplicate was refused")]
    EffectConflict {
        /// The effect id.
        effect_id: String,
    },
    /// A result was delivered for an effect with no recorded intent.
    #[error("effect {0:?} has no recorded intent")]
    NoIntent(String),
    /// A session operation failed.
    #[error(transparent)]
    Session(#[from] SessionError),
}

impl Error {
    pub(crate) fn db(e: tokio_postgres::Error) -> Self {
        Self::Database(Box::new(e))
    }

    pub(crate) fn pool(e: deadpool_postgres::PoolError) -> Self {
        Self::Pool(Box::new(e))
    }
}

impl From<tokio_postgres::Error> for Error {
    fn from(e: tokio_postgres::Error) -> Self {
        Self::db(e)
    }
}

impl From<deadpool_postgres::PoolError> for Error {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        Self::pool(e)
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Self::Session(SessionError::Serialization(e))
    }
}

impl From<Error> for SessionError {
    fn from(e: Error) -> Self {
        match e {
            Error::Session(e) => e,
            Error::LeaseLost { session_id, holder, .. } => {
                SessionError::Claimed { id: session_id, owner: holder }
            }
            other => SessionError::Backend(Box::new(other)),
        }
    }
}

/// A crate result.
pub type Result<T, E = Error> = std::result::Result<T, E>;
