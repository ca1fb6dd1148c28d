//! Shared by this crate's tests: the database URL (`DIVE_TEST_POSTGRES_URL`, default the
//! local server), the reachability rule (under `CI=true` an unreachable server fails the
//! test; elsewhere the test says loudly that it skipped), and a schema of its own for each
//! store, dropped afterwards, so parallel and repeated runs never collide.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use dive_postgres::PostgresConfig;

/// The default: the local server every development and CI machine runs.
pub const DEFAULT_URL: &str = "host=127.0.0.1 user=postgres dbname=test";

pub fn url() -> String {
    std::env::var("DIVE_TEST_POSTGRES_URL").unwrap_or_else(|_| DEFAULT_URL.to_owned())
}

fn blocking<T: Send>(f: impl std::future::Future<Output = T> + Send) -> T {
    std::thread::scope(|s| {
        s.spawn(|| tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f))
            .join()
            .unwrap()
    })
}

async fn connect(url: &str) -> Result<tokio_postgres::Client, String> {
    let connecting = tokio_postgres::connect(url, tokio_postgres::NoTls);
    let (client, connection) = tokio::time::timeout(Duration::from_secs(5), connecting)
        .await
        .map_err(|_| "timed out after 5 s".to_owned())?
        .map_err(|e| e.to_string())?;
    tokio::spawn(connection);
    Ok(client)
}

/// Whether the test database answers. Under `CI=true` an unreachable server panics; elsewhere
/// it prints a loud skip line and returns `false`.
pub fn available(test: &str) -> bool {
    let url = url();
    match blocking(async { connect(&url).await.map(drop) }) {
        Ok(()) => true,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("{test}: PostgreSQL at {url:?} is unreachable under CI=true: {e}")
        }
        Err(e) => {
            // Straight to the process's stderr, past the test harness's capture, so the skip
            // shows even when the test passes.
            let line = format!(
                "\n!!!!!!!! SKIPPED {test}: PostgreSQL at {url:?} is unreachable ({e}); set DIVE_TEST_POSTGRES_URL \
                 or start the local server. Under CI=true this fails. !!!!!!!!\n"
            );
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            false
        }
    }
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A schema of the test's own, dropped (with everything in it) when this is dropped.
pub struct TestSchema {
    pub name: String,
}

impl TestSchema {
    pub fn new(tag: &str) -> Self {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        Self { name: format!("dive_t_{tag}_{}_{n}_{nanos}", std::process::id()) }
    }

    pub fn config(&self) -> PostgresConfig {
        PostgresConfig::new(&url()).unwrap().with_schema(&self.name).unwrap().with_pool_size(4)
    }

    /// Runs the statements of `sql` in this schema on a connection of its own.
    pub async fn batch(&self, sql: &str) {
        let client = connect(&format!("{} options='-c search_path={}'", url(), self.name)).await.unwrap();
        client.batch_execute(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// Runs `sql` in this schema on a connection of its own.
    pub async fn execute(&self, sql: &str) -> Vec<tokio_postgres::Row> {
        let client = connect(&format!("{} options='-c search_path={}'", url(), self.name)).await.unwrap();
        client.query(sql, &[]).await.unwrap_or_else(|e| panic!("{sql}: {e}"))
    }
}

impl Drop for TestSchema {
    fn drop(&mut self) {
        let (url, name) = (url(), self.name.clone());
        let dropped = blocking(async move {
            let client = connect(&url).await?;
            client
                .batch_execute(&format!("DROP SCHEMA IF EXISTS \"{name}\" CASCADE"))
                .await
                .map_err(|e| e.to_string())
        });
        if let Err(e) = dropped {
            eprintln!("could not drop test schema {}: {e}", self.name);
        }
    }
}
