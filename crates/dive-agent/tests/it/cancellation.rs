//! Soft and hard cancellation, dropping a run, and the per-session lock.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{agent_with, calls, echo, last_results};
use dive_agent::{Agent, AgentError, CancellationToken, RunOptions, TurnFailure};
use dive_core::{
    FunctionTool, ModelResponse, NextStep, OutcomeReason, Persistence, SoftCancel, ToolCallState,
    ToolContext, ToolError, TurnStatus,
};
use dive_session::MemorySession;
use dive_test::ScriptedModel;
use serde_json::{Value, json};

#[tokio::test]
async fn soft_cancel_lets_the_running_call_finish_and_skips_the_rest() {
    let cancel = SoftCancel::new();
    let trigger = cancel.clone();
    let log = Arc::new(Mutex::new(Vec::new()));
    let inner = log.clone();
    let stopper =
        FunctionTool::new("stopper", "Asks to stop while running.", move |_i: Value, ctx: ToolContext| {
            let trigger = trigger.clone();
            let log = inner.clone();
            async move {
                trigger.cancel();
                assert!(ctx.is_soft_cancelled(), "tools see the flag");
                log.lock().unwrap().push("stopper finished".to_owned());
                Ok::<_, ToolError>("stopped cleanly")
            }
        });
    let session = Arc::new(MemorySession::new("soft"));
    let model = ScriptedModel::new([calls(&[
        ("c1", "stopper", json!({})),
        ("c2", "echo", json!({"text": "never"})),
        ("c3", "echo", json!({"text": "never"})),
    ])]);
    let agent = agent_with(&model)
        .tool(Arc::new(stopper))
        .tool(echo("echo", log.clone()))
        .session(session.clone())
        .build()
        .unwrap();
    let err = agent.run(RunOptions::text("go").with_soft_cancel(cancel)).await.unwrap_err();
    let AgentError::Turn(turn) = err else { panic!("expected a turn error") };
    assert!(matches!(turn.cause, TurnFailure::SoftCancelled));
    assert_eq!(turn.reason, OutcomeReason::Canceled);
    assert_eq!(*log.lock().unwrap(), ["stopper finished"]);
    let results = last_results(&turn.response.output_messages);
    assert_eq!(results[0].1, "stopped cleanly");
    assert!(results[1].1.starts_with("Not run") && results[2].1.starts_with("Not run"));
    let record = turn.response.turn.as_ref().unwrap();
    let states: Vec<_> = record.tool_calls.iter().map(|c| c.state).collect();
    assert_eq!(states, [ToolCallState::Completed, ToolCallState::NotStarted, ToolCallState::NotStarted]);
    assert_eq!(record.outcome.as_ref().unwrap().next, NextStep::Input);
    assert_eq!(record.persistence, Persistence::Saved, "the cancelled turn is saved");
    assert_eq!(session.turns()[0].status, TurnStatus::Incomplete);
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn hard_cancel_abandons_the_running_call_as_unknown_and_saves_the_turn() {
    let token = CancellationToken::new();
    let session = Arc::new(MemorySession::new("hard"));
    let model = ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "long", "ms": 10_000}))])]);
    let agent =
        agent_with(&model).tool(echo("echo", Arc::default())).session(session.clone()).build().unwrap();
    let trigger = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let err = agent.run(RunOptions::text("go").with_cancel(token)).await.unwrap_err();
    assert_eq!(err.reason(), Some(&OutcomeReason::Canceled));
    let response = err.into_response().unwrap();
    let results = last_results(&response.output_messages);
    assert!(results[0].1.starts_with("Unknown result"));
    let turn = response.turn.unwrap();
    assert_eq!(turn.tool_calls[0].state, ToolCallState::Unknown);
    assert_eq!(turn.outcome.unwrap().next, NextStep::Reconcile);
    assert_eq!(session.turns().len(), 1, "saved despite the cancellation");
}

#[tokio::test(start_paused = true)]
async fn dropping_the_run_cancels_it() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "x", "ms": 10_000}))])]);
    let agent = agent_with(&model).tool(echo("echo", log.clone())).build().unwrap();
    let outcome = tokio::time::timeout(Duration::from_millis(50), agent.run("go")).await;
    assert!(outcome.is_err());
    tokio::time::sleep(Duration::from_secs(20)).await;
    assert_eq!(*log.lock().unwrap(), ["start echo x"], "the tool future was dropped, never finished");
}

#[tokio::test]
async fn a_nested_run_on_the_same_session_fails_fast() {
    let session = Arc::new(MemorySession::new("shared"));
    let slot: Arc<Mutex<Option<Agent>>> = Arc::default();
    let handle = slot.clone();
    let nested = FunctionTool::new("nested", "Calls the agent again.", move |_i: Value, _c| {
        let handle = handle.clone();
        async move {
            let agent = handle.lock().unwrap().clone().unwrap();
            match agent.run("inner").await {
                Err(AgentError::ReentrantSession(id)) => Ok::<_, ToolError>(format!("refused on {id}")),
                other => Ok(format!("unexpected: {:?}", other.map(|r| r.output_text()))),
            }
        }
    });
    let model = ScriptedModel::new([calls(&[("c1", "nested", json!({}))]), ModelResponse::text("ok")]);
    let agent = agent_with(&model).tool(Arc::new(nested)).session(session).build().unwrap();
    *slot.lock().unwrap() = Some(agent.clone());
    let response = agent.run("outer").await.unwrap();
    assert_eq!(last_results(&response.output_messages)[0].1, "refused on shared");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_runs_on_one_session_serialize_when_the_second_asks_to_wait() {
    let session = Arc::new(MemorySession::new("serial"));
    let model = ScriptedModel::new([
        calls(&[("a", "echo", json!({"text": "first", "ms": 50}))]),
        ModelResponse::text("one"),
        ModelResponse::text("two"),
    ]);
    let agent =
        agent_with(&model).tool(echo("echo", Arc::default())).session(session.clone()).build().unwrap();
    let (a, b) = (agent.clone(), agent.clone());
    let first = tokio::spawn(async move { a.run("first").await.map(|r| r.output_text()) });
    tokio::time::sleep(Duration::from_millis(10)).await;
    let second = tokio::spawn(async move {
        b.run(RunOptions::text("second").with_session_wait(Duration::from_secs(30)))
            .await
            .map(|r| r.output_text())
    });
    assert_eq!(first.await.unwrap().unwrap(), "one");
    assert_eq!(second.await.unwrap().unwrap(), "two");
    // The second run saw the first run's whole turn.
    let last = model.requests().last().unwrap();
    assert_eq!(last.messages.len(), 5, "first turn (4 messages) then the second input");
    assert_eq!(session.turns().len(), 2);
}
