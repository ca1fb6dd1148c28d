//! [`AgentError`]: why building an agent or running a turn failed.
//!
//! Errors before the turn boundary (building, loading the session, the session lock,
//! SessionStart hooks) change nothing and carry no response. After the boundary every error
//! carries the [`Response`] of the turn it ended, with its closed messages and outcome: see
//! [`AgentError::response`].

use dive_core::{BoxError, HookError, LlmError, OutcomeReason, Response, SessionError, ToolError};

/// An agent could not be built, or a turn could not run to its end.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The builder was given an invalid configuration (no model, duplicate tool names…).
    #[error("invalid agent configuration: {0}")]
    Config(String),
    /// Loading the session failed before the turn started; nothing changed.
    #[error("session error before the turn started: {0}")]
    Session(#[from] SessionError),
    /// A tool tried to run the agent on the session its own turn holds.
    #[error(
        "session {0:?} is already in use by this task (an agent called from inside its own turn); \
         use another session or none"
    )]
    ReentrantSession(String),
    /// The run was started outside a Tokio runtime, or on one without timers
    /// (`enable_time`/`enable_all`); nothing changed.
    #[error("{0}")]
    Runtime(&'static str),
    /// A SessionStart hook failed; nothing changed.
    #[error("session start hook failed: {0}")]
    SessionStart(#[source] HookError),
    /// The invocation asked for something the session state does not allow; nothing changed.
    #[error("{0}")]
    Rejected(#[from] Rejection),
    /// The turn started and ended early; the response holds what happened.
    #[error("{0}")]
    Turn(Box<TurnError>),
}

impl AgentError {
    /// The response of the turn this error ended, when the turn had started.
    #[must_use]
    pub fn response(&self) -> Option<&Response> {
        match self {
            Self::Turn(t) => Some(&t.response),
            _ => None,
        }
    }

    /// Takes the response out of the error, when the turn had started.
    #[must_use]
    pub fn into_response(self) -> Option<Response> {
        match self {
            Self::Turn(t) => Some(t.response),
            _ => None,
        }
    }

    /// The outcome reason of the turn this error ended, when the turn had started.
    #[must_use]
    pub fn reason(&self) -> Option<&OutcomeReason> {
        match self {
            Self::Turn(t) => Some(&t.reason),
            _ => None,
        }
    }
}

/// Why an invocation was refused before its turn started. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rejection {
    /// No input, no results to resume with, nothing to continue.
    #[error("no input: pass text, messages or content blocks (or background results)")]
    NoInput,
    /// The session is suspended and the call neither resumes nor cancels it.
    #[error(
        "session {0:?} is suspended waiting for tool results: resume it with tool results or cancel the suspended turn"
    )]
    ResumeRequired(String),
    /// New input was given while the session is suspended.
    #[error(
        "session {0:?} is suspended: new input is not accepted until the suspended turn is resumed or cancelled"
    )]
    InputOnSuspendedSession(String),
    /// Tool results were given but there is no suspended turn.
    #[error("there is no suspended turn to resume")]
    NoSuspendedTurn,
    /// A tool result names a call that is not pending.
    #[error("tool call {0:?} is not pending in the suspended turn")]
    UnknownPendingToolCall(String),
    /// A result differs from the one already accepted for that call.
    #[error("tool call {0:?} already has a different result")]
    ConflictingToolResult(String),
    /// `continue` was given history on a session (the session's own history is continued).
    #[error("continue on a session takes no history: the session's own history is continued")]
    ContinueWithInput,
    /// `continue` was asked on an empty conversation.
    #[error("there is nothing to continue: the conversation is empty")]
    NothingToContinue,
    /// New input while the latest turn has tool calls of unknown effect.
    #[error(
        "the latest turn has tool calls whose effect is unknown: reconcile them (continue the turn) before new input"
    )]
    UnreconciledToolCalls,
    /// Another run holds the session: this run did not wait (the default), or its
    /// [`session_wait`](crate::RunOptions::session_wait) passed or it was cancelled first.
    #[error(
        "session {0:?} is in use by another run: retry when that run has ended, wait for it with \
         RunOptions::with_session_wait, or use another session"
    )]
    SessionBusy(String),
    /// A durability option needs a session capability this session lacks.
    #[error("session {session:?} cannot {needs}")]
    Unsupported {
        /// The session id.
        session: String,
        /// What was needed.
        needs: &'static str,
    },
}

/// A turn that started and ended with an error: its response, its outcome reason and the cause.
#[derive(Debug, thiserror::Error)]
#[error("turn ended early ({}): {cause}", reason_name(reason))]
#[non_exhaustive]
pub struct TurnError {
    /// The response: output messages, items, usage, and `turn` with the closed record.
    pub response: Response,
    /// The outcome reason (`canceled`, `provider_error`, …).
    pub reason: OutcomeReason,
    /// What went wrong.
    #[source]
    pub cause: TurnFailure,
}

fn reason_name(reason: &OutcomeReason) -> String {
    match reason {
        OutcomeReason::Other(s) => s.clone(),
        other => {
            serde_json::to_value(other).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
        }
    }
}

/// What ended a turn early.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TurnFailure {
    /// Cancelled through the invocation's cancellation token.
    #[error("the turn was cancelled")]
    Cancelled,
    /// Soft cancel requested: the turn stopped at a step boundary.
    #[error("soft cancel requested")]
    SoftCancelled,
    /// The response timeout elapsed.
    #[error("the response timeout elapsed")]
    Deadline,
    /// The model call failed (after the provider's retries).
    #[error("model call failed: {0}")]
    Model(#[source] LlmError),
    /// A hook aborted the turn, or a PreGeneration/PreIteration hook failed.
    #[error("hook failed: {0}")]
    Hook(#[source] HookError),
    /// The event callback returned an error.
    #[error("event callback failed: {0}")]
    Callback(#[source] BoxError),
    /// A tool failed fatally (`ToolError::fatal`).
    #[error("tool {tool} failed fatally: {source}")]
    FatalTool {
        /// The tool name.
        tool: String,
        /// Its error.
        #[source]
        source: ToolError,
    },
    /// A toolset could not list its tools.
    #[error("toolset {toolset} failed: {source}")]
    Toolset {
        /// The toolset name.
        toolset: String,
        /// Its error.
        #[source]
        source: ToolError,
    },
    /// The turn finished but saving it failed.
    #[error("saving the turn failed: {0}")]
    Save(#[source] SessionError),
    /// Another owner took the session's claim while the turn ran.
    #[error("the session claim was lost: {0}")]
    ClaimLost(#[source] SessionError),
    /// Saving the turn did not finish within the save timeout; it may or may not have landed.
    #[error("saving the turn timed out; reload the session to see whether it landed")]
    SaveTimeout,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_errors_name_their_reason() {
        let err = TurnError {
            response: Response::new("r"),
            reason: OutcomeReason::ProviderError,
            cause: TurnFailure::Deadline,
        };
        assert_eq!(err.to_string(), "turn ended early (provider_error): the response timeout elapsed");
        let agent = AgentError::Turn(Box::new(err));
        assert!(agent.response().is_some());
        assert_eq!(agent.reason(), Some(&OutcomeReason::ProviderError));
    }
}
