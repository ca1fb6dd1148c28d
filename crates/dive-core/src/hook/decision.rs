//! Typed decisions returned by hooks, one per phase.

use crate::message::Message;
use crate::tool::ToolOutput;

use super::context::{Input, QueuedReminder};

/// What a session-start hook adds.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SessionStartDecision {
    /// Messages seeded before the input.
    pub messages: Vec<Message>,
    /// Save them as their own pre-turn record.
    pub persist: bool,
}

impl SessionStartDecision {
    /// Seed these messages.
    #[must_use]
    pub fn seed(messages: Vec<Message>) -> Self {
        Self { messages, persist: false }
    }

    /// Persist the seeded messages.
    #[must_use]
    pub fn persisted(mut self) -> Self {
        self.persist = true;
        self
    }
}

/// Edits a pre-generation or pre-iteration hook makes. Later hooks see earlier edits.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct GenerationEdit {
    /// Replace the system prompt.
    pub system_prompt: Option<String>,
    /// Replace the working messages (e.g. mid-turn compaction).
    pub messages: Option<Vec<Message>>,
    /// Reminders for the next model call.
    pub reminders: Vec<QueuedReminder>,
}

impl GenerationEdit {
    /// No change.
    #[must_use]
    pub fn unchanged() -> Self {
        Self::default()
    }

    /// Replace the system prompt.
    #[must_use]
    pub fn system_prompt(prompt: impl Into<String>) -> Self {
        Self { system_prompt: Some(prompt.into()), ..Self::default() }
    }

    /// Replace the messages.
    #[must_use]
    pub fn messages(messages: Vec<Message>) -> Self {
        Self { messages: Some(messages), ..Self::default() }
    }

    /// Adds a reminder.
    #[must_use]
    pub fn with_reminder(mut self, reminder: QueuedReminder) -> Self {
        self.reminders.push(reminder);
        self
    }
}

/// Allow or deny a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Verdict {
    /// Run it.
    #[default]
    Allow,
    /// Do not run it; the reason goes to the model as an error result.
    Deny(String),
}

/// What a pre-tool-use hook decides.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct PreToolUseDecision {
    /// Allow or deny. Every hook runs; the first denial wins.
    pub verdict: Verdict,
    /// Replace the input (the last writer wins).
    pub updated_input: Option<Input>,
    /// Context appended to the result for the model.
    pub additional_context: Option<String>,
    /// Reminders delivered with this call's result.
    pub reminders: Vec<QueuedReminder>,
}

impl PreToolUseDecision {
    /// Allow.
    #[must_use]
    pub fn allow() -> Self {
        Self::default()
    }

    /// Deny with a reason the model reads.
    #[must_use]
    pub fn deny(reason: impl Into<String>) -> Self {
        Self { verdict: Verdict::Deny(reason.into()), ..Self::default() }
    }

    /// Allow with rewritten input.
    #[must_use]
    pub fn rewrite(input: Input) -> Self {
        Self { updated_input: Some(input), ..Self::default() }
    }

    /// Adds context for the model.
    #[must_use]
    pub fn with_context(mut self, context: impl Into<String>) -> Self {
        self.additional_context = Some(context.into());
        self
    }

    /// Adds a reminder.
    #[must_use]
    pub fn with_reminder(mut self, reminder: QueuedReminder) -> Self {
        self.reminders.push(reminder);
        self
    }
}

/// What a post-tool-use (or failure) hook decides.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct PostToolUseDecision {
    /// Replace the output the model sees.
    pub replace_output: Option<ToolOutput>,
    /// Context appended for the model.
    pub additional_context: Option<String>,
    /// Reminders delivered with this result.
    pub reminders: Vec<QueuedReminder>,
}

impl PostToolUseDecision {
    /// Keep the output.
    #[must_use]
    pub fn keep() -> Self {
        Self::default()
    }

    /// Replace the output.
    #[must_use]
    pub fn replace(output: ToolOutput) -> Self {
        Self { replace_output: Some(output), ..Self::default() }
    }

    /// Adds context.
    #[must_use]
    pub fn with_context(mut self, context: impl Into<String>) -> Self {
        self.additional_context = Some(context.into());
        self
    }
}

/// What a stop hook decides.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum StopDecision {
    /// Let the turn finish.
    #[default]
    Stop,
    /// Keep going: the reason is given to the model as a recorded `stop-continuation`
    /// reminder and the loop runs again.
    Continue {
        /// What the model should do.
        reason: String,
    },
}

impl StopDecision {
    /// Keep going.
    #[must_use]
    pub fn continue_with(reason: impl Into<String>) -> Self {
        Self::Continue { reason: reason.into() }
    }
}

/// What an on-incomplete-turn hook decides.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct IncompleteTurnDecision {
    /// Drop the turn instead of saving it.
    pub discard: bool,
    /// Replace the closed output messages.
    pub output_messages: Option<Vec<Message>>,
    /// Replace the outcome's error text.
    pub error: Option<String>,
    /// Recorded reminders placed before the outcome reminder.
    pub reminders: Vec<QueuedReminder>,
}

impl IncompleteTurnDecision {
    /// Keep and save the turn as closed.
    #[must_use]
    pub fn keep() -> Self {
        Self::default()
    }

    /// Discard the turn.
    #[must_use]
    pub fn discard() -> Self {
        Self { discard: true, ..Self::default() }
    }
}
