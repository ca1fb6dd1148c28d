//! [`RunOptions`]: what one invocation of an agent is given.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use dive_core::{
    BackgroundTaskHandle, BoxError, Message, Reminder, ResponseItem, Session, SoftCancel, Values,
};
use tokio_util::sync::CancellationToken;

use crate::input::RunInput;

/// Receives every [`ResponseItem`] of an invocation as it happens. It may be called
/// concurrently (parallel tools). Returning an error ends the turn with reason
/// `callback_error`.
pub type EventCallback = Arc<dyn Fn(&ResponseItem) -> Result<(), BoxError> + Send + Sync>;

/// The options of one invocation: its input and everything that applies to this call only.
///
/// Anything that converts into `RunOptions` can be passed to [`Agent::run`](crate::Agent::run):
/// a `&str` or `String` (one user message), a [`Message`], a `Vec<Message>` (for a stateless
/// caller, the whole history), `Vec<Content>` (one user message of blocks: text, images,
/// documents), or a [`RunInput`] (a resume, a continuation, a cancel of the suspended turn).
///
/// ```
/// use dive_agent::RunOptions;
/// use dive_core::SoftCancel;
/// let cancel = SoftCancel::new();
/// let options = RunOptions::from("Summarise the report").with_soft_cancel(cancel.clone());
/// assert_eq!(options.input.messages().len(), 1);
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// What this invocation does: new input, a resume, a continuation, a cancel.
    pub input: RunInput,
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
    /// How long to wait for another run that holds the session. `None` (the default) fails at
    /// once with [`Rejection::SessionBusy`](crate::Rejection::SessionBusy), so a run started
    /// from inside the run it would wait for can never deadlock; a wait is always bounded.
    pub session_wait: Option<Duration>,
}

impl fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunOptions")
            .field("input", &InputKind(&self.input))
            .field("session", &self.session.as_ref().map(|s| s.id().to_owned()))
            .field("on_event", &self.on_event.is_some())
            .field("prompt_cache_key", &self.prompt_cache_key)
            .field("model_only_reminders", &self.model_only_reminders.len())
            .field("soft_cancel", &self.soft_cancel)
            .field("cancel", &self.cancel)
            .field("background_results", &self.background_results.len())
            .field("session_wait", &self.session_wait)
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
        Self { input: RunInput::text(text), ..Self::default() }
    }

    /// Input messages (for a stateless caller, the whole history).
    #[must_use]
    pub fn messages(messages: Vec<Message>) -> Self {
        Self { input: RunInput::Messages(messages), ..Self::default() }
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

    /// Delivers finished background results at the start of this call.
    #[must_use]
    pub fn with_background_results(mut self, handles: Vec<BackgroundTaskHandle>) -> Self {
        self.background_results = handles;
        self
    }

    /// Waits up to `wait` for another run that holds the session (a queue of runs on one
    /// session), instead of failing at once with
    /// [`Rejection::SessionBusy`](crate::Rejection::SessionBusy). Cancelling the call stops
    /// the wait too.
    ///
    /// ```
    /// use std::time::Duration;
    /// let options = dive_agent::RunOptions::text("next").with_session_wait(Duration::from_secs(30));
    /// assert_eq!(options.session_wait, Some(Duration::from_secs(30)));
    /// ```
    #[must_use]
    pub fn with_session_wait(mut self, wait: Duration) -> Self {
        self.session_wait = Some(wait);
        self
    }
}

impl<T: Into<RunInput>> From<T> for RunOptions {
    fn from(input: T) -> Self {
        Self { input: input.into(), ..Self::default() }
    }
}

/// The input in Debug without its content (it may be private).
struct InputKind<'a>(&'a RunInput);

impl fmt::Debug for InputKind<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            RunInput::Messages(m) => write!(f, "Messages({})", m.len()),
            RunInput::Resume { results, guard } => f
                .debug_struct("Resume")
                .field("results", &results.keys().collect::<Vec<_>>())
                .field("guard", guard)
                .finish(),
            RunInput::ResumeStateless { history, state, results } => f
                .debug_struct("ResumeStateless")
                .field("history", &history.len())
                .field("turn_id", &state.turn_id)
                .field("results", &results.keys().collect::<Vec<_>>())
                .finish(),
            RunInput::Continue { history } => write!(f, "Continue({})", history.len()),
            RunInput::CancelSuspended { state } => f
                .debug_struct("CancelSuspended")
                .field("turn_id", &state.as_ref().map(|s| &s.turn_id))
                .finish(),
        }
    }
}
