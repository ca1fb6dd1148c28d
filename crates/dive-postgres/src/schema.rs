//! The schema and its versioned migrations: each runs once, in order, in one transaction
//! holding an advisory lock (so workers starting together migrate once), and is recorded in
//! `dive_migrations`. A schema migrated by a newer version of this library is refused, not
//! written to.

use deadpool_postgres::Client;

use crate::error::{Error, Result};

/// Migrations, oldest first: `(version, SQL)`.
const MIGRATIONS: &[(i64, &str)] = &[(
    1,
    "CREATE TABLE sessions (
        id          TEXT PRIMARY KEY,
        title       TEXT,
        created_at  BIGINT NOT NULL,   -- ms since the Unix epoch
        updated_at  BIGINT NOT NULL,
        revision    BIGINT NOT NULL,
        event_count BIGINT NOT NULL,
        suspended   BOOLEAN NOT NULL,
        forked_from TEXT,
        metadata    TEXT NOT NULL      -- JSON object
    );
    CREATE INDEX sessions_by_update ON sessions (updated_at DESC, id);
    CREATE INDEX sessions_by_suspension ON sessions (suspended, updated_at DESC, id);
    CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq        BIGINT NOT NULL,    -- position in the session, from 0
        event_id   TEXT NOT NULL,
        kind       TEXT NOT NULL,      -- 'turn' or 'compaction'
        revision   BIGINT NOT NULL,
        data       TEXT NOT NULL,      -- JSON turn record or compaction
        PRIMARY KEY (session_id, seq)
    );
    -- One lease a session: the owner (NULL once released), a fencing attempt that only
    -- grows, the expiry on the database's clock.
    CREATE TABLE claims (
        session_id TEXT PRIMARY KEY,
        owner      TEXT,
        attempt    BIGINT NOT NULL,
        expires_at TIMESTAMPTZ
    );
    -- Intent before effect: a row is 'pending' before the effect runs, 'done' with its result.
    CREATE TABLE effects (
        effect_id    TEXT PRIMARY KEY,
        session_id   TEXT,
        status       TEXT NOT NULL,    -- 'pending' or 'done'
        attempt      BIGINT,
        result       JSONB,
        created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
        completed_at TIMESTAMPTZ
    );
    CREATE TABLE runs (
        seq          BIGSERIAL UNIQUE,
        id           TEXT PRIMARY KEY,
        session_id   TEXT NOT NULL,
        input        JSONB NOT NULL,
        status       TEXT NOT NULL,    -- 'queued', 'running', 'done' or 'failed'
        owner        TEXT,
        attempt      BIGINT NOT NULL DEFAULT 0,
        deliveries   INTEGER NOT NULL DEFAULT 0,
        result       JSONB,
        submitted_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        completed_at TIMESTAMPTZ
    );
    CREATE INDEX runs_queued ON runs (seq) WHERE status = 'queued';
    CREATE INDEX runs_running ON runs (session_id) WHERE status = 'running';",
)];

/// The newest schema version this library knows.
#[must_use]
pub fn latest_version() -> i64 {
    MIGRATIONS.last().map_or(0, |(v, _)| *v)
}

/// The schema version recorded in the database (0 when never migrated).
pub(crate) async fn current_version(client: &Client) -> Result<i64> {
    let exists =
        client.query_one("SELECT to_regclass('dive_migrations') IS NOT NULL", &[]).await?.get::<_, bool>(0);
    if !exists {
        return Ok(0);
    }
    Ok(client.query_one("SELECT COALESCE(MAX(version), 0) FROM dive_migrations", &[]).await?.get(0))
}

/// Applies every pending migration; returns the number applied.
pub(crate) async fn migrate(client: &mut Client, schema: Option<&str>) -> Result<usize> {
    let tx = client.transaction().await?;
    let key = format!("dive_migrations:{}", schema.unwrap_or(""));
    tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&key]).await?;
    if let Some(schema) = schema {
        // The name is checked by PostgresConfig::with_schema ([a-z0-9_]), so quoting suffices.
        tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\"")).await?;
    }
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS dive_migrations (
            version    BIGINT PRIMARY KEY,
            applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )",
    )
    .await?;
    let current: i64 =
        tx.query_one("SELECT COALESCE(MAX(version), 0) FROM dive_migrations", &[]).await?.get(0);
    if current > latest_version() {
        return Err(Error::SchemaVersion {
            found: current,
            expected: latest_version(),
            advice: "a newer version of dive-postgres migrated it; upgrade (nothing was changed)",
        });
    }
    let mut applied = 0;
    for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > current) {
        tx.batch_execute(sql).await?;
        tx.execute("INSERT INTO dive_migrations (version) VALUES ($1)", &[version]).await?;
        applied += 1;
    }
    tx.commit().await?;
    Ok(applied)
}

/// Fails unless the schema is exactly at [`latest_version`].
pub(crate) async fn check(client: &Client) -> Result<()> {
    let found = current_version(client).await?;
    if found == latest_version() {
        return Ok(());
    }
    Err(Error::SchemaVersion {
        found,
        expected: latest_version(),
        advice: if found > latest_version() {
            "a newer version of dive-postgres migrated it; upgrade (nothing was changed)"
        } else {
            "apply the migrations first (dive_postgres::migrate) or enable migrate_on_open"
        },
    })
}
