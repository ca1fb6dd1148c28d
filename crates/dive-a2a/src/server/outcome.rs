//! How a finished run of the agent becomes a task's state, artifacts and history.

use dive_agent::AgentError;
use dive_core::{OutcomeReason, Response, SuspendReason, SuspensionState, TurnStatus};
use serde_json::{Map, Value, json};

use crate::types::{Artifact, Message, Part, Task, TaskState, TaskStatus};

/// The name of the artifact that holds the agent's answer.
pub const ANSWER_ARTIFACT: &str = "response";

/// The task metadata key that says why a task waits (`input-required`, `auth-required`).
pub const SUSPENSION_KEY: &str = "dive.suspension";

/// Applies the result of a run to `task`: completed → `completed` with the answer as an
/// artifact; suspended → `input-required` (or `auth-required`) asking the pending questions;
/// cancelled → `canceled`; any other incomplete end → `failed` with the partial output.
pub(crate) fn finish(task: &mut Task, result: Result<Response, AgentError>) {
    let (response, reason, error) = match result {
        Ok(response) => {
            let reason = response.turn.as_ref().and_then(|t| t.outcome.as_ref()).map(|o| o.reason.clone());
            (Some(response), reason, None)
        }
        Err(AgentError::Turn(turn)) => {
            let message = turn.to_string();
            (Some(turn.response), Some(turn.reason), Some(message))
        }
        Err(other) => (None, None, Some(other.to_string())),
    };
    let answer = response.as_ref().map(Response::output_text).unwrap_or_default();
    let status = response.as_ref().map(|r| r.status);
    let (state, status_text) = match (status, &reason) {
        (Some(TurnStatus::Suspended), _) => {
            let suspension = response.as_ref().and_then(|r| r.suspension.clone());
            return suspend(task, suspension, &answer);
        }
        (_, Some(OutcomeReason::Canceled)) => {
            (TaskState::Canceled, error.unwrap_or_else(|| "canceled".into()))
        }
        (Some(TurnStatus::Completed), _) if error.is_none() => (TaskState::Completed, String::new()),
        _ => {
            let why = error.unwrap_or_else(|| {
                format!("the agent stopped before finishing ({})", reason_name(reason.as_ref()))
            });
            (TaskState::Failed, why)
        }
    };
    if !answer.is_empty() {
        let mut artifact = Artifact::new(ANSWER_ARTIFACT, vec![Part::text(&answer)]);
        if state != TaskState::Completed {
            artifact.description = Some("partial output".into());
        }
        task.artifacts.push(artifact);
        task.history.push(agent_message(task, vec![Part::text(&answer)]));
    }
    let message = (!status_text.is_empty()).then(|| agent_message(task, vec![Part::text(status_text)]));
    if let Some(meta) = task.metadata.as_mut() {
        meta.remove(SUSPENSION_KEY);
    }
    task.status = TaskStatus::now(state, message);
}

fn suspend(task: &mut Task, suspension: Option<Box<SuspensionState>>, answer: &str) {
    let pending = suspension.map(|s| s.pending).unwrap_or_default();
    let auth = pending.iter().any(|p| p.reason == SuspendReason::AuthRequired);
    let mut text: Vec<String> = Vec::new();
    if !answer.is_empty() {
        text.push(answer.to_owned());
    }
    text.extend(pending.iter().map(|p| p.prompt.clone()));
    let calls: Vec<Value> = pending
        .iter()
        .map(|p| json!({"id": p.id, "name": p.name, "prompt": p.prompt, "input": p.input}))
        .collect();
    let parts = vec![Part::text(text.join("\n")), Part::data(json!({ "pendingToolCalls": calls }))];
    let message = agent_message(task, parts);
    task.history.push(message.clone());
    let (state, reason) = if auth {
        (TaskState::AuthRequired, "auth-required")
    } else {
        (TaskState::InputRequired, "input-required")
    };
    task.metadata.get_or_insert_with(Map::new).insert(SUSPENSION_KEY.into(), json!(reason));
    task.status = TaskStatus::now(state, Some(message));
}

/// An agent message on this task.
pub(crate) fn agent_message(task: &Task, parts: Vec<Part>) -> Message {
    Message::new(crate::types::Role::Agent, parts).with_context_id(&task.context_id).with_task_id(&task.id)
}

fn reason_name(reason: Option<&OutcomeReason>) -> String {
    reason
        .and_then(|r| serde_json::to_value(r).ok())
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}
