//! Suspend in one process, resume from another: a child process suspends a turn on a SQLite
//! session and exits; this process resumes it with a revision-guarded resume request, after a
//! stale request is refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use dive_agent::{Agent, AgentError, ResumeRequest, RunInput};
use dive_core::{
    FunctionTool, ModelResponse, SessionError, SessionStore, SuspendRequest, ToolError, ToolOutput,
    ToolResult, ToolUse, TurnStatus,
};
use dive_session::SqliteStore;
use dive_test::ScriptedModel;
use serde_json::{Value, json};

const CHILD_ENV: &str = "DIVE_SUSPEND_CHILD_DB";

fn ask() -> Arc<FunctionTool> {
    Arc::new(FunctionTool::new("ask", "Asks.", |_i: Value, _c| async move {
        Ok::<_, ToolError>(ToolResult::suspend(SuspendRequest::new("Approve?")))
    }))
}

#[test]
fn a_turn_suspended_in_one_process_is_resumed_in_another() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    if let Ok(db) = std::env::var(CHILD_ENV) {
        runtime.block_on(async {
            let store = SqliteStore::open(Path::new(&db)).unwrap();
            let model =
                ScriptedModel::new([ModelResponse::tool_calls(vec![ToolUse::new("c1", "ask", json!({}))])]);
            let agent = Agent::builder()
                .model(Arc::new(model))
                .tool(ask())
                .session(store.open("handoff").await.unwrap())
                .build()
                .unwrap();
            assert_eq!(agent.run("deploy").await.unwrap().status, TurnStatus::Suspended);
        });
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            &dive_test::child::full_test_name("a_turn_suspended_in_one_process_is_resumed_in_another"),
            "--nocapture",
        ])
        .env(CHILD_ENV, &db)
        .status()
        .unwrap();
    assert!(status.success());
    runtime.block_on(async {
        let store = SqliteStore::open(&db).unwrap();
        let session = store.open("handoff").await.unwrap();
        let snapshot = session.load().await.unwrap();
        let turn = snapshot.open_turn.clone().unwrap();
        assert!(turn.is_suspended());
        let model = ScriptedModel::new([ModelResponse::text("deployed")]);
        let agent =
            Agent::builder().model(Arc::new(model.clone())).tool(ask()).session(session).build().unwrap();
        let stale = RunInput::resume_guarded(
            ResumeRequest::new(turn.id.clone(), snapshot.revision - 1),
            [("c1", ToolOutput::text("yes"))],
        );
        assert!(matches!(
            agent.run(stale).await,
            Err(AgentError::Session(SessionError::RevisionConflict { .. }))
        ));
        let fresh = RunInput::resume_guarded(
            ResumeRequest::new(turn.id.clone(), snapshot.revision),
            [("c1", ToolOutput::text("yes"))],
        );
        let response = agent.run(fresh).await.unwrap();
        assert_eq!(response.status, TurnStatus::Completed);
        assert_eq!(response.turn.unwrap().id, turn.id);
        assert_eq!(model.requests().len(), 1);
    });
}
