//! A real crash: a child process runs an agent with step checkpoints on a file session (and on
//! a SQLite session) and is killed with SIGKILL while a tool runs. A second run opens the session, finds the turn closed
//! as `process_exit` with that call `unknown`, continues it, and nothing recorded before the
//! kill is missing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dive_agent::{Agent, RunInput};
use dive_core::{
    FunctionTool, ModelResponse, NextStep, OutcomeReason, SessionStore, ToolCallState, ToolError, ToolUse,
    TurnStatus,
};
use dive_session::{FileStore, SqliteStore};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

const CHILD_ENV: &str = "DIVE_CRASH_CHILD_DIR";
const STORE_ENV: &str = "DIVE_CRASH_STORE";

fn open_store(dir: &Path, kind: &str) -> Box<dyn SessionStore> {
    match kind {
        "sqlite" => Box::new(SqliteStore::open(dir.join("sessions.db")).unwrap()),
        _ => Box::new(FileStore::new(dir).unwrap()),
    }
}

/// The child: a turn whose first call finishes and whose second call hangs until killed.
fn run_child(dir: &Path, kind: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let store = open_store(dir, kind);
        let session = store.open("crashy").await.unwrap();
        let marker = dir.join("tool-started");
        let hang = FunctionTool::new("deploy", "Deploys (hangs).", move |_i: Value, _c| {
            let marker = marker.clone();
            async move {
                std::fs::write(&marker, b"started").unwrap();
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok::<_, ToolError>("never")
            }
        });
        let prepare = FunctionTool::new("prepare", "Prepares.", |_i: Value, _c| async move {
            Ok::<_, ToolError>("prepared")
        });
        let model = ScriptedModel::new([ModelResponse::tool_calls(vec![
            ToolUse::new("c1", "prepare", json!({})),
            ToolUse::new("c2", "deploy", json!({})),
        ])]);
        let agent = Agent::builder()
            .model(Arc::new(model))
            .tool(Arc::new(prepare))
            .tool(Arc::new(hang))
            .session(session)
            .checkpoint_steps(true)
            .build()
            .unwrap();
        let _ = agent.run("ship it").await;
    });
}

#[test]
fn a_killed_process_on_a_file_session_recovers_as_process_exit() {
    crash_and_recover("file", "a_killed_process_on_a_file_session_recovers_as_process_exit");
}

#[test]
fn a_killed_process_on_a_sqlite_session_recovers_as_process_exit() {
    crash_and_recover("sqlite", "a_killed_process_on_a_sqlite_session_recovers_as_process_exit");
}

fn crash_and_recover(kind: &str, test_name: &str) {
    if let (Ok(dir), Ok(child_kind)) = (std::env::var(CHILD_ENV), std::env::var(STORE_ENV)) {
        if child_kind == kind {
            run_child(Path::new(&dir), kind);
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", &dive_test::child::full_test_name(test_name), "--nocapture"])
        .env(CHILD_ENV, dir.path())
        .env(STORE_ENV, kind)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let marker = dir.path().join("tool-started");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !marker.exists() {
        assert!(Instant::now() < deadline, "the child never started its tool");
        assert!(child.try_wait().unwrap().is_none(), "the child exited early");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SIGKILL: no destructor, no flush, nothing runs.
    child.kill().unwrap();
    child.wait().unwrap();

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let store = open_store(dir.path(), kind);
        let session = store.open("crashy").await.unwrap();
        let snapshot = session.load().await.unwrap();
        let turn = snapshot.open_turn.clone().expect("the interrupted turn is open");
        assert_eq!(turn.status, TurnStatus::Incomplete);
        let outcome = turn.outcome.clone().unwrap();
        assert_eq!((outcome.reason, outcome.next), (OutcomeReason::ProcessExit, NextStep::Reconcile));
        let states: Vec<_> = turn.tool_calls.iter().map(|c| (c.id.as_str(), c.state)).collect();
        assert_eq!(states, [("c1", ToolCallState::Completed), ("c2", ToolCallState::Unknown)]);
        // The finished call's result was checkpointed before the kill.
        let results: Vec<String> =
            turn.messages.iter().flat_map(|m| m.tool_results_iter()).map(|r| r.text_content()).collect();
        assert_eq!(results, ["prepared"]);

        // Continue the turn in a new process (this one): the model sees the finished result and
        // an answer for the unknown call, and the turn completes in place.
        let model = ScriptedModel::new([ModelResponse::text("Prepared; the deploy must be checked.")]);
        let agent = Agent::builder().model(Arc::new(model.clone())).session(session.clone()).build().unwrap();
        let response = agent.run(RunInput::continue_turn(Vec::new())).await.unwrap();
        assert_eq!(response.status, TurnStatus::Completed);
        assert_eq!(response.turn.as_ref().unwrap().id, turn.id);
        model.requests().assert_tool_calls_answered();
        let after = session.load().await.unwrap();
        assert!(after.open_turn.is_none());
        assert!(after.history.iter().any(|m| m.text() == "ship it"));
    });
}
