//! Durable turns: suspend/resume (partial, full, stateless, guarded), cancelling
//! a suspension, continue, the reconcile gate, discard, step checkpoints and claims.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{agent_with, calls, echo, last_results};
use dive_agent::{
    AgentError, ClaimOptions, Rejection, ResumeRequest, RunInput, RunOptions, TURN_CONTINUE_REMINDER,
};
use dive_core::{
    BoxFuture, FunctionTool, Hooks, ModelResponse, NextStep, OutcomeReason, Persistence, PostToolUseDecision,
    Session, SessionClaimer, SessionError, SessionSnapshot, SoftCancel, SuspendRequest, ToolAnnotations,
    ToolCallState, ToolError, ToolOutput, ToolResult, ToolResultContext, Turn, TurnStatus, TurnStore,
    find_turn_outcome,
};
use dive_session::MemorySession;
use dive_test::ScriptedModel;
use serde_json::{Value, json};

fn ask_tool() -> Arc<FunctionTool> {
    Arc::new(FunctionTool::new("ask", "Asks a human.", |input: Value, _ctx| async move {
        let question = input["q"].as_str().unwrap_or("?").to_owned();
        Ok::<_, ToolError>(ToolResult::suspend(SuspendRequest::new(question)))
    }))
}

/// Two pending questions from one parallel batch.
fn two_questions() -> ModelResponse {
    calls(&[("q1", "ask", json!({"q": "Deploy?"})), ("q2", "ask", json!({"q": "Notify?"}))])
}

#[tokio::test]
async fn a_session_suspension_is_resumed_partially_then_fully() {
    let session = Arc::new(MemorySession::new("approve"));
    let model = ScriptedModel::new([two_questions(), ModelResponse::text("Deployed and notified.")]);
    let post = Arc::new(Mutex::new(Vec::new()));
    let seen = post.clone();
    let agent = agent_with(&model)
        .tool(ask_tool())
        .session(session.clone())
        .parallel_tool_execution(true)
        .hooks(Hooks::new().on_post_tool_use(move |c: ToolResultContext| {
            let seen = seen.clone();
            async move {
                seen.lock().unwrap().push(c.call.id.clone());
                Ok(PostToolUseDecision::keep())
            }
        }))
        .build()
        .unwrap();
    let first = agent.run("ship it").await.unwrap();
    assert_eq!(first.status, TurnStatus::Suspended);
    assert_eq!(first.suspension.as_ref().unwrap().pending.len(), 2);

    // New input on a suspended session is refused; so is a call with nothing to resume.
    assert!(matches!(
        agent.run("hello?").await,
        Err(AgentError::Rejected(Rejection::InputOnSuspendedSession(_)))
    ));
    assert!(matches!(
        agent.run(RunOptions::new()).await,
        Err(AgentError::Rejected(Rejection::ResumeRequired(_)))
    ));
    assert!(matches!(
        agent.run(RunInput::resume([("nope", ToolOutput::text("x"))])).await,
        Err(AgentError::Rejected(Rejection::UnknownPendingToolCall(_)))
    ));

    // Partial: one answer; still suspended, one pending.
    let partial = agent.run(RunInput::resume([("q1", ToolOutput::text("yes"))])).await.unwrap();
    assert_eq!(partial.status, TurnStatus::Suspended);
    assert_eq!(
        partial.suspension.as_ref().unwrap().pending.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        ["q2"]
    );
    assert_eq!(partial.turn.as_ref().unwrap().persistence, Persistence::Saved);
    // Resending the same answer is skipped; a different one conflicts.
    assert!(matches!(
        agent.run(RunInput::resume([("q1", ToolOutput::text("no"))])).await,
        Err(AgentError::Rejected(Rejection::ConflictingToolResult(_)))
    ));

    let done = agent
        .run(RunInput::resume([("q1", ToolOutput::text("yes")), ("q2", ToolOutput::text("yes, #ops"))]))
        .await
        .unwrap();
    assert_eq!(done.status, TurnStatus::Completed);
    assert_eq!(done.output_text(), "Deployed and notified.");
    let turn = done.turn.unwrap();
    assert_eq!(turn.id, first.turn.unwrap().id, "the resumed turn keeps its id");
    assert_eq!(
        last_results(&turn.messages).iter().map(|r| r.1.as_str()).collect::<Vec<_>>(),
        ["yes", "yes, #ops"]
    );
    assert_eq!(*post.lock().unwrap(), ["q1", "q2"], "Post hooks ran once per supplied result");
    let stored = session.turns();
    assert_eq!(stored.len(), 1, "the suspended record was replaced, not duplicated");
    assert_eq!(stored[0].status, TurnStatus::Completed);
    model.requests().assert_tool_calls_answered();
}

#[tokio::test]
async fn a_stateless_caller_resumes_with_the_state_it_kept() {
    let model = ScriptedModel::new([
        calls(&[("c1", "echo", json!({"text": "prep"})), ("c2", "ask", json!({"q": "Proceed?"}))]),
        ModelResponse::text("Proceeding."),
    ]);
    let agent = agent_with(&model).tool(echo("echo", Arc::default())).tool(ask_tool()).build().unwrap();
    let input = vec![
        dive_core::Message::user("earlier"),
        dive_core::Message::assistant("ok"),
        dive_core::Message::user("do it"),
    ];
    let first = agent.run(input).await.unwrap();
    let state = first.suspension.clone().unwrap();
    assert_eq!(first.turn.as_ref().unwrap().persistence, Persistence::None);
    // The first call's input was the whole history, so nothing was held before it: the
    // suspended turn's messages are everything.
    let resumed = agent
        .run(RunInput::resume_stateless(Vec::new(), state, [("c2", ToolOutput::text("go"))]))
        .await
        .unwrap();
    assert_eq!(resumed.output_text(), "Proceeding.");
    let sent = model.requests().last().unwrap();
    assert_eq!(sent.messages.len(), 5, "the turn's input (3), the assistant's calls, their results");
    assert_eq!(resumed.turn.as_ref().unwrap().messages.len(), 6, "the whole turn, to append to nothing");
    let results = last_results(&sent.messages);
    assert_eq!(results, [("c1".into(), "prep".into(), false), ("c2".into(), "go".into(), false)]);
}

#[tokio::test]
async fn a_guarded_resume_checks_turn_and_revision_first() {
    let session = Arc::new(MemorySession::new("guarded"));
    let model = ScriptedModel::new([calls(&[("q", "ask", json!({}))]), ModelResponse::text("done")]);
    let agent = agent_with(&model).tool(ask_tool()).session(session.clone()).build().unwrap();
    let first = agent.run("start").await.unwrap();
    let turn = first.turn.unwrap();
    let stale = RunInput::resume_guarded(
        ResumeRequest::new(turn.id.clone(), turn.revision + 7),
        [("q", ToolOutput::text("a"))],
    );
    assert!(matches!(
        agent.run(stale).await,
        Err(AgentError::Session(SessionError::RevisionConflict { .. }))
    ));
    let wrong_turn = RunInput::resume_guarded(
        ResumeRequest::new("turn_other", turn.revision),
        [("q", ToolOutput::text("a"))],
    );
    assert!(matches!(agent.run(wrong_turn).await, Err(AgentError::Rejected(Rejection::NoSuspendedTurn))));
    assert_eq!(model.requests().len(), 1, "no model call for refused resumes");
    let ok =
        RunInput::resume_guarded(ResumeRequest::new(turn.id, turn.revision), [("q", ToolOutput::text("a"))]);
    assert_eq!(agent.run(ok).await.unwrap().output_text(), "done");
}

#[tokio::test]
async fn a_stateless_caller_cancels_the_suspension_it_kept() {
    let model = ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "a"})), ("q", "ask", json!({}))])]);
    let agent = agent_with(&model).tool(echo("echo", Arc::default())).tool(ask_tool()).build().unwrap();
    let first = agent.run("go").await.unwrap();
    let state = first.suspension.clone().unwrap();
    let cancelled = agent.run(RunInput::cancel_suspended_stateless(state)).await.unwrap();
    assert_eq!(cancelled.status, TurnStatus::Incomplete);
    let turn = cancelled.turn.unwrap();
    assert_eq!(turn.id, first.turn.unwrap().id, "the kept suspension's turn is closed");
    assert_eq!(turn.outcome.as_ref().unwrap().reason, OutcomeReason::Canceled);
    assert_eq!(turn.persistence, Persistence::None);
    let results = last_results(&turn.messages);
    assert_eq!(results[0].1, "a");
    assert!(results[1].1.starts_with("Unknown result"));
    assert_eq!(model.requests().len(), 1, "no model call");
    // Without a kept suspension and without a session there is nothing to cancel.
    assert!(matches!(
        agent.run(RunInput::cancel_suspended()).await,
        Err(AgentError::Rejected(Rejection::NoSuspendedTurn))
    ));
}

#[tokio::test]
async fn cancelling_a_suspension_closes_it_without_a_model_call() {
    let session = Arc::new(MemorySession::new("cancel"));
    let model = ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "a"})), ("q", "ask", json!({}))])]);
    let agent = agent_with(&model)
        .tool(echo("echo", Arc::default()))
        .tool(ask_tool())
        .session(session.clone())
        .build()
        .unwrap();
    agent.run("go").await.unwrap();
    let cancelled = agent.run(RunInput::cancel_suspended()).await.unwrap();
    assert_eq!(cancelled.status, TurnStatus::Incomplete);
    let outcome = cancelled.turn.as_ref().unwrap().outcome.clone().unwrap();
    assert_eq!((outcome.reason, outcome.next), (OutcomeReason::Canceled, NextStep::Reconcile));
    let results = last_results(&cancelled.turn.unwrap().messages);
    assert_eq!(results[0].1, "a");
    assert!(results[1].1.starts_with("Unknown result"));
    assert_eq!(model.requests().len(), 1);
    assert!(matches!(
        agent.run(RunInput::cancel_suspended()).await,
        Err(AgentError::Rejected(Rejection::NoSuspendedTurn))
    ));
}

#[tokio::test]
async fn a_suspension_is_kept_even_when_soft_cancel_arrives() {
    let cancel = SoftCancel::new();
    let trigger = cancel.clone();
    let ask = FunctionTool::new("ask", "Asks.", move |_i: Value, _c| {
        let trigger = trigger.clone();
        async move {
            trigger.cancel();
            Ok::<_, ToolError>(ToolResult::suspend(SuspendRequest::new("?")))
        }
    });
    let session = Arc::new(MemorySession::new("soft-suspend"));
    let model = ScriptedModel::new([calls(&[("q", "ask", json!({}))])]);
    let agent = agent_with(&model).tool(Arc::new(ask)).session(session.clone()).build().unwrap();
    let response = agent.run(RunOptions::text("go").with_soft_cancel(cancel)).await.unwrap();
    assert_eq!(response.status, TurnStatus::Suspended);
    assert_eq!(session.turns()[0].status, TurnStatus::Suspended);
}

#[tokio::test]
async fn continue_folds_into_the_open_turn_on_a_turn_store() {
    let session = Arc::new(MemorySession::new("cont"));
    let model = ScriptedModel::new([
        ModelResponse::text("The first half").with_stop_reason("max_tokens"),
        ModelResponse::text(" and the second half."),
    ]);
    let agent = agent_with(&model).session(session.clone()).build().unwrap();
    let cut = agent.run("write").await.unwrap();
    assert_eq!(cut.turn.as_ref().unwrap().outcome.as_ref().unwrap().reason, OutcomeReason::OutputLimit);
    assert!(matches!(
        agent.run(RunInput::continue_turn(vec![dive_core::Message::user("x")])).await,
        Err(AgentError::Rejected(Rejection::ContinueWithInput))
    ));
    let done = agent.run(RunInput::continue_turn(Vec::new())).await.unwrap();
    assert_eq!(done.status, TurnStatus::Completed);
    let turn = done.turn.unwrap();
    assert_eq!(turn.id, cut.turn.unwrap().id, "continued in place");
    let sent = model.requests().last().unwrap();
    assert!(find_turn_outcome(&sent.messages).is_none(), "the model does not see the outcome note");
    let last = sent.messages.last().unwrap();
    assert_eq!(last.content[0].as_reminder().unwrap().name, TURN_CONTINUE_REMINDER, "roles alternate");
    assert_eq!(session.turns().len(), 1);
    assert_eq!(done.output_messages.len(), 1, "output is invocation-scoped");
}

#[tokio::test]
async fn continue_on_a_stateless_history() {
    let model = ScriptedModel::new([ModelResponse::text("more")]);
    let agent = agent_with(&model).build().unwrap();
    let history = vec![dive_core::Message::user("tell a story"), dive_core::Message::assistant("Once")];
    let response = agent.run(RunInput::continue_turn(history)).await.unwrap();
    assert_eq!(response.output_text(), "more");
    assert!(matches!(
        agent.run(RunInput::continue_turn(Vec::new())).await,
        Err(AgentError::Rejected(Rejection::NothingToContinue))
    ));
}

#[tokio::test(start_paused = true)]
async fn require_reconcile_refuses_new_input_after_unknown_calls() {
    let session = Arc::new(MemorySession::new("reconcile"));
    let model = ScriptedModel::new([
        calls(&[("c1", "echo", json!({"text": "x", "ms": 60_000}))]),
        ModelResponse::text("checked"),
    ]);
    let agent = agent_with(&model)
        .tool(echo("echo", Arc::default()))
        .session(session)
        .response_timeout(Some(Duration::from_secs(1)))
        .require_reconcile(true)
        .build()
        .unwrap();
    let err = agent.run("go").await.unwrap_err();
    assert_eq!(
        err.response().unwrap().turn.as_ref().unwrap().outcome.as_ref().unwrap().next,
        NextStep::Reconcile
    );
    assert!(matches!(agent.run("next").await, Err(AgentError::Rejected(Rejection::UnreconciledToolCalls))));
    assert_eq!(agent.run(RunInput::continue_turn(Vec::new())).await.unwrap().output_text(), "checked");
}

#[tokio::test]
async fn discard_keeps_error_exits_out_of_the_session() {
    let session = Arc::new(MemorySession::new("discard"));
    let model = ScriptedModel::from_steps([dive_test::ScriptStep::Error(dive_core::LlmError::new(
        dive_core::LlmErrorKind::Server,
        "boom",
    ))]);
    let agent = agent_with(&model).session(session.clone()).discard_incomplete_turns(true).build().unwrap();
    let err = agent.run("go").await.unwrap_err();
    assert_eq!(err.response().unwrap().turn.as_ref().unwrap().persistence, Persistence::None);
    assert!(session.turns().is_empty());
}

/// A turn store that counts the statuses it is asked to record.
struct Counting {
    inner: MemorySession,
    statuses: Mutex<Vec<TurnStatus>>,
}

impl Session for Counting {
    fn id(&self) -> &str {
        self.inner.id()
    }
    fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
        self.inner.load()
    }
    fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
        self.statuses.lock().unwrap().push(turn.status);
        self.inner.save_turn(turn)
    }
    fn as_turn_store(&self) -> Option<&dyn TurnStore> {
        Some(self)
    }
    fn as_claimer(&self) -> Option<&dyn SessionClaimer> {
        self.inner.as_claimer()
    }
}

impl TurnStore for Counting {
    fn checkpoint_turn<'a>(
        &'a self,
        expected: u64,
        turn: &'a Turn,
    ) -> BoxFuture<'a, Result<u64, SessionError>> {
        self.statuses.lock().unwrap().push(turn.status);
        self.inner.as_turn_store().unwrap().checkpoint_turn(expected, turn)
    }
}

#[tokio::test]
async fn a_two_call_sequential_turn_writes_six_running_checkpoints_and_one_record() {
    let session = Arc::new(Counting { inner: MemorySession::new("steps"), statuses: Mutex::default() });
    let model = ScriptedModel::new([
        calls(&[("a", "echo", json!({"text": "1"})), ("b", "echo", json!({"text": "2"}))]),
        ModelResponse::text("done"),
    ]);
    let agent = agent_with(&model)
        .tool(echo("echo", Arc::default()))
        .session(session.clone())
        .checkpoint_steps(true)
        .build()
        .unwrap();
    agent.run("go").await.unwrap();
    let statuses = session.statuses.lock().unwrap().clone();
    let running = statuses.iter().filter(|s| **s == TurnStatus::Running).count();
    assert_eq!((running, statuses.len()), (6, 7), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&TurnStatus::Completed));
    let turns = session.inner.turns();
    assert_eq!(turns.len(), 1);
    assert_eq!(
        turns[0].tool_calls.iter().map(|c| c.state).collect::<Vec<_>>(),
        [ToolCallState::Completed; 2]
    );
}

#[tokio::test]
async fn checkpoints_need_a_turn_store_and_claims_exclude_other_owners() {
    struct Plain(MemorySession);
    impl Session for Plain {
        fn id(&self) -> &str {
            self.0.id()
        }
        fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
            self.0.load()
        }
        fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
            self.0.save_turn(turn)
        }
    }
    let model = ScriptedModel::new([ModelResponse::text("ok")]);
    // As the agent's default session, a plain session is refused when the agent is built...
    let built = agent_with(&model)
        .session(Arc::new(Plain(MemorySession::new("plain"))))
        .checkpoint_steps(true)
        .build();
    assert!(
        matches!(&built, Err(AgentError::Config(m)) if m.contains("\"plain\" cannot record step checkpoints")),
        "{built:?}"
    );
    let built = agent_with(&model)
        .session(Arc::new(Plain(MemorySession::new("plain"))))
        .claim_sessions(ClaimOptions::new("me", Duration::from_secs(30)))
        .build();
    assert!(matches!(&built, Err(AgentError::Config(m)) if m.contains("cannot be claimed")), "{built:?}");
    // ...and given for one run, that run is refused before anything happens.
    let agent = agent_with(&model).checkpoint_steps(true).build().unwrap();
    let plain: Arc<dyn Session> = Arc::new(Plain(MemorySession::new("plain")));
    assert!(matches!(
        agent.run(RunOptions::text("x").with_session(plain)).await,
        Err(AgentError::Rejected(Rejection::Unsupported { .. }))
    ));

    let session = Arc::new(MemorySession::new("claimed"));
    session.as_claimer().unwrap().claim("other-process", Duration::from_secs(60)).await.unwrap();
    let agent = agent_with(&model)
        .session(session.clone())
        .claim_sessions(ClaimOptions::new("this-process", Duration::from_secs(30)))
        .build()
        .unwrap();
    assert!(matches!(agent.run("x").await, Err(AgentError::Session(SessionError::Claimed { .. }))));
    assert_eq!(model.requests().len(), 0);
    session.as_claimer().unwrap().release("other-process").await.unwrap();
    assert_eq!(agent.run("x").await.unwrap().output_text(), "ok");
    // Released at the end: another owner can claim now.
    session.as_claimer().unwrap().claim("other-process", Duration::from_secs(1)).await.unwrap();
}

#[tokio::test]
async fn read_only_unknown_calls_do_not_need_reconciling() {
    let slow = FunctionTool::new("look", "Reads slowly.", |_i: Value, _c| async move {
        tokio::time::sleep(Duration::from_secs(60)).await;
        Ok::<_, ToolError>("seen")
    })
    .with_annotations(ToolAnnotations::read_only());
    let model = ScriptedModel::new([calls(&[("c1", "look", json!({}))])]);
    let agent = agent_with(&model).tool(Arc::new(slow)).build().unwrap();
    let token = dive_agent::CancellationToken::new();
    let trigger = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        trigger.cancel();
    });
    let err = agent.run(RunOptions::text("go").with_cancel(token)).await.unwrap_err();
    let outcome = err.response().unwrap().turn.as_ref().unwrap().outcome.clone().unwrap();
    assert_eq!(outcome.tool_calls[0].state, ToolCallState::Unknown);
    assert_eq!(outcome.next, NextStep::Input, "read-only softens the advice; the record still says unknown");
}
