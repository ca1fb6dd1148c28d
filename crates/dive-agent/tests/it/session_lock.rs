//! Run locks belong to the session (or its store), not to a process-wide map keyed by id: two
//! stores that both hold a session `chat` never block each other; a run on a busy session fails
//! at once unless it asked to wait, so a run can never wait for a run that waits for it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{agent_with, calls, last_results};
use dive_agent::{AgentError, Rejection, RunOptions};
use dive_core::{FunctionTool, ModelResponse, SessionStore, ToolError};
use dive_session::MemoryStore;
use dive_test::ScriptedModel;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// A tool that waits until `release` is notified, after telling `started`.
fn gate(started: Arc<Notify>, release: Arc<Notify>) -> FunctionTool {
    FunctionTool::new("gate", "Waits to be released.", move |_i: Value, _c| {
        let (started, release) = (started.clone(), release.clone());
        async move {
            started.notify_one();
            release.notified().await;
            Ok::<_, ToolError>("released")
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_stores_with_a_session_named_chat_never_block_each_other() {
    let (first_store, second_store) = (MemoryStore::new(), MemoryStore::new());
    let (started, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let holding_model = ScriptedModel::new([calls(&[("g", "gate", json!({}))]), ModelResponse::text("one")]);
    let holder = agent_with(&holding_model)
        .tool(gate(started.clone(), release.clone()))
        .session(first_store.open("chat").await.unwrap())
        .build()
        .unwrap();
    let running = tokio::spawn(async move { holder.run("hold").await.map(|r| r.output_text()) });
    started.notified().await;

    // The first store's `chat` is mid-turn; the second store's `chat` runs at once.
    let other_model = ScriptedModel::new([ModelResponse::text("two")]);
    let other = agent_with(&other_model).session(second_store.open("chat").await.unwrap()).build().unwrap();
    let done = tokio::time::timeout(Duration::from_secs(5), other.run("hi")).await;
    assert_eq!(done.expect("blocked by another store's session").unwrap().output_text(), "two");

    // The same store's `chat` is busy (one lock per store and id): refused at once by default,
    // served after the running turn when the caller asks to wait.
    let same_model = ScriptedModel::new([ModelResponse::text("three")]);
    let same = agent_with(&same_model).session(first_store.open("chat").await.unwrap()).build().unwrap();
    let refused = same.run("now").await;
    assert!(matches!(refused, Err(AgentError::Rejected(Rejection::SessionBusy(ref id))) if id == "chat"));
    let waiting = tokio::spawn(async move {
        let options = RunOptions::text("after").with_session_wait(Duration::from_secs(30));
        same.run(options).await.map(|r| r.output_text())
    });
    tokio::task::yield_now().await;
    assert!(!waiting.is_finished(), "a second run on one store's session waits");
    release.notify_one();
    assert_eq!(running.await.unwrap().unwrap(), "one");
    assert_eq!(waiting.await.unwrap().unwrap(), "three");
    assert_eq!(
        same_model.requests().last().unwrap().messages.len(),
        5,
        "it saw the whole first turn, then its input"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_spawned_from_a_tool_on_its_own_session_fails_at_once_instead_of_deadlocking() {
    let store = MemoryStore::new();
    let session = store.open("chat").await.unwrap();
    // The inner agent runs on the same session, from a task the outer run's tool waits for.
    let inner_model = ScriptedModel::new([ModelResponse::text("never")]);
    // No response timeout: before runs failed at once on a busy session, this waited forever.
    let inner =
        agent_with(&inner_model).session(Arc::clone(&session)).response_timeout(None).build().unwrap();
    let seen: Arc<Mutex<Option<String>>> = Arc::default();
    let record = seen.clone();
    let spawner =
        FunctionTool::new("spawner", "Runs the agent from a spawned task.", move |_i: Value, _c| {
            let (inner, record) = (inner.clone(), record.clone());
            async move {
                let joined = tokio::spawn(async move { inner.run("inner").await }).await.unwrap();
                let text = match joined {
                    Err(AgentError::Rejected(Rejection::SessionBusy(id))) => format!("busy: {id}"),
                    other => format!("unexpected: {:?}", other.map(|r| r.output_text())),
                };
                *record.lock().unwrap() = Some(text.clone());
                Ok::<_, ToolError>(text)
            }
        });
    let outer_model =
        ScriptedModel::new([calls(&[("s", "spawner", json!({}))]), ModelResponse::text("done")]);
    let outer =
        agent_with(&outer_model).tool(spawner).session(session).response_timeout(None).build().unwrap();
    let response = tokio::time::timeout(Duration::from_secs(10), outer.run("outer"))
        .await
        .expect("the outer run deadlocked on its own session")
        .unwrap();
    assert_eq!(response.output_text(), "done");
    assert_eq!(last_results(&response.output_messages)[0].1, "busy: chat");
    assert_eq!(seen.lock().unwrap().as_deref(), Some("busy: chat"));
    assert!(inner_model.requests().is_empty(), "the inner run changed nothing");
}
