//! The engine's determinism seams: with a fixed clock, counting ids and a recording spawner,
//! two identical runs record identical ids and timestamps, and a tool's background work goes
//! to the spawner.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use dive_agent::Agent;
use dive_core::{
    BoxFuture, Clock, FunctionTool, IdGenerator, ModelResponse, SessionStore, Spawner, Timestamp, ToolError,
    ToolOutput, ToolResult, ToolUse,
};
use dive_session::MemoryStore;
use dive_test::ScriptedModel;
use serde_json::json;

struct Fixed;
impl Clock for Fixed {
    fn now(&self) -> Timestamp {
        Timestamp::from_millis(1_767_225_600_000)
    }
}

#[derive(Default)]
struct Counting(AtomicUsize);
impl IdGenerator for Counting {
    fn new_id(&self, prefix: &str) -> String {
        format!("{prefix}_{}", self.0.fetch_add(1, Ordering::SeqCst) + 1)
    }
}

#[derive(Default, Clone)]
struct Recording(Arc<AtomicUsize>);
impl Spawner for Recording {
    fn spawn(&self, work: BoxFuture<'static, ()>) {
        self.0.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(work);
    }
}

/// One run of a fresh agent whose tool goes to the background; what it recorded.
async fn run_once(spawned: &Recording) -> (String, Vec<(String, i64, i64)>, String) {
    let store = MemoryStore::new();
    let session = store.open("s").await.unwrap();
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![ToolUse::new("call_1", "index", json!({}))]),
        ModelResponse::text("indexing"),
    ]);
    let index =
        FunctionTool::new("index", "Indexes in the background.", |_: serde_json::Value, _ctx| async move {
            Ok::<_, ToolError>(ToolResult::background("indexing", async { ToolOutput::text("indexed") }))
        })
        .with_schema(json!({"type": "object"}));
    let agent = Agent::builder()
        .model(model)
        .tool(Arc::new(index))
        .session(session.clone())
        .clock(Fixed)
        .id_generator(Counting::default())
        .spawner(spawned.clone())
        .build()
        .unwrap();
    let response = agent.run("index it").await.unwrap();
    let task = response.background_tasks.first().map(|t| t.task_id.clone()).unwrap_or_default();
    let document = session.as_history().unwrap().document().await.unwrap();
    let turns = document
        .turns()
        .into_iter()
        .map(|t| (t.id.clone(), t.created_at.as_millis(), t.updated_at.as_millis()))
        .collect();
    (
        format!("{} {} {}", response.id, response.created_at.as_millis(), response.finished_at.as_millis()),
        turns,
        task,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fixed_clock_and_counting_ids_make_runs_repeat_exactly() {
    let spawned = Recording::default();
    let first = run_once(&spawned).await;
    let second = run_once(&spawned).await;
    assert_eq!(first, second, "two identical runs recorded different ids or times");
    let (response, turns, task) = first;
    assert!(
        response.starts_with("resp_") && response.ends_with(" 1767225600000 1767225600000"),
        "{response}"
    );
    assert_eq!(turns.len(), 1);
    assert!(turns[0].0.starts_with("turn_"), "{turns:?}");
    assert_eq!((turns[0].1, turns[0].2), (1_767_225_600_000, 1_767_225_600_000));
    assert!(task.starts_with("task_"), "{task}");
    assert_eq!(spawned.0.load(Ordering::SeqCst), 2, "each run's background work went to the spawner");
}
