//! Human approval across processes: a tool asks for approval and suspends the turn; the turn is
//! saved in a SQLite session; a second process (this example re-run with `resume`) loads the
//! session, answers the pending call, and resumes the turn guarded by its id and revision.
//! Offline: scripted models, a temporary database.
//!
//! Run with `cargo run -p dive-examples --example human_approval`.
#![allow(clippy::print_stdout)]

use std::sync::Arc;

use dive::session::SqliteStore;
use dive::{
    Agent, FunctionTool, ModelResponse, ResumeRequest, RunInput, SessionStore, SuspendReason, SuspendRequest,
    ToolError, ToolOutput, ToolResult, ToolUse,
};
use dive_test::ScriptedModel;
use serde_json::{Map, Value, json};

const SESSION: &str = "deploy-42";

/// Asks a human to approve a deployment by suspending the turn.
fn approval_tool() -> Arc<FunctionTool> {
    Arc::new(FunctionTool::new(
        "request_approval",
        "Asks a human to approve an action.",
        |input: Value, _ctx| async move {
            let action = input["action"].as_str().unwrap_or("the action").to_owned();
            let mut metadata = Map::new();
            metadata.insert("channel".into(), json!("#deploys"));
            Ok::<_, ToolError>(ToolResult::suspend(
                SuspendRequest::new(format!("Approve: {action}?"))
                    .with_reason(SuspendReason::InputRequired)
                    .with_metadata(metadata),
            ))
        },
    ))
}

async fn first_process(db: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let store = SqliteStore::open(db)?;
    let model = ScriptedModel::new([ModelResponse::tool_calls(vec![ToolUse::new(
        "call-1",
        "request_approval",
        json!({"action": "deploy v2.3 to production"}),
    )])]);
    let agent =
        Agent::builder().model(model).tool(approval_tool()).session(store.open(SESSION).await?).build()?;
    let response = agent.run("Deploy v2.3 to production.").await?;
    let suspension = response.suspension.clone().ok_or("expected a suspension")?;
    println!(
        "[process 1] turn {} is {}: {}",
        suspension.turn_id,
        response.status.as_str(),
        suspension.pending[0].prompt
    );
    println!("[process 1] saved; exiting. A human answers later, from another process.\n");
    Ok(())
}

async fn second_process(db: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let store = SqliteStore::open(db)?;
    let session = store.open(SESSION).await?;
    let snapshot = session.load().await?;
    let turn = snapshot.open_turn.ok_or("no open turn")?;
    let pending = &turn.suspension.as_ref().ok_or("not suspended")?.pending[0];
    println!(
        "[process 2] found {} waiting on {:?} (revision {})",
        turn.id, pending.prompt, snapshot.revision
    );
    let model = ScriptedModel::new([ModelResponse::text("Approved by a human; deploying v2.3 now.")]);
    let agent = Agent::builder().model(model).tool(approval_tool()).session(session).build()?;
    let options = RunInput::resume_guarded(
        ResumeRequest::new(turn.id.clone(), snapshot.revision),
        [(pending.id.clone(), ToolOutput::text("Approved by ada@example.com"))],
    );
    let response = agent.run(options).await?;
    println!("[process 2] turn {}: {}", response.status.as_str(), response.output_text());
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if let [_, mode, db] = args.as_slice()
        && mode == "resume"
    {
        return second_process(std::path::Path::new(db)).await;
    }
    let dir = tempfile::tempdir()?;
    let db = dir.path().join("sessions.db");
    first_process(&db).await?;
    let status = std::process::Command::new(std::env::current_exe()?).arg("resume").arg(&db).status()?;
    if !status.success() {
        return Err(format!("the second process failed: {status}").into());
    }
    Ok(())
}
