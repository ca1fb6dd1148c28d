//! What an agent invocation returns: [`Response`], the [`ResponseItem`]s streamed on the way,
//! [`ToolCallResult`]s and the [`ModelCallRecord`] of every model call.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::background::BackgroundTaskHandle;
use crate::llm::{ModelResponse, StopKind, StreamEvent, Usage};
use crate::message::{Message, Role, ToolUse};
use crate::time::Timestamp;
use crate::tool::{ToolOutput, ToolPreview, ToolProgress};
use crate::turn::{SuspensionState, Turn, TurnStatus};

/// Why a tool call has no ordinary result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolCallErrorKind {
    /// The tool returned an error.
    Failed,
    /// The tool returned an error fatal to the turn.
    Fatal,
    /// The tool panicked.
    Panicked,
    /// No tool has this name.
    UnknownTool,
    /// The input failed to decode or to match the schema.
    InvalidInput,
    /// A hook or permission denied the call.
    Denied,
    /// An earlier halting call failed, so this one was not run.
    BatchHalted,
    /// The turn ended before the call started.
    NotRun,
    /// The call started but its result is unknown.
    Unknown,
}

/// An error attached to a tool call result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCallError {
    /// Kind.
    pub kind: ToolCallErrorKind,
    /// Message.
    pub message: String,
}

impl ToolCallError {
    /// An error.
    #[must_use]
    pub fn new(kind: ToolCallErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCallResult {
    /// Call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Input as sent (after hook rewrites), shared with the call.
    pub input: crate::Input,
    /// The provider-defined toolset the call belonged to (the call's `toolset_name`), echoed
    /// on the `tool_result` sent back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolset_name: Option<String>,
    /// Preview computed before the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<ToolPreview>,
    /// The output sent to the model (absent when suspended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<ToolOutput>,
    /// Set when the call suspended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspended: Option<crate::tool::SuspendRequest>,
    /// Why the call has no ordinary result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolCallError>,
    /// Context hooks attached to the result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_context: Vec<String>,
    /// Set when the call continues in the background.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub background_task_id: Option<String>,
    /// Wall time of the call in milliseconds.
    #[serde(default)]
    pub duration_ms: u64,
    /// Model usage the call itself incurred (a subagent's model calls), included in the
    /// turn's usage.
    /// (Boxed: most calls have none.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<crate::Usage>>,
}

impl ToolCallResult {
    /// A result for a call; the output's [`usage`](ToolOutput::usage) moves to the result.
    #[must_use]
    pub fn new(call: &ToolUse, output: ToolOutput) -> Self {
        Self::from_call(call.clone(), output)
    }

    /// [`new`](Self::new) taking the call by value: its id, name and input move into the
    /// result instead of being copied.
    ///
    /// ```
    /// use dive_core::{ToolCallResult, ToolOutput, ToolUse};
    /// let call = ToolUse::new("c1", "add", serde_json::json!({"a": 1}));
    /// let result = ToolCallResult::from_call(call, ToolOutput::text("1"));
    /// assert_eq!((result.id.as_str(), result.input["a"].as_i64()), ("c1", Some(1)));
    /// ```
    #[must_use]
    pub fn from_call(call: ToolUse, mut output: ToolOutput) -> Self {
        let usage = output.usage.take();
        Self {
            id: call.id,
            name: call.name,
            input: call.input,
            toolset_name: call.toolset_name,
            preview: None,
            output: Some(output),
            suspended: None,
            error: None,
            additional_context: Vec::new(),
            background_task_id: None,
            duration_ms: 0,
            usage,
        }
    }

    /// Sets the error.
    #[must_use]
    pub fn with_error(mut self, error: ToolCallError) -> Self {
        self.error = Some(error);
        self
    }

    /// Whether the model saw an error.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.output.as_ref().is_some_and(|o| o.is_error)
    }
}

/// A record of one model call: what was asked, what served it, how it stopped, how long.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelCallRecord {
    /// Iteration (0-based) within the turn.
    pub iteration: u32,
    /// Provider name.
    pub provider: String,
    /// The model asked for.
    pub requested_model: String,
    /// The model that answered (from the response).
    pub served_model: String,
    /// Provider response id.
    #[serde(default)]
    pub response_id: String,
    /// Raw stop reason.
    #[serde(default)]
    pub stop_reason: String,
    /// Classified stop reason.
    pub stop_kind: StopKind,
    /// Usage of this call.
    pub usage: Usage,
    /// Streamed.
    pub streamed: bool,
    /// Total latency in milliseconds.
    pub latency_ms: u64,
    /// Time to the first stream event in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_to_first_event_ms: Option<u64>,
    /// Error text when the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ModelCallRecord {
    /// A record of a call to `requested_model` of `provider` in loop iteration `iteration`;
    /// the engine fills in the rest as the call ends.
    #[must_use]
    pub fn new(iteration: u32, provider: impl Into<String>, requested_model: impl Into<String>) -> Self {
        Self {
            iteration,
            provider: provider.into(),
            requested_model: requested_model.into(),
            served_model: String::new(),
            response_id: String::new(),
            stop_reason: String::new(),
            stop_kind: StopKind::Other,
            usage: Usage::default(),
            streamed: false,
            latency_ms: 0,
            time_to_first_event_ms: None,
            error: None,
        }
    }
}

/// Something that happened during an invocation, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ResponseItem {
    /// A complete assistant message, with that call's usage.
    Message {
        /// The message.
        message: Message,
        /// Usage of the call that produced it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
    },
    /// A raw model stream event.
    ModelEvent {
        /// The event.
        event: StreamEvent,
    },
    /// A tool call is about to run.
    ToolCall {
        /// The call.
        call: ToolUse,
        /// Its preview.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        preview: Option<ToolPreview>,
    },
    /// A tool call finished (or suspended, or was not run).
    ToolCallResult {
        /// The result (boxed: it is large, and items stream by the thousand).
        result: Box<ToolCallResult>,
    },
    /// Text streamed by a running tool.
    ToolStream {
        /// Call id.
        tool_call_id: String,
        /// Text.
        text: String,
    },
    /// Progress of a running tool.
    ToolProgress {
        /// Call id.
        tool_call_id: String,
        /// The snapshot.
        progress: ToolProgress,
    },
    /// The turn suspended.
    Suspended {
        /// What it waits for (boxed, as `result` above).
        suspension: Box<SuspensionState>,
    },
    /// The last item of every invocation past the turn boundary.
    TurnEnded {
        /// The turn.
        turn: Box<Turn>,
    },
    /// An item from an extension.
    Extension {
        /// Extension name.
        name: String,
        /// Payload.
        value: Value,
    },
}

/// The result of an agent invocation.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Response {
    /// The invocation id.
    pub id: String,
    /// The model of the last call.
    pub model: String,
    /// Every item, in order (without `turn_ended`).
    pub items: Vec<ResponseItem>,
    /// Messages this invocation added (assistant messages and tool results).
    pub output_messages: Vec<Message>,
    /// Usage of every model call of this invocation.
    pub usage: Usage,
    /// Start (before the first hook).
    pub created_at: Timestamp,
    /// End.
    pub finished_at: Timestamp,
    /// Status.
    pub status: TurnStatus,
    /// What a suspended turn waits for (boxed: most turns never suspend, and every response
    /// carries this field).
    pub suspension: Option<Box<SuspensionState>>,
    /// Background work started by tools.
    pub background_tasks: Vec<BackgroundTaskHandle>,
    /// Raw stop reason of the last model call.
    pub stop_reason: String,
    /// Stop details of the last model call.
    pub stop_details: Option<Value>,
    /// The turn.
    pub turn: Option<Turn>,
    /// Every model call.
    pub model_calls: Vec<ModelCallRecord>,
}

impl Response {
    /// An empty running response.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        Self::new_at(id, Timestamp::now())
    }

    /// An empty running response created at `now` (the engine's [`Clock`](crate::Clock)).
    #[must_use]
    pub fn new_at(id: impl Into<String>, now: Timestamp) -> Self {
        Self {
            id: id.into(),
            model: String::new(),
            items: Vec::new(),
            output_messages: Vec::new(),
            usage: Usage::default(),
            created_at: now,
            finished_at: now,
            status: TurnStatus::Running,
            suspension: None,
            background_tasks: Vec::new(),
            stop_reason: String::new(),
            stop_details: None,
            turn: None,
            model_calls: Vec::new(),
        }
    }

    /// The answer: all text of the final assistant message (see [`Message::answer_text`]).
    #[must_use]
    pub fn output_text(&self) -> String {
        self.output_messages
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(Message::answer_text)
            .unwrap_or_default()
    }

    /// The final assistant message.
    #[must_use]
    pub fn last_message(&self) -> Option<&Message> {
        self.output_messages.iter().rev().find(|m| m.role == Role::Assistant)
    }

    /// Every tool call result, in order.
    pub fn tool_call_results(&self) -> impl Iterator<Item = &ToolCallResult> {
        self.items.iter().filter_map(|i| match i {
            ResponseItem::ToolCallResult { result } => Some(&**result),
            _ => None,
        })
    }

    /// Decodes structured output from the answer text.
    ///
    /// # Errors
    /// The serde error when the answer is not the expected JSON.
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        match self.last_message() {
            Some(m) => m.decode_into(),
            None => serde_json::from_str(""),
        }
    }

    /// Whether the turn completed.
    #[must_use]
    pub fn is_completed(&self) -> bool {
        self.status == TurnStatus::Completed
    }
}

impl From<&ModelResponse> for ResponseItem {
    fn from(r: &ModelResponse) -> Self {
        ResponseItem::Message { message: r.to_message(), usage: Some(r.usage.clone()) }
    }
}
