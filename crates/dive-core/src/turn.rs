//! Turn records: one invocation's messages, status, outcome, tool-call states
//! and suspension, as stored by sessions and returned in every response.
//!
//! A turn is `running` while it executes (stored only with step checkpoints), then
//! `completed`, `suspended` (waiting for tool results) or `incomplete` (stopped early; see
//! [`OutcomeReason`] and [`NextStep`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::llm::Usage;
use crate::message::Message;
use crate::reminder::find_latest_reminder;
use crate::time::Timestamp;
use crate::tool::{SuspendReason, ToolOutput};

/// The turn record schema version written by this library.
pub const TURN_SCHEMA_VERSION: u32 = 1;

/// Name of the reminder that records a turn's outcome in history.
pub const OUTCOME_REMINDER_NAME: &str = "turn-outcome";

/// Where a turn is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TurnStatus {
    /// Executing (stored only by step checkpoints).
    Running,
    /// Finished normally.
    Completed,
    /// Waiting for tool results from the application.
    Suspended,
    /// Stopped before finishing.
    Incomplete,
}

impl TurnStatus {
    /// The snake_case name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Suspended => "suspended",
            Self::Incomplete => "incomplete",
        }
    }

    /// Whether the turn can still be continued or resumed.
    #[must_use]
    pub fn is_open(self) -> bool {
        matches!(self, Self::Suspended | Self::Incomplete | Self::Running)
    }
}

/// Why a turn ended as it did.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OutcomeReason {
    /// The model finished.
    Completed,
    /// The model refused (calls answered "not run").
    Refused,
    /// A tool suspended the turn.
    Suspended,
    /// The caller cancelled (hard or soft).
    Canceled,
    /// The response timeout or a deadline passed.
    Deadline,
    /// The model call failed before streaming began.
    ProviderError,
    /// The stream broke after its first event.
    StreamInterrupted,
    /// A hook aborted.
    HookAbort,
    /// The event callback failed.
    CallbackError,
    /// Any other error.
    Error,
    /// The output token limit cut the response.
    OutputLimit,
    /// The context window is full.
    ContextLimit,
    /// The tool iteration limit was reached.
    IterationLimit,
    /// The provider stopped without finishing.
    ProviderStopped,
    /// The provider paused too many times.
    Pause,
    /// The process ended while the turn was running.
    ProcessExit,
    /// A reason from a newer version.
    #[serde(untagged)]
    Other(String),
}

impl OutcomeReason {
    /// The reason's wire name (its JSON string), e.g. `iteration_limit`.
    ///
    /// ```
    /// use dive_core::OutcomeReason;
    /// assert_eq!(OutcomeReason::IterationLimit.as_str(), "iteration_limit");
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Self::Completed => "completed",
            Self::Refused => "refused",
            Self::Suspended => "suspended",
            Self::Canceled => "canceled",
            Self::Deadline => "deadline",
            Self::ProviderError => "provider_error",
            Self::StreamInterrupted => "stream_interrupted",
            Self::HookAbort => "hook_abort",
            Self::CallbackError => "callback_error",
            Self::Error => "error",
            Self::OutputLimit => "output_limit",
            Self::ContextLimit => "context_limit",
            Self::IterationLimit => "iteration_limit",
            Self::ProviderStopped => "provider_stopped",
            Self::Pause => "pause",
            Self::ProcessExit => "process_exit",
            Self::Other(s) => s,
        }
    }

    /// The default advice for this reason (before the `reconcile` rule): part of the record,
    /// written by the engine and by stores recovering or forking a turn alike. Whether a run
    /// ending for this reason is an error is the engine's policy
    /// (`dive_agent::outcome_returns_error`).
    #[must_use]
    pub fn default_next(&self) -> NextStep {
        match self {
            Self::Completed | Self::Refused => NextStep::None,
            Self::Suspended => NextStep::Resume,
            Self::Canceled | Self::HookAbort | Self::Error | Self::ContextLimit | Self::Other(_) => {
                NextStep::Input
            }
            Self::Deadline
            | Self::ProviderError
            | Self::StreamInterrupted
            | Self::CallbackError
            | Self::OutputLimit
            | Self::IterationLimit
            | Self::ProviderStopped
            | Self::Pause
            | Self::ProcessExit => NextStep::Continue,
        }
    }

    /// The turn status this reason closes with.
    #[must_use]
    pub fn status(&self) -> TurnStatus {
        match self {
            Self::Completed | Self::Refused => TurnStatus::Completed,
            Self::Suspended => TurnStatus::Suspended,
            _ => TurnStatus::Incomplete,
        }
    }
}

/// What to do next with a turn (advisory; continuing works in every state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NextStep {
    /// Nothing: the turn is done.
    #[default]
    None,
    /// Call again with no new input to pick up where it stopped.
    Continue,
    /// New input is needed (the user should say something, or history must be shortened).
    Input,
    /// Supply the pending tool results.
    Resume,
    /// Some tool may have taken effect without a recorded result: check before continuing.
    Reconcile,
}

/// State of one tool call within a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolCallState {
    /// Never started: no effect.
    NotStarted,
    /// Started (step checkpoint), no result yet.
    Running,
    /// A result is recorded (success or tool error).
    Completed,
    /// Suspended, waiting for an external result.
    Waiting,
    /// Started, no result recorded: may have taken effect.
    Unknown,
}

/// One tool call of a turn and its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCallRecord {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// State.
    pub state: ToolCallState,
    /// The tool is read-only (softens `reconcile` advice).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

impl ToolCallRecord {
    /// A record.
    #[must_use]
    pub fn new(id: impl Into<String>, name: impl Into<String>, state: ToolCallState) -> Self {
        Self { id: id.into(), name: name.into(), state, read_only: false }
    }
}

/// The one authoritative account of how a turn ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TurnOutcome {
    /// Why.
    pub reason: OutcomeReason,
    /// Error text (or the raw provider stop value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The hook that aborted, for `hook_abort`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<String>,
    /// Usage of the failed call is unknown (a stream cut before its usage arrived).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub usage_unknown: bool,
    /// Every tool call of the turn and its state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallRecord>,
    /// Advice.
    pub next: NextStep,
    /// For a turn the iteration limit ended: the text of the model's last assistant message, a
    /// partial answer or a clue to a runaway loop; `None` when that message held only tool
    /// calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_text: Option<String>,
    /// How full the context was when the turn ended, when a model call reported its usage:
    /// the next turn's compaction threshold starts from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<ContextSize>,
}

/// The size of a conversation's context at the end of a turn: what its last model call read
/// and wrote, and how many messages of the window that covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContextSize {
    /// The last call's input tokens (cached included) plus its output tokens.
    pub tokens: u64,
    /// The messages in the window once the turn ended: a window of another length (edited or
    /// compacted since) is not the one `tokens` measured.
    pub messages: usize,
}

impl ContextSize {
    /// `tokens` over a window of `messages`.
    #[must_use]
    pub fn new(tokens: u64, messages: usize) -> Self {
        Self { tokens, messages }
    }
}

impl TurnOutcome {
    /// An outcome with the reason's default advice, adjusted by the `reconcile` rule.
    #[must_use]
    pub fn new(reason: OutcomeReason, tool_calls: Vec<ToolCallRecord>) -> Self {
        let mut outcome = Self {
            next: reason.default_next(),
            reason,
            error: None,
            hook: None,
            usage_unknown: false,
            tool_calls,
            last_text: None,
            context: None,
        };
        outcome.apply_reconcile_rule();
        outcome
    }

    /// A completed outcome.
    #[must_use]
    pub fn completed(tool_calls: Vec<ToolCallRecord>) -> Self {
        Self::new(OutcomeReason::Completed, tool_calls)
    }

    /// Sets the error text.
    #[must_use]
    pub fn with_error(mut self, error: impl Into<String>) -> Self {
        self.error = Some(error.into());
        self
    }

    /// Sets the hook name.
    #[must_use]
    pub fn with_hook(mut self, hook: impl Into<String>) -> Self {
        self.hook = Some(hook.into());
        self
    }

    /// Sets the last assistant text (an empty text sets none).
    #[must_use]
    pub fn with_last_text(mut self, text: impl Into<String>) -> Self {
        let text = text.into();
        self.last_text = (!text.is_empty()).then_some(text);
        self
    }

    /// `next` becomes `reconcile` when any non-read-only call is `unknown`.
    pub fn apply_reconcile_rule(&mut self) {
        if self.tool_calls.iter().any(|c| c.state == ToolCallState::Unknown && !c.read_only) {
            self.next = NextStep::Reconcile;
        }
    }

    /// The status this outcome closes the turn with.
    #[must_use]
    pub fn status(&self) -> TurnStatus {
        self.reason.status()
    }
}

/// A call waiting for an external result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingToolCall {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// The call's input.
    pub input: Value,
    /// What the tool asked.
    pub prompt: String,
    /// Why.
    #[serde(default)]
    pub reason: SuspendReason,
    /// The tool's metadata.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// The call halts its batch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub halts_batch: bool,
}

impl PendingToolCall {
    /// A call waiting for `prompt` to be answered (reason: input required).
    #[must_use]
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        input: Value,
        prompt: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input,
            prompt: prompt.into(),
            reason: SuspendReason::InputRequired,
            metadata: Map::new(),
            halts_batch: false,
        }
    }

    /// Decodes the call's input.
    ///
    /// # Errors
    /// The serde error.
    pub fn decode_input<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_value(self.input.clone())
    }
}

/// A call of a suspended batch that already has its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompletedToolCall {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// The call's input.
    pub input: Value,
    /// The result.
    pub output: ToolOutput,
}

impl CompletedToolCall {
    /// A call that finished with `output`.
    #[must_use]
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value, output: ToolOutput) -> Self {
        Self { id: id.into(), name: name.into(), input, output }
    }
}

/// What a suspended turn waits for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SuspensionState {
    /// The suspended turn.
    pub turn_id: String,
    /// Calls waiting for results, in call order.
    pub pending: Vec<PendingToolCall>,
    /// Calls of the batch that finished.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub completed: Vec<CompletedToolCall>,
    /// The batch was halted by a failed halting call.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub batch_halted: bool,
    /// The turn's messages so far (input first).
    #[serde(default)]
    pub turn_messages: Vec<Message>,
    /// How many of `turn_messages` are the turn's input (the rest is its output).
    #[serde(default)]
    pub input_count: usize,
    /// Usage so far.
    #[serde(default)]
    pub usage: Usage,
}

impl SuspensionState {
    /// Whether any call still waits.
    #[must_use]
    pub fn is_waiting(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The pending call with this id.
    #[must_use]
    pub fn pending_call(&self, id: &str) -> Option<&PendingToolCall> {
        self.pending.iter().find(|p| p.id == id)
    }
}

/// How a turn started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum TurnOrigin {
    /// New input.
    Input,
    /// Delivered background results of an earlier turn.
    Background {
        /// The turn that started the tasks.
        from_turn_id: String,
    },
    /// Seeded by a session-start hook.
    SessionStart,
}

/// Whether the turn reached the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Persistence {
    /// No session: the caller keeps the turn.
    #[default]
    None,
    /// Saved.
    Saved,
    /// Saving failed; the error says why.
    Failed,
    /// A save timed out or failed in a way that may have landed.
    Unknown,
}

/// One turn: the unit a session stores and a response returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Turn {
    /// Record schema version.
    #[serde(default = "default_schema")]
    pub schema: u32,
    /// Turn id.
    pub id: String,
    /// How it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<TurnOrigin>,
    /// Status.
    pub status: TurnStatus,
    /// Messages of the turn, input first: what a stateless caller appends to its history.
    pub messages: Vec<Message>,
    /// Number of leading messages that were input.
    #[serde(default)]
    pub input_count: usize,
    /// Cumulative usage of every model call of the turn.
    #[serde(default)]
    pub usage: Usage,
    /// How it ended (absent while running).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<TurnOutcome>,
    /// What a suspended turn waits for (boxed: most turns never suspend, and every turn
    /// carries this field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspension: Option<Box<SuspensionState>>,
    /// Tool-call states while running (step checkpoints).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallRecord>,
    /// Session revision this record was written at.
    #[serde(default)]
    pub revision: u64,
    /// An incomplete turn followed by new input (derived on load).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub superseded: bool,
    /// Start time.
    pub created_at: Timestamp,
    /// Last change.
    pub updated_at: Timestamp,
    /// Whether it reached the store (not stored).
    #[serde(skip)]
    pub persistence: Persistence,
}

fn default_schema() -> u32 {
    TURN_SCHEMA_VERSION
}

impl Turn {
    /// A new running turn with its input.
    #[must_use]
    pub fn new(id: impl Into<String>, input: Vec<Message>) -> Self {
        Self::new_at(id, input, Timestamp::now())
    }

    /// A new running turn with its input, created at `now` (the engine's [`Clock`](crate::Clock)).
    #[must_use]
    pub fn new_at(id: impl Into<String>, input: Vec<Message>, now: Timestamp) -> Self {
        Self {
            schema: TURN_SCHEMA_VERSION,
            id: id.into(),
            origin: Some(TurnOrigin::Input),
            status: TurnStatus::Running,
            input_count: input.len(),
            messages: input,
            usage: Usage::default(),
            outcome: None,
            suspension: None,
            tool_calls: Vec::new(),
            revision: 0,
            superseded: false,
            created_at: now,
            updated_at: now,
            persistence: Persistence::None,
        }
    }

    /// A completed turn from messages (for seeding and tests).
    #[must_use]
    pub fn completed(id: impl Into<String>, messages: Vec<Message>) -> Self {
        Self::completed_at(id, messages, Timestamp::now())
    }

    /// A completed turn from messages, created at `now`.
    #[must_use]
    pub fn completed_at(id: impl Into<String>, messages: Vec<Message>, now: Timestamp) -> Self {
        let mut turn = Self::new_at(id, messages, now);
        turn.input_count = 0;
        turn.status = TurnStatus::Completed;
        turn.outcome = Some(TurnOutcome::completed(Vec::new()));
        turn
    }

    /// Closes the turn with an outcome, setting its status.
    pub fn close(&mut self, outcome: TurnOutcome) {
        self.close_at(outcome, Timestamp::now());
    }

    /// Closes the turn with an outcome at `now` (the engine's [`Clock`](crate::Clock)).
    pub fn close_at(&mut self, outcome: TurnOutcome, now: Timestamp) {
        self.status = outcome.status();
        self.outcome = Some(outcome);
        self.updated_at = now;
    }

    /// The input messages.
    #[must_use]
    pub fn input(&self) -> &[Message] {
        &self.messages[..self.input_count.min(self.messages.len())]
    }

    /// Messages produced by the turn (after its input).
    #[must_use]
    pub fn output(&self) -> &[Message] {
        &self.messages[self.input_count.min(self.messages.len())..]
    }

    /// Whether the turn is suspended.
    #[must_use]
    pub fn is_suspended(&self) -> bool {
        self.status == TurnStatus::Suspended
    }
}

/// Reads the latest turn outcome recorded in history (by the outcome reminder).
///
/// ```
/// use dive_core::{Message, OutcomeReason, TurnOutcome, find_turn_outcome, outcome_reminder};
/// let outcome = TurnOutcome::new(OutcomeReason::OutputLimit, vec![]);
/// let note = outcome_reminder(&outcome, "The previous turn did not finish.");
/// let history = vec![Message::user("hi"), note.into_message()];
/// assert_eq!(find_turn_outcome(&history), Some(outcome));
/// ```
#[must_use]
pub fn find_turn_outcome(messages: &[Message]) -> Option<TurnOutcome> {
    let reminder = find_latest_reminder(messages, OUTCOME_REMINDER_NAME)?;
    let details = reminder.details.as_ref()?;
    serde_json::from_value(details.get("outcome")?.clone()).ok()
}

/// The operator-tier reminder that records an incomplete turn's outcome in history: `text`
/// for the model (the engine words it), the structured outcome in its details, where
/// [`find_turn_outcome`] reads it back.
#[must_use]
pub fn outcome_reminder(outcome: &TurnOutcome, text: impl Into<String>) -> crate::reminder::Reminder {
    let mut details = Map::new();
    if let Ok(v) = serde_json::to_value(outcome) {
        details.insert("outcome".into(), v);
    }
    crate::reminder::Reminder {
        name: OUTCOME_REMINDER_NAME.to_owned(),
        tier: crate::reminder::ReminderTier::Operator,
        content: text.into(),
        details: Some(details),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_outcome_reason_names_itself_as_its_json_does() {
        let reasons = [
            OutcomeReason::Completed,
            OutcomeReason::Refused,
            OutcomeReason::Suspended,
            OutcomeReason::Canceled,
            OutcomeReason::Deadline,
            OutcomeReason::ProviderError,
            OutcomeReason::StreamInterrupted,
            OutcomeReason::HookAbort,
            OutcomeReason::CallbackError,
            OutcomeReason::Error,
            OutcomeReason::OutputLimit,
            OutcomeReason::ContextLimit,
            OutcomeReason::IterationLimit,
            OutcomeReason::ProviderStopped,
            OutcomeReason::Pause,
            OutcomeReason::ProcessExit,
            OutcomeReason::Other("from_a_newer_version".into()),
        ];
        for reason in reasons {
            assert_eq!(
                serde_json::to_value(&reason).unwrap(),
                serde_json::json!(reason.as_str()),
                "{reason:?}"
            );
        }
    }

    use super::*;

    #[test]
    fn reconcile_rule_respects_read_only() {
        let mut read = ToolCallRecord::new("a", "read", ToolCallState::Unknown);
        read.read_only = true;
        let o = TurnOutcome::new(OutcomeReason::Canceled, vec![read.clone()]);
        assert_eq!(o.next, NextStep::Input);
        let write = ToolCallRecord::new("b", "write", ToolCallState::Unknown);
        let o = TurnOutcome::new(OutcomeReason::Canceled, vec![read, write]);
        assert_eq!(o.next, NextStep::Reconcile);
    }

    #[test]
    fn table_of_reasons() {
        use OutcomeReason as R;
        for (r, next) in [
            (R::Canceled, NextStep::Input),
            (R::Deadline, NextStep::Continue),
            (R::ProviderError, NextStep::Continue),
            (R::StreamInterrupted, NextStep::Continue),
            (R::HookAbort, NextStep::Input),
            (R::CallbackError, NextStep::Continue),
            (R::Error, NextStep::Input),
            (R::OutputLimit, NextStep::Continue),
            (R::ContextLimit, NextStep::Input),
            (R::IterationLimit, NextStep::Continue),
            (R::ProviderStopped, NextStep::Continue),
            (R::Pause, NextStep::Continue),
            (R::ProcessExit, NextStep::Continue),
        ] {
            assert_eq!(r.default_next(), next, "{r:?}");
            assert_eq!(r.status(), TurnStatus::Incomplete);
        }
    }

    #[test]
    fn unknown_reason_round_trips() {
        let r: OutcomeReason = serde_json::from_str("\"from_the_future\"").unwrap();
        assert_eq!(r, OutcomeReason::Other("from_the_future".into()));
        assert_eq!(serde_json::to_string(&r).unwrap(), "\"from_the_future\"");
        let known: OutcomeReason = serde_json::from_str("\"output_limit\"").unwrap();
        assert_eq!(known, OutcomeReason::OutputLimit);
    }
}
