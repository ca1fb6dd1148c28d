//! Turn outcomes and interrupted-stream rules not covered elsewhere: context limit,
//! provider stop, unknown stop reasons, a paused response with client calls, a plain
//! PreGeneration error, dropping partial text, and a given-up pause's trailing server call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::{agent_with, calls, echo, last_results};
use dive_core::{
    Content, ContentDelta, GenerationContext, GenerationEdit, HookError, Hooks, LlmError, LlmErrorKind,
    ModelResponse, NextStep, OutcomeReason, StreamEvent, TurnStatus, find_turn_outcome,
};
use dive_test::{ScriptStep, ScriptedModel};
use serde_json::json;

async fn outcome_of(
    response: ModelResponse,
) -> (TurnStatus, dive_core::TurnOutcome, Vec<(String, String, bool)>) {
    let model = ScriptedModel::new([response]);
    let log = Arc::default();
    let agent = agent_with(&model).tool(echo("echo", Arc::clone(&log))).build().unwrap();
    let response = agent.run("go").await.unwrap();
    assert!(log.lock().unwrap().is_empty(), "no tool runs on these stops");
    let results = response.output_messages.iter().any(|m| m.tool_results_iter().next().is_some());
    let results = if results { last_results(&response.output_messages) } else { Vec::new() };
    let turn = response.turn.unwrap();
    (turn.status, turn.outcome.unwrap(), results)
}

#[tokio::test]
async fn a_context_limit_stops_for_new_input() {
    let (status, outcome, results) = outcome_of(
        calls(&[("c1", "echo", json!({"text": "a"}))]).with_stop_reason("model_context_window_exceeded"),
    )
    .await;
    assert_eq!(status, TurnStatus::Incomplete);
    assert_eq!((outcome.reason, outcome.next), (OutcomeReason::ContextLimit, NextStep::Input));
    assert!(results[0].1.starts_with("Not run"));
}

#[tokio::test]
async fn a_provider_stop_with_calls_runs_nothing() {
    let (_, outcome, results) =
        outcome_of(calls(&[("c1", "echo", json!({"text": "a"}))]).with_stop_reason("incomplete")).await;
    assert_eq!((outcome.reason.clone(), outcome.next), (OutcomeReason::ProviderStopped, NextStep::Continue));
    assert_eq!(outcome.error.as_deref(), Some("incomplete"), "the raw value is kept");
    assert!(results[0].1.starts_with("Not run"));
}

#[tokio::test]
async fn an_unknown_stop_fails_closed_with_calls_and_completes_with_text() {
    let (_, outcome, _) =
        outcome_of(calls(&[("c1", "echo", json!({"text": "a"}))]).with_stop_reason("brand_new_reason")).await;
    assert_eq!(outcome.reason, OutcomeReason::ProviderStopped);
    let (status, outcome, _) =
        outcome_of(ModelResponse::text("hello").with_stop_reason("brand_new_reason")).await;
    assert_eq!((status, outcome.reason), (TurnStatus::Completed, OutcomeReason::Completed));
}

#[tokio::test]
async fn a_pause_with_client_calls_is_a_provider_stop() {
    let (_, outcome, _) =
        outcome_of(calls(&[("c1", "echo", json!({"text": "a"}))]).with_stop_reason("pause_turn")).await;
    assert_eq!(outcome.reason, OutcomeReason::ProviderStopped);
}

#[tokio::test]
async fn a_plain_pre_generation_error_ends_the_turn_as_error() {
    let model = ScriptedModel::new([ModelResponse::text("never")]);
    let hooks = Hooks::new().on_pre_generation(|_c: GenerationContext| async move {
        Err::<GenerationEdit, _>(HookError::new("retrieval index unavailable"))
    });
    let agent = agent_with(&model).hooks(hooks).build().unwrap();
    let err = agent.run("go").await.unwrap_err();
    assert_eq!(err.reason(), Some(&OutcomeReason::Error));
    let response = err.into_response().unwrap();
    let outcome = find_turn_outcome(&response.turn.unwrap().messages).unwrap();
    assert_eq!((outcome.reason, outcome.next), (OutcomeReason::Error, NextStep::Input));
    assert_eq!(model.requests().len(), 0);
}

#[tokio::test]
async fn partial_text_can_be_dropped_and_half_streamed_calls_always_are() {
    let steps = || {
        ScriptStep::Events(vec![
            Ok(StreamEvent::message_start(ModelResponse::default())),
            Ok(StreamEvent::block_start(0, Content::text(""))),
            Ok(StreamEvent::ContentBlockDelta {
                index: 0,
                delta: ContentDelta::TextDelta { text: "Let me".into() },
            }),
            Ok(StreamEvent::ContentBlockStop { index: 0 }),
            Ok(StreamEvent::block_start(1, Content::text(""))),
            Ok(StreamEvent::ContentBlockDelta {
                index: 1,
                delta: ContentDelta::TextDelta { text: "half".into() },
            }),
            Ok(StreamEvent::block_start(2, Content::tool_use("c1", "echo", json!({})))),
            Err(LlmError::new(LlmErrorKind::Network, "reset")),
        ])
    };
    for (drop, expected) in [(false, vec!["Let me", "half"]), (true, vec!["Let me"])] {
        let model = ScriptedModel::from_steps([steps()]).streaming();
        let agent =
            agent_with(&model).tool(echo("echo", Arc::default())).drop_partial_text(drop).build().unwrap();
        let response = agent.run("go").await.unwrap_err().into_response().unwrap();
        let kept = &response.turn.as_ref().unwrap().messages[1];
        let texts: Vec<&str> = kept.content.iter().filter_map(Content::as_text).collect();
        assert_eq!(texts, expected);
        assert!(!kept.has_tool_uses(), "a half-streamed tool call is dropped");
    }
}

#[tokio::test]
async fn a_given_up_pause_drops_its_trailing_server_call() {
    let mut paused = ModelResponse::text("searching…").with_stop_reason("pause_turn");
    paused.content.push(
        serde_json::from_value(
            json!({"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}}),
        )
        .unwrap(),
    );
    let model = ScriptedModel::new([paused.clone(), paused]);
    let agent = agent_with(&model).pause_turn_limit(1).build().unwrap();
    let response = agent.run("go").await.unwrap();
    let turn = response.turn.unwrap();
    assert_eq!(turn.outcome.unwrap().reason, OutcomeReason::Pause);
    let last_assistant = turn.messages.iter().rev().find(|m| m.role == dive_core::Role::Assistant).unwrap();
    assert!(!last_assistant.content.iter().any(Content::is_server_tool_content), "{last_assistant:?}");
}
