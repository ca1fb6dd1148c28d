//! `outcome_returns_error` is the engine's own contract: runs that end for a reason it marks
//! return `Err(AgentError::Turn)`, the others `Ok`.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::agent_with;
use dive_agent::outcome_returns_error;
use dive_core::{LlmError, LlmErrorKind, ModelResponse, OutcomeReason};
use dive_test::{ScriptStep, ScriptedModel};

async fn run(step: ScriptStep) -> (OutcomeReason, bool) {
    let model = ScriptedModel::from_steps([step]);
    let agent = agent_with(&model).build().unwrap();
    match agent.run("go").await {
        Ok(response) => (response.turn.unwrap().outcome.unwrap().reason, false),
        Err(e) => (e.reason().cloned().unwrap(), true),
    }
}

#[tokio::test]
async fn the_engine_returns_an_error_exactly_for_the_reasons_the_policy_names() {
    for (step, expected) in [
        (ScriptStep::Response(ModelResponse::text("done")), OutcomeReason::Completed),
        (
            ScriptStep::Response(ModelResponse::text("cut").with_stop_reason("max_tokens")),
            OutcomeReason::OutputLimit,
        ),
        (
            ScriptStep::Response(ModelResponse::text("?").with_stop_reason("model_context_window_exceeded")),
            OutcomeReason::ContextLimit,
        ),
        (ScriptStep::Error(LlmError::new(LlmErrorKind::Overloaded, "busy")), OutcomeReason::ProviderError),
    ] {
        let (reason, is_err) = run(step).await;
        assert_eq!(reason, expected);
        assert_eq!(is_err, outcome_returns_error(&reason), "{reason:?}");
    }
}
