//! Deciding, before the turn boundary, what an invocation is: a fresh turn, a resume of a
//! suspended turn (partial or full), or a continuation. Every refusal here changes nothing.

use std::collections::BTreeMap;

use dive_core::{
    Message, NextStep, OUTCOME_REMINDER_NAME, PendingToolCall, Session, SessionError, SessionSnapshot,
    SuspensionState, ToolOutput, Turn, TurnStatus, Usage, find_turn_outcome, strip_reminders,
};

use crate::agent::AgentInner;
use crate::error::{AgentError, Rejection};
use crate::options::RunOptions;

/// The turn an invocation works on when it is not fresh.
#[derive(Debug, Clone)]
pub(super) struct OpenTurn {
    pub(super) id: String,
    pub(super) input: Vec<Message>,
    pub(super) output: Vec<Message>,
    pub(super) usage: Usage,
    pub(super) records: Vec<dive_core::ToolCallRecord>,
}

impl OpenTurn {
    fn from_turn(turn: &Turn) -> Self {
        Self {
            id: turn.id.clone(),
            input: turn.input().to_vec(),
            output: turn.output().to_vec(),
            usage: turn.usage.clone(),
            records: turn.tool_calls.clone(),
        }
    }

    fn from_suspension(state: &SuspensionState) -> Self {
        let split = state.input_count.min(state.turn_messages.len());
        let mut records: Vec<dive_core::ToolCallRecord> = state
            .completed
            .iter()
            .map(|c| {
                dive_core::ToolCallRecord::new(
                    c.id.clone(),
                    c.name.clone(),
                    dive_core::ToolCallState::Completed,
                )
            })
            .collect();
        records.extend(state.pending.iter().map(|p| {
            dive_core::ToolCallRecord::new(p.id.clone(), p.name.clone(), dive_core::ToolCallState::Waiting)
        }));
        Self {
            id: state.turn_id.clone(),
            input: state.turn_messages[..split].to_vec(),
            output: state.turn_messages[split..].to_vec(),
            usage: state.usage.clone(),
            records,
        }
    }
}

/// What an invocation is.
#[derive(Debug)]
pub(super) enum Plan {
    /// A new turn on `history`.
    Fresh { history: Vec<Message> },
    /// Results for a suspended turn.
    Resume {
        history: Vec<Message>,
        turn: Box<OpenTurn>,
        state: SuspensionState,
        accepted: Vec<(PendingToolCall, ToolOutput)>,
    },
    /// No new input: call the model again; `fold` continues an open incomplete turn in place.
    Continue { history: Vec<Message>, fold: Option<OpenTurn> },
}

impl Plan {
    /// Whether a resume leaves calls pending (the turn stays suspended).
    pub(super) fn is_partial_resume(&self, cancelling: bool) -> bool {
        !cancelling
            && matches!(self, Self::Resume { state, accepted, .. } if accepted.len() < state.pending.len())
    }
}

/// Decides the plan from the options and the loaded session.
pub(super) fn decide(
    inner: &AgentInner,
    options: &RunOptions,
    session: Option<&dyn Session>,
    snapshot: Option<&SessionSnapshot>,
) -> Result<Plan, AgentError> {
    let session_id = session.map(|s| s.id().to_owned()).unwrap_or_default();
    let open = snapshot.and_then(|s| s.open_turn.as_ref());
    let suspended = open.is_some_and(Turn::is_suspended);
    if let Some(request) = &options.resume_request {
        let (Some(snapshot), Some(s)) = (snapshot, session) else {
            return Err(Rejection::NoSuspendedTurn.into());
        };
        if s.as_turn_store().is_none() {
            return Err(Rejection::Unsupported {
                session: session_id,
                needs: "check resume requests (it is not a TurnStore)",
            }
            .into());
        }
        if snapshot.revision != request.expected_revision {
            return Err(AgentError::Session(SessionError::RevisionConflict {
                id: session_id,
                expected: request.expected_revision,
                actual: snapshot.revision,
            }));
        }
        if open.is_none_or(|t| t.id != request.turn_id || !t.is_suspended()) {
            return Err(Rejection::NoSuspendedTurn.into());
        }
    }
    let resuming = options.resume.is_some() || !options.tool_results.is_empty() || options.cancel_suspended;
    if options.continue_turn {
        if resuming || (session.is_some() && !options.input.is_empty()) {
            return Err(Rejection::ContinueWithInput.into());
        }
        if suspended {
            return Err(Rejection::ResumeRequired(session_id).into());
        }
        let mut history = snapshot.map_or_else(|| options.input.clone(), |s| s.history.clone());
        let fold = match open {
            Some(turn)
                if turn.status == TurnStatus::Incomplete
                    && session.is_some_and(|s| s.as_turn_store().is_some()) =>
            {
                let mut open = OpenTurn::from_turn(turn);
                let stripped = strip_reminders(&open.output, Some(OUTCOME_REMINDER_NAME));
                open.output = super::messages::answer_open_calls(&stripped, &open.records);
                Some(open)
            }
            Some(turn) => {
                history.extend(turn.messages.iter().cloned());
                None
            }
            None => None,
        };
        if history.is_empty() && fold.is_none() {
            return Err(Rejection::NothingToContinue.into());
        }
        return Ok(Plan::Continue { history, fold });
    }
    if resuming {
        let (state, turn, history) = match (&options.resume, open) {
            (Some(state), _) => {
                let history = match snapshot {
                    Some(s) if options.input.is_empty() => s.history.clone(),
                    _ => options.input.clone(),
                };
                (state.clone(), OpenTurn::from_suspension(state), history)
            }
            (None, Some(turn)) if turn.is_suspended() => {
                let state = turn.suspension.clone().ok_or(Rejection::NoSuspendedTurn)?;
                (state, OpenTurn::from_turn(turn), snapshot.map(|s| s.history.clone()).unwrap_or_default())
            }
            _ => return Err(Rejection::NoSuspendedTurn.into()),
        };
        let accepted = accept_results(&state, &options.tool_results)?;
        return Ok(Plan::Resume { history, turn: Box::new(turn), state, accepted });
    }
    if suspended {
        return Err(if options.input.is_empty() {
            Rejection::ResumeRequired(session_id)
        } else {
            Rejection::InputOnSuspendedSession(session_id)
        }
        .into());
    }
    if options.input.is_empty() && options.background_results.is_empty() {
        return Err(Rejection::NoInput.into());
    }
    let latest = match snapshot {
        Some(s) => s.latest_outcome.clone(),
        None => find_turn_outcome(&options.input),
    };
    if inner.require_reconcile && latest.is_some_and(|o| o.next == NextStep::Reconcile) {
        return Err(Rejection::UnreconciledToolCalls.into());
    }
    Ok(Plan::Fresh { history: snapshot.map(SessionSnapshot::messages).unwrap_or_default() })
}

/// Checks supplied results against the suspension: pending calls are accepted; a resent
/// identical result for an already-completed call is skipped; anything else is refused.
fn accept_results(
    state: &SuspensionState,
    results: &BTreeMap<String, ToolOutput>,
) -> Result<Vec<(PendingToolCall, ToolOutput)>, Rejection> {
    let mut accepted = Vec::new();
    for (id, output) in results {
        if let Some(pending) = state.pending_call(id) {
            accepted.push((pending.clone(), output.clone()));
        } else if let Some(done) = state.completed.iter().find(|c| &c.id == id) {
            if &done.output != output {
                return Err(Rejection::ConflictingToolResult(id.clone()));
            }
        } else {
            return Err(Rejection::UnknownPendingToolCall(id.clone()));
        }
    }
    // Keep the calls' own order.
    accepted.sort_by_key(|(p, _)| state.pending.iter().position(|q| q.id == p.id));
    Ok(accepted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive_core::CompletedToolCall;
    use serde_json::json;

    fn state() -> SuspensionState {
        let mut s = SuspensionState::default();
        s.pending = vec![
            PendingToolCall::new("p1", "ask", json!({}), "?"),
            PendingToolCall::new("p2", "ask", json!({}), "?"),
        ];
        s.completed = vec![CompletedToolCall::new("c1", "echo", json!({}), ToolOutput::text("done"))];
        s
    }

    #[test]
    fn results_are_checked_against_the_suspension() {
        let s = state();
        let ok = BTreeMap::from([
            ("p2".to_owned(), ToolOutput::text("b")),
            ("p1".to_owned(), ToolOutput::text("a")),
        ]);
        let accepted = accept_results(&s, &ok).unwrap();
        assert_eq!(accepted.iter().map(|(p, _)| p.id.as_str()).collect::<Vec<_>>(), ["p1", "p2"]);
        let resent = BTreeMap::from([("c1".to_owned(), ToolOutput::text("done"))]);
        assert!(accept_results(&s, &resent).unwrap().is_empty());
        let conflict = BTreeMap::from([("c1".to_owned(), ToolOutput::text("other"))]);
        assert_eq!(accept_results(&s, &conflict), Err(Rejection::ConflictingToolResult("c1".into())));
        let unknown = BTreeMap::from([("zz".to_owned(), ToolOutput::text("x"))]);
        assert_eq!(accept_results(&s, &unknown), Err(Rejection::UnknownPendingToolCall("zz".into())));
    }
}
