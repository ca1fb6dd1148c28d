//! Run locks are owned by each store: every object a store opens for one id shares that id's
//! lock, and another store's session with the same id has its own.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use dive_core::{Session, SessionStore};
use dive_session::{FileStore, MemoryStore};
use futures::executor::block_on;

fn check(first: &dyn SessionStore, second: &dyn SessionStore) {
    let open = |store: &dyn SessionStore, id: &str| -> Arc<dyn Session> { block_on(store.open(id)).unwrap() };
    let (a, b) = (open(first, "chat"), open(first, "chat"));
    let lock = a.run_lock().expect("the store's sessions hand out a run lock");
    let held = lock.try_lock().unwrap();
    assert!(b.run_lock().unwrap().try_lock().is_none(), "one store, one id: one lock");
    assert!(open(first, "other").run_lock().unwrap().try_lock().is_some(), "another id is free");
    assert!(open(second, "chat").run_lock().unwrap().try_lock().is_some(), "another store's chat is free");
    drop(held);
    assert!(b.run_lock().unwrap().try_lock().is_some(), "released for every object of the id");
}

#[test]
fn memory_stores_own_their_run_locks() {
    check(&MemoryStore::new(), &MemoryStore::new());
}

#[test]
fn file_stores_own_their_run_locks() {
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    check(&FileStore::new(one.path()).unwrap(), &FileStore::new(two.path()).unwrap());
}

#[cfg(feature = "sqlite")]
#[test]
fn sqlite_stores_own_their_run_locks() {
    use dive_session::SqliteStore;
    check(&SqliteStore::open_in_memory().unwrap(), &SqliteStore::open_in_memory().unwrap());
}
