//! [`RunInput`]: what an invocation is (new input, a resume, a continuation, a cancel of the
//! suspended turn), as one enum, so a combination that means nothing cannot be written.

use std::collections::BTreeMap;

use dive_core::{Content, Message, SuspensionState, ToolOutput};

/// What one invocation of an agent does. Every other option of a call lives on
/// [`RunOptions`](crate::RunOptions).
///
/// ```
/// use dive_agent::{ResumeRequest, RunInput, RunOptions};
/// use dive_core::ToolOutput;
/// let fresh = RunInput::from("Summarise the report");
/// assert!(matches!(fresh, RunInput::Messages(ref m) if m.len() == 1));
/// let resume =
///     RunInput::resume_guarded(ResumeRequest::new("turn_1", 7), [("call_1", ToolOutput::text("yes"))]);
/// let options = RunOptions::from(resume);
/// assert!(matches!(options.input, RunInput::Resume { guard: Some(_), .. }));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum RunInput {
    /// A new turn with these input messages (for a stateless caller: the whole history). Empty
    /// only when background results are delivered.
    Messages(Vec<Message>),
    /// Results for pending tool calls of the session's suspended turn, by call id. With only
    /// some, the turn stays suspended waiting for the rest.
    Resume {
        /// The results, by call id.
        results: BTreeMap<String, ToolOutput>,
        /// Resume only if the session's open turn and revision are these.
        guard: Option<ResumeRequest>,
    },
    /// A stateless resume: the caller kept the conversation and the suspension.
    ResumeStateless {
        /// The conversation before the suspended turn.
        history: Vec<Message>,
        /// The suspension the caller kept (it overrides a session's).
        state: Box<SuspensionState>,
        /// The results, by call id.
        results: BTreeMap<String, ToolOutput>,
    },
    /// Call the model again with no new input: on a session, the stored history (`history`
    /// must be empty); stateless, `history`. On a turn store with an open incomplete turn, the
    /// turn is continued in place.
    Continue {
        /// The conversation, for a stateless caller.
        history: Vec<Message>,
    },
    /// Close the suspended turn as cancelled without a model call: finished calls keep their
    /// results, pending calls are recorded as unknown, the outcome is `canceled`.
    CancelSuspended {
        /// For a stateless caller, the suspension it kept; `None` cancels the session's.
        state: Option<Box<SuspensionState>>,
    },
}

impl Default for RunInput {
    fn default() -> Self {
        Self::Messages(Vec::new())
    }
}

impl RunInput {
    /// One user text message.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self::Messages(vec![Message::user(text)])
    }

    /// Resumes the session's suspended turn with results for some or all pending calls.
    #[must_use]
    pub fn resume<I: Into<String>>(results: impl IntoIterator<Item = (I, ToolOutput)>) -> Self {
        Self::Resume { results: collect(results), guard: None }
    }

    /// A guarded resume: refused with a revision conflict, before any hook or model call,
    /// unless the session's open turn and revision are those of `request`.
    #[must_use]
    pub fn resume_guarded<I: Into<String>>(
        request: ResumeRequest,
        results: impl IntoIterator<Item = (I, ToolOutput)>,
    ) -> Self {
        Self::Resume { results: collect(results), guard: Some(request) }
    }

    /// A stateless resume: `history` is the conversation before the suspended turn, `state`
    /// the suspension the caller kept (as the response gave it, boxed, or not), `results` the
    /// answers.
    #[must_use]
    pub fn resume_stateless<I: Into<String>>(
        history: Vec<Message>,
        state: impl Into<Box<SuspensionState>>,
        results: impl IntoIterator<Item = (I, ToolOutput)>,
    ) -> Self {
        Self::ResumeStateless { history, state: state.into(), results: collect(results) }
    }

    /// Calls the model again with no new input (see [`RunInput::Continue`]).
    #[must_use]
    pub fn continue_turn(history: Vec<Message>) -> Self {
        Self::Continue { history }
    }

    /// Cancels the session's suspended turn.
    #[must_use]
    pub fn cancel_suspended() -> Self {
        Self::CancelSuspended { state: None }
    }

    /// Cancels a suspension a stateless caller kept (boxed, as the response gave it, or not).
    #[must_use]
    pub fn cancel_suspended_stateless(state: impl Into<Box<SuspensionState>>) -> Self {
        Self::CancelSuspended { state: Some(state.into()) }
    }

    /// The input messages of a fresh turn (empty for every other input).
    #[must_use]
    pub fn messages(&self) -> &[Message] {
        match self {
            Self::Messages(m) => m,
            _ => &[],
        }
    }
}

fn collect<I: Into<String>>(
    results: impl IntoIterator<Item = (I, ToolOutput)>,
) -> BTreeMap<String, ToolOutput> {
    results.into_iter().map(|(id, output)| (id.into(), output)).collect()
}

/// A guarded resume: refused with a revision conflict, before any hook or model call, unless
/// the session's open turn and revision match.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResumeRequest {
    /// The suspended turn's id.
    pub turn_id: String,
    /// The session revision the caller last saw.
    pub expected_revision: u64,
}

impl ResumeRequest {
    /// A resume of `turn_id` expected at `expected_revision`.
    #[must_use]
    pub fn new(turn_id: impl Into<String>, expected_revision: u64) -> Self {
        Self { turn_id: turn_id.into(), expected_revision }
    }
}

impl From<&str> for RunInput {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

impl From<String> for RunInput {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<Message> for RunInput {
    fn from(message: Message) -> Self {
        Self::Messages(vec![message])
    }
}

impl From<Vec<Message>> for RunInput {
    fn from(messages: Vec<Message>) -> Self {
        Self::Messages(messages)
    }
}

impl From<Vec<Content>> for RunInput {
    fn from(content: Vec<Content>) -> Self {
        Self::Messages(vec![Message::new(dive_core::Role::User, content)])
    }
}
