//! The SQLite schema and its migrations: each migration runs once, in order, inside a
//! transaction, and is recorded in `dive_migrations`. A database migrated by a newer version
//! of this library is refused rather than written to.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use dive_core::{SessionError, Timestamp};

use super::backend;

/// Migrations, oldest first: `(version, SQL)`.
pub(crate) const MIGRATIONS: &[(i64, &str)] = &[
    (
        1,
        "CREATE TABLE sessions (
        id          TEXT PRIMARY KEY,
        title       TEXT,
        created_at  INTEGER NOT NULL,  -- ms since the Unix epoch
        updated_at  INTEGER NOT NULL,
        revision    INTEGER NOT NULL,
        event_count INTEGER NOT NULL,
        suspended   INTEGER NOT NULL,  -- 0 or 1
        forked_from TEXT,
        metadata    TEXT NOT NULL      -- JSON object
    );
    CREATE INDEX sessions_by_update ON sessions (updated_at DESC, id);
    CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,   -- position in the session, from 0
        event_id   TEXT NOT NULL,
        kind       TEXT NOT NULL,      -- 'turn' or 'compaction'
        revision   INTEGER NOT NULL,
        data       TEXT NOT NULL,      -- JSON turn record or compaction
        PRIMARY KEY (session_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE claims (
        session_id TEXT PRIMARY KEY,
        owner      TEXT NOT NULL,
        expires_at INTEGER NOT NULL    -- ms since the Unix epoch
    );",
    ),
    // Fencing: a takeover raises the attempt; a write under an older attempt is refused.
    (2, "ALTER TABLE claims ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;"),
];

/// The newest schema version this library knows.
pub(crate) fn latest() -> i64 {
    MIGRATIONS.last().map_or(0, |(v, _)| *v)
}

/// Sets the connection options and brings the schema up to date.
pub(crate) fn prepare(conn: &mut Connection, full_sync: bool) -> Result<(), SessionError> {
    conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(backend)?;
    // WAL: readers never block the writer; NORMAL survives process crashes, FULL power loss.
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(backend)?;
    let sync = if full_sync { "FULL" } else { "NORMAL" };
    conn.execute_batch(&format!("PRAGMA synchronous = {sync}; PRAGMA foreign_keys = ON;"))
        .map_err(backend)?;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(backend)?;
    tx.execute_batch(
        "CREATE TABLE IF NOT EXISTS dive_migrations (
            version    INTEGER PRIMARY KEY,
            applied_at INTEGER NOT NULL
        )",
    )
    .map_err(backend)?;
    let current: i64 = tx
        .query_row("SELECT MAX(version) FROM dive_migrations", [], |r| r.get::<_, Option<i64>>(0))
        .optional()
        .map_err(backend)?
        .flatten()
        .unwrap_or(0);
    if current > latest() {
        return Err(SessionError::Corrupt {
            location: "dive_migrations".into(),
            line: None,
            reason: format!(
                "the database has schema version {current}, newer than this library knows ({}); not changed",
                latest()
            ),
        });
    }
    for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > current) {
        tx.execute_batch(sql).map_err(backend)?;
        tx.execute(
            "INSERT INTO dive_migrations (version, applied_at) VALUES (?1, ?2)",
            (version, Timestamp::now().as_millis()),
        )
        .map_err(backend)?;
    }
    tx.commit().map_err(backend)
}
