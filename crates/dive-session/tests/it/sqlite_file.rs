//! The SQLite store's file: a checkpoint leaves every session in the `.db` file alone, and a
//! file SQLite finds damaged is reported as such and never written again.
#![cfg(feature = "sqlite")]
#![allow(clippy::unwrap_used)]

use dive_core::{Message, Session, SessionStore, Turn};
use dive_session::SqliteStore;
use dive_session::sqlite::is_file_damage;
use futures::executor::block_on;

fn save(session: &dyn Session, id: &str, text: &str) {
    block_on(session.save_turn(&Turn::completed(id, vec![Message::user(text), Message::assistant("ok")])))
        .unwrap();
}

#[test]
fn a_checkpoint_leaves_every_session_in_the_db_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let store = SqliteStore::open(&db).unwrap();
    for n in 0..3 {
        let session = block_on(store.open(&format!("s{n}"))).unwrap();
        save(&*session, "t1", &format!("hello {n}"));
    }
    let wal = dir.path().join("sessions.db-wal");
    assert!(std::fs::metadata(&wal).unwrap().len() > 0, "the turns sit in the log before the checkpoint");
    assert!(block_on(store.checkpoint()).unwrap(), "nothing else holds the log");
    assert_eq!(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0), 0, "the log is truncated");

    // The store is still open: the copy owes nothing to a close.
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("sessions.db");
    std::fs::copy(&db, &copy).unwrap();
    let reopened = SqliteStore::open(&copy).unwrap();
    let page = block_on(reopened.list(&dive_core::ListOptions::all())).unwrap();
    assert_eq!(page.sessions.len(), 3);
    let s2 = block_on(reopened.open("s2")).unwrap();
    assert_eq!(block_on(s2.load()).unwrap().history[0], Message::user("hello 2"));
    drop(store);
}

#[test]
fn a_damaged_file_is_reported_and_never_written_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let store = SqliteStore::open(&db).unwrap();
    let session = block_on(store.open("chat")).unwrap();
    save(&*session, "t1", "keep me");
    assert!(block_on(store.checkpoint()).unwrap());
    drop((session, store));

    // Overwrite the events table's root page with garbage (the sessions table stays intact).
    let root: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT rootpage FROM sqlite_master WHERE name = 'events'", [], |r| r.get(0))
        .unwrap();
    let mut bytes = std::fs::read(&db).unwrap();
    let start = usize::try_from(root - 1).unwrap() * 4096;
    bytes[start..start + 4096].fill(0xAB);
    std::fs::write(&db, &bytes).unwrap();
    let _ = std::fs::remove_file(dir.path().join("sessions.db-wal"));

    let store = SqliteStore::open(&db).unwrap();
    let session = block_on(store.open("chat")).unwrap();
    let error = block_on(session.load()).unwrap_err();
    assert!(is_file_damage(&error), "{error}");
    assert!(error.to_string().contains("malformed"), "{error}");

    // From now on nothing is written: not a claim (another table), not a checkpoint.
    let claim = block_on(session.as_claimer().unwrap().claim("me", std::time::Duration::from_secs(30)));
    assert!(claim.as_ref().is_err_and(is_file_damage), "{claim:?}");
    assert!(block_on(store.checkpoint()).is_err_and(|e| is_file_damage(&e)));
    let other = block_on(store.open("other")).unwrap();
    assert!(block_on(other.save_turn(&Turn::completed("t9", vec![Message::user("x")]))).is_err());
    drop((session, other, store));
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "the damaged file is exactly as it was");
    let wal = std::fs::metadata(dir.path().join("sessions.db-wal")).map(|m| m.len()).unwrap_or(0);
    assert_eq!(wal, 0, "nothing went to the log either");
}
