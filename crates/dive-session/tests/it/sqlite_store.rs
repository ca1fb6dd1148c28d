//! The SQLite store: conformance, durability across reopen, conflicts between two stores
//! sharing one database file, schema versions.
#![cfg(feature = "sqlite")]
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use crate::common;

use dive_core::{Message, SessionError, SessionStore, Turn};
use dive_session::SqliteStore;
use dive_test::conformance::session_store_conformance;
use futures::executor::block_on;

#[test]
fn sqlite_store_passes_the_conformance_suite() {
    let dirs: std::cell::RefCell<Vec<tempfile::TempDir>> = Default::default();
    let report = block_on(session_store_conformance(|| {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(dir.path().join("sessions.db")).unwrap();
        dirs.borrow_mut().push(dir);
        store
    }));
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
}

#[test]
fn in_memory_database_passes_the_conformance_suite() {
    let report = block_on(session_store_conformance(|| SqliteStore::open_in_memory().unwrap()));
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
}

#[test]
fn turns_survive_a_new_store_instance() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    for (i, text) in ["one", "two"].iter().enumerate() {
        let s = block_on(SqliteStore::open(&db).unwrap().open("s")).unwrap();
        block_on(s.save_turn(&Turn::completed(format!("t{i}"), vec![Message::user(*text)]))).unwrap();
    }
    let snap = block_on(block_on(SqliteStore::open(&db).unwrap().open("s")).unwrap().load()).unwrap();
    assert_eq!(snap.history, vec![Message::user("one"), Message::user("two")]);
    assert_eq!(snap.revision, 2);
}

#[test]
fn two_stores_on_one_file_conflict_instead_of_losing_an_update() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let a = block_on(SqliteStore::open(&db).unwrap().open("s")).unwrap();
    let b = block_on(SqliteStore::open(&db).unwrap().open("s")).unwrap();
    let base = block_on(b.load()).unwrap().revision; // b caches revision 0
    let rev =
        block_on(a.as_turn_store().unwrap().checkpoint_turn(base, &Turn::completed("a", vec![]))).unwrap();
    let lost = block_on(b.as_turn_store().unwrap().checkpoint_turn(base, &Turn::completed("b", vec![])));
    assert!(matches!(lost, Err(SessionError::RevisionConflict { actual, .. }) if actual == rev), "{lost:?}");
    // An unchecked save from the stale store re-reads first: both turns are kept.
    block_on(b.save_turn(&Turn::completed("b", vec![Message::user("b")]))).unwrap();
    assert_eq!(block_on(a.as_history().unwrap().document()).unwrap().events.len(), 2);
}

#[test]
fn claims_are_lease_rows_shared_by_stores() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let a = block_on(SqliteStore::open(&db).unwrap().open("s")).unwrap();
    let b = block_on(SqliteStore::open(&db).unwrap().open("s")).unwrap();
    let ttl = std::time::Duration::from_secs(30);
    block_on(a.as_claimer().unwrap().claim("proc-a", ttl)).unwrap();
    let refused = block_on(b.as_claimer().unwrap().claim("proc-b", ttl));
    assert!(
        matches!(refused, Err(SessionError::Claimed { ref owner, .. }) if owner == "proc-a"),
        "{refused:?}"
    );
    block_on(a.as_claimer().unwrap().release("proc-a")).unwrap();
    block_on(b.as_claimer().unwrap().claim("proc-b", ttl)).unwrap();
    block_on(b.as_claimer().unwrap().release("proc-b")).unwrap();
    // a's lease lapses and b takes over: a, still believing it holds the claim, is refused.
    block_on(a.as_claimer().unwrap().claim("proc-a", std::time::Duration::from_millis(1))).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    block_on(b.as_claimer().unwrap().claim("proc-b", ttl)).unwrap();
    let stale = block_on(a.save_turn(&Turn::completed("from-a", vec![])));
    assert!(matches!(stale, Err(SessionError::Claimed { ref owner, .. }) if owner == "proc-b"), "{stale:?}");
    block_on(b.save_turn(&Turn::completed("from-b", vec![]))).unwrap();
}

/// Leases are fenced by an attempt number: a takeover raises it, so the old holder is refused
/// even when the new one uses the same owner name (a restarted host), and a release keeps the
/// counter, so the next holder's attempt is higher still.
#[test]
fn a_takeover_raises_the_attempt_and_fences_the_old_lease_even_under_the_same_owner() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let a = block_on(SqliteStore::open(&db).unwrap().open("s")).unwrap();
    let b = block_on(SqliteStore::open(&db).unwrap().open("s")).unwrap();
    let attempt = || -> i64 {
        rusqlite_conn(&db)
            .query_row("SELECT attempt FROM claims WHERE session_id = 's'", [], |r| r.get(0))
            .unwrap()
    };
    let ttl = std::time::Duration::from_secs(30);
    block_on(a.as_claimer().unwrap().claim("host-1", std::time::Duration::from_millis(1))).unwrap();
    block_on(a.save_turn(&Turn::completed("first", vec![]))).unwrap();
    assert_eq!(attempt(), 1);
    std::thread::sleep(std::time::Duration::from_millis(5));
    block_on(b.as_claimer().unwrap().claim("host-1", ttl)).unwrap();
    assert_eq!(attempt(), 2, "the lapsed lease was taken over");
    block_on(b.as_claimer().unwrap().claim("host-1", ttl)).unwrap();
    assert_eq!(attempt(), 2, "a live lease renewed by its holder keeps its attempt");
    let stale = block_on(a.save_turn(&Turn::completed("stale", vec![])));
    assert!(matches!(stale, Err(SessionError::Claimed { .. })), "{stale:?}");
    block_on(b.save_turn(&Turn::completed("second", vec![]))).unwrap();
    block_on(b.as_claimer().unwrap().release("host-1")).unwrap();
    block_on(a.as_claimer().unwrap().claim("host-2", ttl)).unwrap();
    assert_eq!(attempt(), 3, "a release keeps the counter");
    let turns = block_on(a.as_history().unwrap().document()).unwrap().turns();
    assert_eq!(turns.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["first", "second"]);
}

/// A database of schema version 1 (claims without attempts) is migrated on open; its live
/// lease keeps fencing, now at attempt 1.
#[test]
fn a_version_1_database_gains_lease_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    drop(SqliteStore::open(&db).unwrap());
    let conn = rusqlite_conn(&db);
    conn.execute_batch(
        "ALTER TABLE claims DROP COLUMN attempt; DELETE FROM dive_migrations WHERE version = 2;
         INSERT INTO claims (session_id, owner, expires_at) VALUES ('s', 'old-holder', 9999999999999);",
    )
    .unwrap();
    drop(conn);
    let s = block_on(SqliteStore::open(&db).unwrap().open("s")).unwrap();
    let refused = block_on(s.as_claimer().unwrap().claim("new", std::time::Duration::from_secs(1)));
    assert!(
        matches!(refused, Err(SessionError::Claimed { ref owner, .. }) if owner == "old-holder"),
        "{refused:?}"
    );
    let conn = rusqlite_conn(&db);
    let (version, attempt): (i64, i64) = conn
        .query_row("SELECT (SELECT MAX(version) FROM dive_migrations), attempt FROM claims", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((version, attempt), (2, 1));
}

#[test]
fn a_database_from_a_newer_version_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    drop(SqliteStore::open(&db).unwrap());
    let conn = rusqlite_conn(&db);
    conn.execute("INSERT INTO dive_migrations (version, applied_at) VALUES (99, 0)", []).unwrap();
    drop(conn);
    let err = SqliteStore::open(&db).err().unwrap();
    assert!(matches!(err, SessionError::Corrupt { .. }), "{err}");
}

fn rusqlite_conn(path: &std::path::Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

/// Threads on two store instances (separate caches and locks or connections, like two
/// processes) writing one session with revision checks lose nothing.
#[test]
fn concurrent_writers_on_two_connections_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    common::concurrent_writers_lose_nothing(
        &SqliteStore::open(&db).unwrap(),
        &SqliteStore::open(&db).unwrap(),
        &SqliteStore::open(&db).unwrap(),
    );
}
