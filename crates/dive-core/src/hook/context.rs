//! The typed context each hook phase receives. Contexts are owned and cheap to clone, so a
//! hook may move them into `async move` blocks.

use serde_json::Value;

use crate::llm::{ModelResponse, Usage};
use crate::message::{Message, ToolUse};
use crate::reminder::{Reminder, ReminderDelivery};
use crate::response::{Response, ToolCallError};
use crate::run::RunInfo;
use crate::tool::{ToolAnnotations, ToolOutput, ToolPreview};
use crate::turn::{SuspensionState, Turn};

/// A reminder a hook queues, with how it is delivered.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct QueuedReminder {
    /// The reminder.
    pub reminder: Reminder,
    /// Recorded in history, or for the next model call only.
    pub delivery: ReminderDelivery,
}

impl QueuedReminder {
    /// A recorded reminder.
    #[must_use]
    pub fn recorded(reminder: Reminder) -> Self {
        Self { reminder, delivery: ReminderDelivery::Recorded }
    }

    /// A model-only reminder.
    #[must_use]
    pub fn model_only(reminder: Reminder) -> Self {
        Self { reminder, delivery: ReminderDelivery::ModelOnly }
    }
}

/// Context of a session-start hook: a fresh conversation is starting.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SessionStartContext {
    /// The run.
    pub run: RunInfo,
    /// Why (`startup`).
    pub source: String,
}

impl SessionStartContext {
    /// A context.
    #[must_use]
    pub fn new(run: RunInfo) -> Self {
        Self { run, source: "startup".into() }
    }
}

/// Context of pre-generation and pre-iteration hooks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GenerationContext {
    /// The run.
    pub run: RunInfo,
    /// Iteration about to run (0 for pre-generation).
    pub iteration: u32,
    /// The system prompt.
    pub system_prompt: String,
    /// The messages the model will see.
    pub messages: Vec<Message>,
}

impl GenerationContext {
    /// A context.
    #[must_use]
    pub fn new(run: RunInfo, iteration: u32, system_prompt: String, messages: Vec<Message>) -> Self {
        Self { run, iteration, system_prompt, messages }
    }
}

/// Context of a pre-tool-use hook.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolUseContext {
    /// The run.
    pub run: RunInfo,
    /// Iteration.
    pub iteration: u32,
    /// The call (input possibly rewritten by an earlier hook).
    pub call: ToolUse,
    /// The tool's annotations.
    pub annotations: ToolAnnotations,
    /// The call's preview.
    pub preview: Option<ToolPreview>,
}

impl ToolUseContext {
    /// A context.
    #[must_use]
    pub fn new(run: RunInfo, iteration: u32, call: ToolUse, annotations: ToolAnnotations) -> Self {
        Self { run, iteration, call, annotations, preview: None }
    }

    /// Sets the preview.
    #[must_use]
    pub fn with_preview(mut self, preview: Option<ToolPreview>) -> Self {
        self.preview = preview;
        self
    }
}

/// Context of post-tool-use, post-tool-use-failure and post-background-tool-use hooks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolResultContext {
    /// The run.
    pub run: RunInfo,
    /// The call.
    pub call: ToolUse,
    /// The output the model will see (possibly replaced by an earlier hook).
    pub output: ToolOutput,
    /// Why the call failed, for failures.
    pub error: Option<ToolCallError>,
    /// The background task id, for background results.
    pub task_id: Option<String>,
}

impl ToolResultContext {
    /// A context.
    #[must_use]
    pub fn new(run: RunInfo, call: ToolUse, output: ToolOutput) -> Self {
        Self { run, call, output, error: None, task_id: None }
    }

    /// Sets the error.
    #[must_use]
    pub fn with_error(mut self, error: Option<ToolCallError>) -> Self {
        self.error = error;
        self
    }

    /// Sets the task id.
    #[must_use]
    pub fn with_task_id(mut self, task_id: impl Into<String>) -> Self {
        self.task_id = Some(task_id.into());
        self
    }
}

/// Context of a stop hook: the model finished.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StopContext {
    /// The run.
    pub run: RunInfo,
    /// Iteration.
    pub iteration: u32,
    /// The final model response.
    pub response: ModelResponse,
    /// Messages the turn added so far.
    pub output_messages: Vec<Message>,
    /// A stop hook already continued this turn once or more.
    pub stop_hook_active: bool,
}

impl StopContext {
    /// A context.
    #[must_use]
    pub fn new(run: RunInfo, iteration: u32, response: ModelResponse, output_messages: Vec<Message>) -> Self {
        Self { run, iteration, response, output_messages, stop_hook_active: false }
    }

    /// Sets the active flag.
    #[must_use]
    pub fn with_stop_hook_active(mut self, active: bool) -> Self {
        self.stop_hook_active = active;
        self
    }
}

/// Context of post-generation hooks (completed and suspended turns).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PostGenerationContext {
    /// The run.
    pub run: RunInfo,
    /// The response so far.
    pub response: Response,
}

impl PostGenerationContext {
    /// A context.
    #[must_use]
    pub fn new(run: RunInfo, response: Response) -> Self {
        Self { run, response }
    }
}

/// Context of on-suspend hooks.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SuspendContext {
    /// The run.
    pub run: RunInfo,
    /// What the turn waits for.
    pub suspension: SuspensionState,
}

impl SuspendContext {
    /// A context.
    #[must_use]
    pub fn new(run: RunInfo, suspension: SuspensionState) -> Self {
        Self { run, suspension }
    }
}

/// Context of on-incomplete-turn hooks: the turn is closed, not yet saved.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct IncompleteTurnContext {
    /// The run.
    pub run: RunInfo,
    /// The closed turn (outcome set).
    pub turn: Turn,
    /// Its output, closed, without the outcome reminder.
    pub output_messages: Vec<Message>,
    /// Usage so far.
    pub usage: Usage,
}

impl IncompleteTurnContext {
    /// A context.
    #[must_use]
    pub fn new(run: RunInfo, turn: Turn, output_messages: Vec<Message>, usage: Usage) -> Self {
        Self { run, turn, output_messages, usage }
    }
}

/// JSON rewrite helper used by decisions.
pub(crate) type Input = Value;
