//! Helpers shared by the store test files.
#![allow(clippy::unwrap_used, dead_code)] // test helpers; not every test file uses each one

use dive_core::{Message, SessionError, SessionStore, Turn};
use futures::executor::block_on;

/// Four threads on two store instances (like two processes) each load, then checkpoint at the
/// loaded revision, retrying on conflict; a third instance then checks every write landed
/// exactly once and the revisions are contiguous.
pub fn concurrent_writers_lose_nothing(a: &dyn SessionStore, b: &dyn SessionStore, check: &dyn SessionStore) {
    let stores = [a, b];
    std::thread::scope(|scope| {
        for writer in 0..4 {
            let store = stores[writer % 2];
            scope.spawn(move || {
                let s = block_on(store.open("shared")).unwrap();
                let ts = s.as_turn_store().unwrap();
                for i in 0..10 {
                    let turn = Turn::completed(format!("w{writer}-{i}"), vec![Message::user("x")]);
                    loop {
                        let rev = block_on(ts.load()).unwrap().revision;
                        match block_on(ts.checkpoint_turn(rev, &turn)) {
                            Ok(_) => break,
                            Err(SessionError::RevisionConflict { .. }) => {} // reload and retry
                            Err(e) => panic!("{e}"),
                        }
                    }
                }
            });
        }
    });
    let s = block_on(check.open("shared")).unwrap();
    let doc = block_on(s.as_history().unwrap().document()).unwrap();
    let mut ids: Vec<String> = doc.turns().into_iter().map(|t| t.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!((ids.len(), doc.revision), (40, 40), "every write once, revisions contiguous");
}
