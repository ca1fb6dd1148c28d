//! A session exported as JSON moves between all three stores unchanged.
#![cfg(feature = "sqlite")]
#![allow(clippy::unwrap_used)] // test helpers outside #[test] functions

use dive_core::{
    Message, OutcomeReason, SessionDocument, SessionEdit, SessionStore, Turn, TurnOutcome, Usage,
};
use dive_session::{FileStore, MemoryStore, SqliteStore};
use futures::executor::block_on;

fn export(store: &dyn SessionStore, id: &str) -> String {
    let s = block_on(store.open(id)).unwrap();
    serde_json::to_string_pretty(&block_on(s.as_history().unwrap().document()).unwrap()).unwrap()
}

fn import(store: &dyn SessionStore, json: &str) {
    let doc: SessionDocument = serde_json::from_str(json).unwrap();
    block_on(store.import(&doc)).unwrap();
}

#[test]
fn a_session_round_trips_through_memory_file_and_sqlite() {
    let memory = MemoryStore::new();
    let s = block_on(memory.open("trip")).unwrap();
    let h = s.as_history().unwrap();
    block_on(h.edit(None, &SessionEdit::SetTitle(Some("Trip".into())))).unwrap();
    let mut meta = serde_json::Map::new();
    meta.insert("owner".into(), serde_json::json!({"name": "ada", "tags": [1, 2]}));
    block_on(h.edit(None, &SessionEdit::SetMetadata(meta))).unwrap();
    let mut t1 = Turn::completed("t1", vec![Message::user("plan a trip"), Message::assistant("where?")]);
    t1.usage = Usage::new(120, 30);
    block_on(s.save_turn(&t1)).unwrap();
    block_on(h.edit(None, &SessionEdit::Compact { summary: vec![Message::user("planning a trip")] }))
        .unwrap();
    let mut t2 = Turn::new("t2", vec![Message::user("Lisbon")]);
    t2.close(TurnOutcome::new(OutcomeReason::OutputLimit, vec![]));
    block_on(s.save_turn(&t2)).unwrap();
    let original = export(&memory, "trip");

    let dir = tempfile::tempdir().unwrap();
    let file = FileStore::new(dir.path().join("files")).unwrap();
    import(&file, &original);
    let from_file = export(&FileStore::new(dir.path().join("files")).unwrap(), "trip");
    assert_eq!(from_file, original, "memory -> file -> JSON is unchanged");

    let sqlite = SqliteStore::open(dir.path().join("s.db")).unwrap();
    import(&sqlite, &from_file);
    let from_sqlite = export(&SqliteStore::open(dir.path().join("s.db")).unwrap(), "trip");
    assert_eq!(from_sqlite, original, "file -> sqlite -> JSON is unchanged");

    let back = MemoryStore::new();
    import(&back, &from_sqlite);
    let snap = block_on(block_on(back.open("trip")).unwrap().load()).unwrap();
    assert_eq!(snap.history, vec![Message::user("planning a trip")]);
    assert_eq!(snap.open_turn.map(|t| t.id), Some("t2".into()));
    let doc: SessionDocument = serde_json::from_str(&from_sqlite).unwrap();
    assert_eq!(doc.total_usage().input_tokens, 120);
    assert!(original.contains("\"format\": \"dive.session\"") && original.contains("\"version\": 1"));
}
