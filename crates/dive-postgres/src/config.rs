//! [`PostgresConfig`]: where the database is, which schema the store lives in, the pool size,
//! TLS, and whether migrations run on open.

use std::fmt;
use std::time::Duration;

use crate::error::{Error, Result};

/// The variable [`PostgresConfig::from_env`] reads.
pub const URL_VAR: &str = "DIVE_POSTGRES_URL";

/// How to reach the database and how the store uses it.
///
/// ```
/// use dive_postgres::PostgresConfig;
/// let config = PostgresConfig::new("host=127.0.0.1 user=postgres password=hunter2 dbname=test")?
///     .with_schema("agents")?
///     .with_pool_size(8);
/// assert_eq!(config.schema(), Some("agents"));
/// assert!(!format!("{config:?}").contains("hunter2"), "the password is never printed");
/// # Ok::<(), dive_postgres::Error>(())
/// ```
#[derive(Clone)]
#[must_use]
pub struct PostgresConfig {
    pub(crate) pg: tokio_postgres::Config,
    pub(crate) schema: Option<String>,
    pub(crate) pool_size: usize,
    pub(crate) wait_timeout: Duration,
    pub(crate) migrate_on_open: bool,
    #[cfg(feature = "tls")]
    pub(crate) tls: Option<rustls::ClientConfig>,
}

impl PostgresConfig {
    /// Settings from a libpq connection string (`host=… user=… dbname=…`) or a
    /// `postgresql://` URL. Defaults: the `public` schema (or the server's `search_path`),
    /// a pool of 16 connections, migrations on open, no TLS.
    ///
    /// # Errors
    /// [`Error::Config`] when the string does not parse.
    pub fn new(connection: &str) -> Result<Self> {
        let pg: tokio_postgres::Config =
            connection.parse().map_err(|e: tokio_postgres::Error| Error::Config(e.to_string()))?;
        Ok(Self {
            pg,
            schema: None,
            pool_size: 16,
            wait_timeout: Duration::from_secs(30),
            migrate_on_open: true,
            #[cfg(feature = "tls")]
            tls: None,
        })
    }

    /// Settings from `DIVE_POSTGRES_URL` ([`URL_VAR`]).
    ///
    /// # Errors
    /// [`Error::Config`] when the variable is unset or does not parse.
    #[allow(clippy::disallowed_methods)] // a from_env-style constructor
    pub fn from_env() -> Result<Self> {
        let url = std::env::var(URL_VAR).map_err(|_| Error::Config(format!("{URL_VAR} is not set")))?;
        Self::new(&url)
    }

    /// Keeps the store's tables in `schema` (created when absent): several stores, or
    /// tests, can share one database without seeing each other. Names are 1–63 characters
    /// of `[a-z0-9_]`, not starting with a digit.
    ///
    /// # Errors
    /// [`Error::Config`] for any other name.
    pub fn with_schema(mut self, schema: impl Into<String>) -> Result<Self> {
        let schema = schema.into();
        let valid = !schema.is_empty()
            && schema.len() < 64
            && !schema.starts_with(|c: char| c.is_ascii_digit())
            && schema.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !valid {
            return Err(Error::Config(format!(
                "schema name {schema:?}: use 1-63 characters of [a-z0-9_], not starting with a digit"
            )));
        }
        self.schema = Some(schema);
        Ok(self)
    }

    /// The pool's maximum number of connections (at least 2: the queue's reaper uses a
    /// second connection while it holds a run).
    pub fn with_pool_size(mut self, size: usize) -> Self {
        self.pool_size = size.max(2);
        self
    }

    /// How long an operation waits for a free pooled connection.
    pub fn with_wait_timeout(mut self, timeout: Duration) -> Self {
        self.wait_timeout = timeout;
        self
    }

    /// Whether [`PostgresStore::connect`](crate::PostgresStore::connect) applies pending
    /// migrations (default `true`). Turn it off when migrations run out of band
    /// ([`migrate`](crate::migrate) from a deploy step); connecting then refuses a schema that
    /// is not up to date.
    pub fn with_migrate_on_open(mut self, migrate: bool) -> Self {
        self.migrate_on_open = migrate;
        self
    }

    /// Connects over TLS with `tls` (rustls on ring; feature `tls`). The server's
    /// certificate is checked by the verifier in `tls`.
    #[cfg(feature = "tls")]
    #[cfg_attr(docsrs, doc(cfg(feature = "tls")))]
    pub fn with_tls(mut self, tls: rustls::ClientConfig) -> Self {
        self.tls = Some(tls);
        self
    }

    /// The schema the store's tables live in, when set.
    #[must_use]
    pub fn schema(&self) -> Option<&str> {
        self.schema.as_deref()
    }

    /// The connection settings with the schema on the search path.
    pub(crate) fn connection(&self) -> tokio_postgres::Config {
        let mut pg = self.pg.clone();
        if let Some(schema) = &self.schema {
            pg.options(format!("-c search_path={schema}"));
        }
        pg
    }
}

impl fmt::Debug for PostgresConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hosts: Vec<String> = self
            .pg
            .get_hosts()
            .iter()
            .map(|h| match h {
                tokio_postgres::config::Host::Tcp(name) => name.clone(),
                #[cfg(unix)]
                tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
            })
            .collect();
        f.debug_struct("PostgresConfig")
            .field("hosts", &hosts)
            .field("ports", &self.pg.get_ports())
            .field("user", &self.pg.get_user())
            .field("dbname", &self.pg.get_dbname())
            .field("password", &self.pg.get_password().map(|_| "[redacted]"))
            .field("schema", &self.schema)
            .field("pool_size", &self.pool_size)
            .field("migrate_on_open", &self.migrate_on_open)
            .finish_non_exhaustive()
    }
}
