//! The JSONL store: conformance, durability across reopen, torn lines, corruption, newer lines.
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use crate::common;

use dive_core::{Message, SessionError, SessionStore, Turn};
use dive_session::FileStore;
use dive_test::conformance::session_store_conformance;
use futures::executor::block_on;

#[test]
fn file_store_passes_the_conformance_suite() {
    let dirs: std::cell::RefCell<Vec<tempfile::TempDir>> = Default::default();
    let report = block_on(session_store_conformance(|| {
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::new(dir.path()).unwrap();
        dirs.borrow_mut().push(dir);
        store
    }));
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
}

fn save(store: &FileStore, id: &str, turn: &Turn) {
    let s = block_on(store.open(id)).unwrap();
    block_on(s.save_turn(turn)).unwrap();
}

#[test]
fn turns_survive_a_new_store_instance() {
    let dir = tempfile::tempdir().unwrap();
    save(&FileStore::new(dir.path()).unwrap(), "s", &Turn::completed("t1", vec![Message::user("one")]));
    save(&FileStore::new(dir.path()).unwrap(), "s", &Turn::completed("t2", vec![Message::user("two")]));
    let s = block_on(FileStore::new(dir.path()).unwrap().open("s")).unwrap();
    let snap = block_on(s.load()).unwrap();
    assert_eq!(snap.history.len(), 2);
    assert_eq!(snap.revision, 2);
    let text = std::fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
    assert_eq!(text.lines().count(), 3, "header + one appended line a turn:\n{text}");
}

#[test]
fn a_torn_final_line_is_dropped_and_healed() {
    let dir = tempfile::tempdir().unwrap();
    save(&FileStore::new(dir.path()).unwrap(), "s", &Turn::completed("t1", vec![Message::user("kept")]));
    let path = dir.path().join("s.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"line_type\":\"turn\",\"data\":{\"id\":\"t2\",\"sta");
    std::fs::write(&path, &text).unwrap();
    let s = block_on(FileStore::new(dir.path()).unwrap().open("s")).unwrap();
    assert_eq!(block_on(s.load()).unwrap().history[0].text(), "kept");
    let healed = std::fs::read_to_string(&path).unwrap();
    assert!(healed.ends_with('\n') && !healed.contains("\"t2\""), "file healed:\n{healed}");
}

#[test]
fn corruption_in_the_middle_is_a_typed_error_and_the_file_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::new(dir.path()).unwrap();
    save(&store, "s", &Turn::completed("t1", vec![Message::user("a")]));
    save(&store, "s", &Turn::completed("t2", vec![Message::user("b")]));
    let path = dir.path().join("s.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1] = "{not json";
    let broken = format!("{}\n", lines.join("\n"));
    std::fs::write(&path, &broken).unwrap();
    let err = block_on(FileStore::new(dir.path()).unwrap().open("s")).err().unwrap();
    assert!(
        matches!(&err, SessionError::Corrupt { line: Some(2), location, .. } if location.ends_with("s.jsonl")),
        "names the file and line: {err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken, "never overwritten");
}

#[test]
fn lines_from_newer_versions_are_kept_on_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    save(&FileStore::new(dir.path()).unwrap(), "s", &Turn::completed("t1", vec![Message::user("a")]));
    let path = dir.path().join("s.jsonl");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"line_type\":\"hologram\",\"data\":{\"x\":1}}\n");
    std::fs::write(&path, &text).unwrap();
    let store = FileStore::new(dir.path()).unwrap();
    let s = block_on(store.open("s")).unwrap();
    let mut open = Turn::new("t2", vec![Message::user("b")]);
    open.close(dive_core::TurnOutcome::new(dive_core::OutcomeReason::OutputLimit, vec![]));
    block_on(s.save_turn(&open)).unwrap();
    open.messages.push(Message::assistant("c"));
    block_on(s.save_turn(&open)).unwrap(); // replaces the open turn: a full rewrite
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.contains("\"line_type\":\"hologram\""), "{after}");
    assert_eq!(block_on(s.load()).unwrap().open_turn.unwrap().messages.len(), 2);
}

#[test]
fn claims_exclude_owners_across_store_instances() {
    let dir = tempfile::tempdir().unwrap();
    let a = block_on(FileStore::new(dir.path()).unwrap().open("s")).unwrap();
    let b = block_on(FileStore::new(dir.path()).unwrap().open("s")).unwrap();
    let ttl = std::time::Duration::from_secs(30);
    block_on(a.as_claimer().unwrap().claim("proc-a", ttl)).unwrap();
    let refused = block_on(b.as_claimer().unwrap().claim("proc-b", ttl));
    assert!(
        matches!(refused, Err(SessionError::Claimed { ref owner, .. }) if owner == "proc-a"),
        "{refused:?}"
    );
    block_on(a.as_claimer().unwrap().release("proc-a")).unwrap();
    block_on(b.as_claimer().unwrap().claim("proc-b", ttl)).unwrap();
}

#[test]
fn two_store_instances_conflict_instead_of_losing_an_update() {
    let dir = tempfile::tempdir().unwrap();
    let a = block_on(FileStore::new(dir.path()).unwrap().open("s")).unwrap();
    let b = block_on(FileStore::new(dir.path()).unwrap().open("s")).unwrap();
    let base = block_on(b.load()).unwrap().revision;
    let rev =
        block_on(a.as_turn_store().unwrap().checkpoint_turn(base, &Turn::completed("a", vec![]))).unwrap();
    let lost = block_on(b.as_turn_store().unwrap().checkpoint_turn(base, &Turn::completed("b", vec![])));
    assert!(matches!(lost, Err(SessionError::RevisionConflict { actual, .. }) if actual == rev), "{lost:?}");
    // An unchecked save from the stale instance re-reads the file first: both turns are kept.
    block_on(b.save_turn(&Turn::completed("b", vec![Message::user("b")]))).unwrap();
    let doc = block_on(FileStore::new(dir.path()).unwrap().open("s")).unwrap();
    assert_eq!(block_on(doc.as_history().unwrap().document()).unwrap().events.len(), 2);
}

#[test]
fn a_failed_rewrite_leaves_the_previous_file_intact() {
    use dive_core::SessionEdit;
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::new(dir.path()).unwrap();
    save(&store, "s", &Turn::completed("t1", vec![Message::user("precious")]));
    let path = dir.path().join("s.jsonl");
    let before = std::fs::read(&path).unwrap();
    // The temporary file cannot be created (a directory is in its place), as on a full disk
    // or a read-only directory: the rewrite fails before touching the session file.
    std::fs::create_dir(dir.path().join("s.jsonl.tmp")).unwrap();
    let s = block_on(store.open("s")).unwrap();
    let failed = block_on(s.as_history().unwrap().edit(None, &SessionEdit::SetTitle(Some("new".into()))));
    assert!(matches!(failed, Err(SessionError::Io(_))), "{failed:?}");
    assert_eq!(std::fs::read(&path).unwrap(), before, "the previous content survives byte for byte");
    // The session re-reads the file rather than trusting its failed in-memory change.
    let doc = block_on(s.as_history().unwrap().document()).unwrap();
    assert_eq!(doc.info.title, None);
    std::fs::remove_dir(dir.path().join("s.jsonl.tmp")).unwrap();
    block_on(s.as_history().unwrap().edit(None, &SessionEdit::SetTitle(Some("new".into())))).unwrap();
    let reopened = block_on(FileStore::new(dir.path()).unwrap().open("s")).unwrap();
    let doc = block_on(reopened.as_history().unwrap().document()).unwrap();
    assert_eq!((doc.info.title.as_deref(), doc.messages().len()), (Some("new"), 1));
}

#[test]
fn step_checkpoints_are_appended_and_folded_on_read() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::new(dir.path()).unwrap();
    let s = block_on(store.open("s")).unwrap();
    let mut turn = Turn::new("t1", vec![Message::user("go")]);
    block_on(s.save_turn(&turn)).unwrap();
    turn.messages.push(Message::assistant("step"));
    block_on(s.save_turn(&turn)).unwrap();
    let text = std::fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
    assert_eq!(text.lines().count(), 3, "header, turn, step:\n{text}");
    assert!(text.lines().nth(2).unwrap().contains("\"line_type\":\"step\""));
    let fresh = block_on(FileStore::new(dir.path()).unwrap().open("s")).unwrap();
    let doc = block_on(fresh.as_history().unwrap().document()).unwrap();
    assert_eq!((doc.events.len(), doc.messages().len()), (1, 2), "the step replaces the first record");
    turn.close(dive_core::TurnOutcome::completed(vec![]));
    block_on(s.save_turn(&turn)).unwrap();
    let text = std::fs::read_to_string(dir.path().join("s.jsonl")).unwrap();
    assert_eq!(text.lines().count(), 2, "closing the turn rewrites the steps away:\n{text}");
}

#[test]
fn a_header_from_a_newer_version_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    save(&FileStore::new(dir.path()).unwrap(), "s", &Turn::completed("t1", vec![Message::user("a")]));
    let path = dir.path().join("s.jsonl");
    let text = std::fs::read_to_string(&path).unwrap().replacen("\"version\":1", "\"version\":9", 1);
    std::fs::write(&path, &text).unwrap();
    let err = block_on(FileStore::new(dir.path()).unwrap().open("s")).err().unwrap();
    assert!(matches!(err, SessionError::Corrupt { line: Some(1), .. }), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

/// Threads on two store instances (separate caches and locks or connections, like two
/// processes) writing one session with revision checks lose nothing.
#[test]
fn concurrent_writers_on_two_instances_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    common::concurrent_writers_lose_nothing(
        &FileStore::new(dir.path()).unwrap(),
        &FileStore::new(dir.path()).unwrap(),
        &FileStore::new(dir.path()).unwrap(),
    );
}
