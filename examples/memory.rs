//! Memory, offline: a token window over the history (short-term), long-term
//! memory in SQLite recalled by hybrid (vector + keyword) search into a model-only reminder,
//! a write policy, and the agent-editable memory directory. Runs on the test model and the
//! deterministic test embedder: no key, no network; files go to a temporary directory.
//!
//! Run with `cargo run -p dive-examples --example memory`.
#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::time::Duration;

use dive::memory::{
    Hybrid, LongTerm, MEMORY_REMINDER, MemoryExtension, MemoryTool, Retrieval, SqliteVectorStore, TokenWindow,
};
use dive::{Agent, MinLength, RunOptions, Session};
use dive_test::{HashEmbedder, TestModel};
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let store = SqliteVectorStore::open(dir.path().join("memory.db"))?;
    let long_term = LongTerm::new(HashEmbedder::new(384), store)
        .with_hybrid(Hybrid::new().with_recency(Duration::from_secs(30 * 24 * 3600)))
        .with_scope("user", "ada");
    let memory = MemoryExtension::new()
        .with_window(TokenWindow::new(4_000))
        .with_long_term(long_term)
        .with_retrieval(Retrieval::new(3).with_min_score(0.1).with_token_budget(500))
        .with_write_policy(MinLength(24));

    let model = TestModel::new();
    let agent = Agent::builder()
        .model(model.clone())
        .system_prompt("You are a helpful assistant.")
        .extension(memory)
        .build()?;

    // Three conversations, each in a fresh session: nothing is carried by the history.
    for prompt in [
        "My cat is called Miso and she loves the balcony.",
        "hi",
        "The team standup moved to 9:15 on weekdays.",
    ] {
        let session: Arc<dyn Session> = Arc::new(dive::session::MemorySession::new(dive::new_id("session")));
        agent.run(RunOptions::text(prompt).with_session(session)).await?;
    }

    let session: Arc<dyn Session> = Arc::new(dive::session::MemorySession::new("question"));
    let response =
        agent.run(RunOptions::text("What is my cat called?").with_session(session.clone())).await?;
    println!("answer: {}", response.output_text());

    let request = model.requests().last().ok_or("the model was not called")?;
    let input = request.messages.last().ok_or("no input")?;
    let reminder = input
        .content
        .iter()
        .find_map(|c| c.as_reminder().filter(|r| r.name == MEMORY_REMINDER))
        .ok_or("no memory was recalled")?;
    println!("the model saw, before the question:\n{}", reminder.render());
    assert!(reminder.content.contains("My cat is called Miso"), "the cat memory is recalled");
    assert!(!reminder.content.contains("hi\n"), "MinLength(24) kept the short greeting out");
    let saved = session.load().await?.messages();
    assert!(!dive::contains_reminders(&saved), "the reminder is model-only: the session never saves it");
    println!("saved in the session: {} messages, no reminder", saved.len());

    // The memory directory an agent edits through the `memory` tool (any provider).
    let tool = MemoryTool::new(dir.path().join("memories"))?;
    tool.run(&json!({"command": "create", "path": "/memories/user.md", "file_text": "- cat: Miso\n"}))?;
    tool.run(&json!({"command": "insert", "path": "/memories/user.md", "insert_line": 1, "insert_text": "- standup: 9:15"}))?;
    println!("{}", tool.run(&json!({"command": "view", "path": "/memories/user.md"}))?);
    match tool.run(&json!({"command": "view", "path": "/memories/../memory.db"})) {
        Err(e) => println!("refused: {e}"),
        Ok(_) => return Err("a path outside /memories was allowed".into()),
    }
    Ok(())
}
