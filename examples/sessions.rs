//! Session stores side by side: the same conversation in memory, in JSONL files and in SQLite;
//! a fork, a non-destructive compaction, and a JSON export moved from one store to another.
//! Offline: no model, no key; files go to a temporary directory.
//!
//! Run with `cargo run -p dive-examples --example sessions`.

use dive::session::{FileStore, MemoryStore, SqliteStore};
use dive::{
    ForkOptions, Message, OutcomeReason, SessionDocument, SessionEdit, SessionStore, Turn, TurnOutcome,
};

/// Records a short conversation: two completed turns and one cut by the output limit.
async fn converse(store: &dyn SessionStore, id: &str) -> Result<(), dive::SessionError> {
    let session = store.open(id).await?;
    let history = session.as_history().ok_or_else(|| dive::SessionError::Rejected("no history".into()))?;
    history.edit(None, &SessionEdit::SetTitle(Some("Weekend in Lisbon".into()))).await?;
    session
        .save_turn(&Turn::completed(
            "t1",
            vec![Message::user("Plan a weekend in Lisbon."), Message::assistant("Day 1: Alfama, tram 28…")],
        ))
        .await?;
    session
        .save_turn(&Turn::completed(
            "t2",
            vec![
                Message::user("Add a day trip."),
                Message::assistant("Sintra: Pena palace and the Moorish castle."),
            ],
        ))
        .await?;
    let mut cut = Turn::new("t3", vec![Message::user("Now list restaurants.")]);
    cut.messages.push(Message::assistant("1. Cervejaria Ramiro, 2. …"));
    cut.close(TurnOutcome::new(OutcomeReason::OutputLimit, vec![]));
    session.save_turn(&cut).await?;
    Ok(())
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("dive-sessions-example-{}", std::process::id()));
    let memory = MemoryStore::new();
    let files = FileStore::new(dir.join("sessions"))?;
    let sqlite = SqliteStore::open(dir.join("sessions.db"))?;
    for (name, store) in [("memory", &memory as &dyn SessionStore), ("file", &files), ("sqlite", &sqlite)] {
        converse(store, "lisbon").await?;
        let snapshot = store.open("lisbon").await?.load().await?;
        eprintln!(
            "{name:>6}: revision {}, {} messages of history, open turn {:?} ({:?})",
            snapshot.revision,
            snapshot.history.len(),
            snapshot.open_turn.as_ref().map(|t| t.id.as_str()),
            snapshot.latest_outcome.map(|o| o.next),
        );
    }

    // A fork stops at the last completed turn unless asked to take the open one.
    let fork = files.fork("lisbon", "lisbon-budget", &ForkOptions::default()).await?;
    eprintln!("fork: open turn {:?}", fork.load().await?.open_turn.map(|t| t.id));

    // Compaction starts a new window; the full transcript keeps every original message.
    let session = sqlite.open("lisbon").await?;
    let history = session.as_history().ok_or("sqlite sessions have a history")?;
    history
        .edit(None, &SessionEdit::Compact { summary: vec![Message::user("Summary: a 3-day Lisbon plan.")] })
        .await?;
    let doc = history.document().await?;
    eprintln!(
        "compacted: window {} messages, transcript {} messages",
        doc.messages().len(),
        doc.all_messages().len()
    );

    // Export as JSON, import into another store.
    let json = serde_json::to_string_pretty(&doc)?;
    let exported: SessionDocument = serde_json::from_str(&json)?;
    // Import under a new id (a copy that keeps the open turn); the document itself is unchanged.
    let renamed = exported.fork("lisbon-copy", &ForkOptions::default().with_open_turn())?;
    let copy = memory.import(&renamed).await?;
    eprintln!(
        "exported {} bytes; imported copy has {} messages in its window",
        json.len(),
        copy.load().await?.history.len()
    );
    eprintln!("files are in {}", dir.display());
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    futures::executor::block_on(run())
}
