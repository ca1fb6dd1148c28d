//! [`RunOptions`]: what one invocation of an agent is given.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use dive_core::{
    BackgroundTaskHandle, BoxError, Content, Message, Reminder, ResponseItem, Session, SoftCancel,
    SuspensionState, ToolOutput, Values,
};
use tokio_util::sync::CancellationToken;

/// Receives every [`ResponseItem`] of an invocation as it happens. It may be called
/// concurrently (parallel tools). Returning an error ends the turn with reason
/// `callback_error`.
pub type EventCallback = Arc<dyn Fn(&ResponseItem) -> Result<(), BoxError> + Send + Sync>;

/// The options of one invocation: its input and everything that applies to this call only.
///
/// Anything that converts into `RunOptions` can be passed to [`Agent::run`](crate::Agent::run):
/// a `&str` or `String` (one user message), a [`Message`], a `Vec<Message>` (for a stateless
/// caller, the whole history), or `Vec<Content>` (one user message of blocks: text, images,
/// documents).
///
/// ```
/// use dive_agent::RunOptions;
/// use dive_core::SoftCancel;
/// let cancel = SoftCancel::new();
/// let options = RunOptions::from("Summarise the report").with_soft_cancel(cancel.clone());
/// assert_eq!(options.input.len(), 1);
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// Input messages of this turn (for a stateless caller: the whole history).
    pub input: Vec<Message>,
    /// Session for this call; overrides the agent's default session.
    pub session: Option<Arc<dyn Session>>,
    /// Values shared by every hook, toolset and tool of this call.
    pub values: Values,
    /// Receives every item as it happens.
    pub on_event: Option<EventCallback>,
    /// Provider prompt-cache routing key for this call.
    pub prompt_cache_key: Option<String>,
    /// Reminders sent at the tail of every model request of this call, never recorded.
    pub model_only_reminders: Vec<Reminder>,
    /// Soft cancel: stop at the next step boundary and let running calls finish.
    pub soft_cancel: Option<SoftCancel>,
    /// Hard cancel: stop now; running tool calls are abandoned and recorded as unknown, and
    /// the turn is closed and saved. (Dropping the future also cancels, but saves nothing.)
    pub cancel: Option<CancellationToken>,
    /// Finished background tasks whose results are delivered at the start of this call.
    pub background_results: Vec<BackgroundTaskHandle>,
    /// Results for pending tool calls of a suspended turn, by call id.
    pub tool_results: BTreeMap<String, ToolOutput>,
    /// A stateless resume: the suspension state the caller kept (overrides the session's).
    pub resume: Option<SuspensionState>,
    /// Resume only if the session's open turn and revision are these.
    pub resume_request: Option<ResumeRequest>,
    /// Call the model again on the history as it stands, with no new input.
    pub continue_turn: bool,
    /// Set by [`Agent::cancel_suspended_turn`](crate::Agent::cancel_suspended_turn).
    pub(crate) cancel_suspended: bool,
}

/// A guarded resume: refused with a revision conflict,
/// before any hook or model call, unless the session's open turn and revision match.
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

impl fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunOptions")
            .field("input", &self.input.len())
            .field("session", &self.session.as_ref().map(|s| s.id().to_owned()))
            .field("on_event", &self.on_event.is_some())
            .field("prompt_cache_key", &self.prompt_cache_key)
            .field("model_only_reminders", &self.model_only_reminders.len())
            .field("soft_cancel", &self.soft_cancel)
            .field("cancel", &self.cancel)
            .field("background_results", &self.background_results.len())
            .field("tool_results", &self.tool_results.keys().collect::<Vec<_>>())
            .field("resume", &self.resume.as_ref().map(|s| s.turn_id.clone()))
            .field("resume_request", &self.resume_request)
            .field("continue_turn", &self.continue_turn)
            .finish_non_exhaustive()
    }
}

impl RunOptions {
    /// No input (useful with background results only).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// One user text message.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self { input: vec![Message::user(text)], ..Self::default() }
    }

    /// Input messages (for a stateless caller, the whole history).
    #[must_use]
    pub fn messages(messages: Vec<Message>) -> Self {
        Self { input: messages, ..Self::default() }
    }

    /// Runs on this session instead of the agent's default.
    #[must_use]
    pub fn with_session(mut self, session: Arc<dyn Session>) -> Self {
        self.session = Some(session);
        self
    }

    /// Seeds the values shared across phases.
    #[must_use]
    pub fn with_values(mut self, values: Values) -> Self {
        self.values = values;
        self
    }

    /// Receives every item as it happens.
    #[must_use]
    pub fn on_event(
        mut self,
        callback: impl Fn(&ResponseItem) -> Result<(), BoxError> + Send + Sync + 'static,
    ) -> Self {
        self.on_event = Some(Arc::new(callback));
        self
    }

    /// Sets the prompt-cache routing key.
    #[must_use]
    pub fn with_prompt_cache_key(mut self, key: impl Into<String>) -> Self {
        self.prompt_cache_key = Some(key.into());
        self
    }

    /// Adds a reminder sent to the model on every request of this call and never recorded.
    #[must_use]
    pub fn with_model_only_reminder(mut self, reminder: Reminder) -> Self {
        self.model_only_reminders.push(reminder);
        self
    }

    /// Soft cancel flag for this call (a child of it is handed to tools).
    #[must_use]
    pub fn with_soft_cancel(mut self, cancel: SoftCancel) -> Self {
        self.soft_cancel = Some(cancel);
        self
    }

    /// Hard cancellation token for this call.
    #[must_use]
    pub fn with_cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Resumes the session's suspended turn with results for some or all pending calls. With
    /// only some, the turn stays suspended waiting for the rest.
    #[must_use]
    pub fn resume_with(results: impl IntoIterator<Item = (String, ToolOutput)>) -> Self {
        Self { tool_results: results.into_iter().collect(), ..Self::default() }
    }

    /// Adds one result for a pending tool call.
    #[must_use]
    pub fn with_tool_result(mut self, call_id: impl Into<String>, output: ToolOutput) -> Self {
        self.tool_results.insert(call_id.into(), output);
        self
    }

    /// A stateless resume: `history` is the conversation before the suspended turn, `state`
    /// the suspension the caller kept, `results` the answers.
    #[must_use]
    pub fn resume_stateless(
        history: Vec<Message>,
        state: SuspensionState,
        results: impl IntoIterator<Item = (String, ToolOutput)>,
    ) -> Self {
        Self { input: history, resume: Some(state), ..Self::resume_with(results) }
    }

    /// Resumes only if the session's open turn and revision match.
    #[must_use]
    pub fn with_resume_request(mut self, request: ResumeRequest) -> Self {
        self.resume_request = Some(request);
        self
    }

    /// Calls the model again with no new input (on a session: the stored history; stateless:
    /// `history`). On a turn store with an open incomplete turn, the turn is continued in place.
    #[must_use]
    pub fn continue_turn(history: Vec<Message>) -> Self {
        Self { input: history, continue_turn: true, ..Self::default() }
    }

    /// Delivers finished background results at the start of this call.
    #[must_use]
    pub fn with_background_results(mut self, handles: Vec<BackgroundTaskHandle>) -> Self {
        self.background_results = handles;
        self
    }
}

impl From<&str> for RunOptions {
    fn from(text: &str) -> Self {
        Self::text(text)
    }
}

impl From<String> for RunOptions {
    fn from(text: String) -> Self {
        Self::text(text)
    }
}

impl From<Message> for RunOptions {
    fn from(message: Message) -> Self {
        Self::messages(vec![message])
    }
}

impl From<Vec<Message>> for RunOptions {
    fn from(messages: Vec<Message>) -> Self {
        Self::messages(messages)
    }
}

impl From<Vec<Content>> for RunOptions {
    fn from(content: Vec<Content>) -> Self {
        Self::messages(vec![Message::new(dive_core::Role::User, content)])
    }
}
