//! Deciding, before the turn boundary, what an invocation is: a fresh turn, a resume of a
//! suspended turn (partial or full), or a continuation. Every refusal here changes nothing.

use std::collections::BTreeMap;

use dive_core::{
    Message, NextStep, OUTCOME_REMINDER_NAME, PendingToolCall, Session, SessionError, SessionSnapshot,
    SuspensionState, ToolOutput, Turn, TurnStatus, Usage, find_turn_outcome, strip_reminders,
};

use crate::agent::AgentInner;
use crate::error::{AgentError, Rejection};
use crate::input::{ResumeRequest, RunInput};

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
    fn from_turn(turn: Turn) -> Self {
        let split = turn.input().len();
        let mut input = turn.messages;
        let output = input.split_off(split);
        Self { id: turn.id, input, output, usage: turn.usage, records: turn.tool_calls }
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
    /// A new turn on `history` with `input`.
    Fresh { history: Vec<Message>, input: Vec<Message> },
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

/// Decides the plan from the input and the loaded session (both moved in: the history is
/// handed on, never copied).
pub(super) fn decide(
    inner: &AgentInner,
    input: RunInput,
    has_background: bool,
    session: Option<&dyn Session>,
    snapshot: Option<SessionSnapshot>,
) -> Result<Plan, AgentError> {
    let session_id = session.map(|s| s.id().to_owned()).unwrap_or_default();
    let suspended = snapshot.as_ref().is_some_and(SessionSnapshot::is_suspended);
    let (kept, history_given, results) = match input {
        RunInput::Messages(input) => {
            return fresh(inner, input, has_background, &session_id, snapshot, suspended);
        }
        RunInput::Continue { history } => {
            return continue_plan(history, &session_id, session, snapshot, suspended);
        }
        RunInput::Resume { results, guard } => {
            if let Some(request) = &guard {
                check_guard(request, &session_id, session, snapshot.as_ref())?;
            }
            (None, Vec::new(), results)
        }
        RunInput::ResumeStateless { history, state, results } => (Some(*state), history, results),
        RunInput::CancelSuspended { state } => (state.map(|s| *s), Vec::new(), BTreeMap::new()),
    };
    let (state, turn, history) = match (kept, snapshot) {
        (Some(state), snapshot) => {
            let history = match snapshot {
                Some(s) if history_given.is_empty() => s.history,
                _ => history_given,
            };
            let turn = OpenTurn::from_suspension(&state);
            (state, turn, history)
        }
        (None, Some(SessionSnapshot { history, open_turn: Some(turn), .. })) if turn.is_suspended() => {
            let state = turn.suspension.as_deref().cloned().ok_or(Rejection::NoSuspendedTurn)?;
            (state, OpenTurn::from_turn(turn), history)
        }
        _ => return Err(Rejection::NoSuspendedTurn.into()),
    };
    let accepted = accept_results(&state, results)?;
    Ok(Plan::Resume { history, turn: Box::new(turn), state, accepted })
}

/// A guarded resume is refused unless the session's open turn and revision match.
fn check_guard(
    request: &ResumeRequest,
    session_id: &str,
    session: Option<&dyn Session>,
    snapshot: Option<&SessionSnapshot>,
) -> Result<(), AgentError> {
    let (Some(snapshot), Some(s)) = (snapshot, session) else {
        return Err(Rejection::NoSuspendedTurn.into());
    };
    let open = snapshot.open_turn.as_ref();
    if s.as_turn_store().is_none() {
        return Err(Rejection::Unsupported {
            session: session_id.to_owned(),
            needs: "check resume requests (it is not a TurnStore)",
        }
        .into());
    }
    if snapshot.revision != request.expected_revision {
        return Err(AgentError::Session(SessionError::RevisionConflict {
            id: session_id.to_owned(),
            expected: request.expected_revision,
            actual: snapshot.revision,
        }));
    }
    if open.is_none_or(|t| t.id != request.turn_id || !t.is_suspended()) {
        return Err(Rejection::NoSuspendedTurn.into());
    }
    Ok(())
}

/// No new input: call the model again on the history as it stands.
fn continue_plan(
    given: Vec<Message>,
    session_id: &str,
    session: Option<&dyn Session>,
    snapshot: Option<SessionSnapshot>,
    suspended: bool,
) -> Result<Plan, AgentError> {
    if session.is_some() && !given.is_empty() {
        return Err(Rejection::ContinueWithInput.into());
    }
    if suspended {
        return Err(Rejection::ResumeRequired(session_id.to_owned()).into());
    }
    let (mut history, open) = match snapshot {
        Some(s) => (s.history, s.open_turn),
        None => (given, None),
    };
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
            history.extend(turn.messages);
            None
        }
        None => None,
    };
    if history.is_empty() && fold.is_none() {
        return Err(Rejection::NothingToContinue.into());
    }
    Ok(Plan::Continue { history, fold })
}

/// New input: a fresh turn, refused while the session is suspended.
fn fresh(
    inner: &AgentInner,
    input: Vec<Message>,
    has_background: bool,
    session_id: &str,
    snapshot: Option<SessionSnapshot>,
    suspended: bool,
) -> Result<Plan, AgentError> {
    if suspended {
        return Err(if input.is_empty() {
            Rejection::ResumeRequired(session_id.to_owned())
        } else {
            Rejection::InputOnSuspendedSession(session_id.to_owned())
        }
        .into());
    }
    if input.is_empty() && !has_background {
        return Err(Rejection::NoInput.into());
    }
    let latest = match &snapshot {
        Some(s) => s.latest_outcome.clone(),
        None => find_turn_outcome(&input),
    };
    if inner.require_reconcile && latest.is_some_and(|o| o.next == NextStep::Reconcile) {
        return Err(Rejection::UnreconciledToolCalls.into());
    }
    let history = match snapshot {
        Some(s) => {
            let mut history = s.history;
            if let Some(open) = s.open_turn {
                history.extend(open.messages);
            }
            history
        }
        None => Vec::new(),
    };
    Ok(Plan::Fresh { history, input })
}

/// Checks supplied results against the suspension: pending calls are accepted; a resent
/// identical result for an already-completed call is skipped; anything else is refused.
fn accept_results(
    state: &SuspensionState,
    results: BTreeMap<String, ToolOutput>,
) -> Result<Vec<(PendingToolCall, ToolOutput)>, Rejection> {
    let mut accepted = Vec::new();
    for (id, output) in results {
        if let Some(pending) = state.pending_call(&id) {
            accepted.push((pending.clone(), output));
        } else if let Some(done) = state.completed.iter().find(|c| c.id == id) {
            if done.output != output {
                return Err(Rejection::ConflictingToolResult(id));
            }
        } else {
            return Err(Rejection::UnknownPendingToolCall(id));
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
        let accepted = accept_results(&s, ok).unwrap();
        assert_eq!(accepted.iter().map(|(p, _)| p.id.as_str()).collect::<Vec<_>>(), ["p1", "p2"]);
        let resent = BTreeMap::from([("c1".to_owned(), ToolOutput::text("done"))]);
        assert!(accept_results(&s, resent).unwrap().is_empty());
        let conflict = BTreeMap::from([("c1".to_owned(), ToolOutput::text("other"))]);
        assert_eq!(accept_results(&s, conflict), Err(Rejection::ConflictingToolResult("c1".into())));
        let unknown = BTreeMap::from([("zz".to_owned(), ToolOutput::text("x"))]);
        assert_eq!(accept_results(&s, unknown), Err(Rejection::UnknownPendingToolCall("zz".into())));
    }
}
