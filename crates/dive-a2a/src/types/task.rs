//! Tasks, their states, artifacts and the streamed updates.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::message::{Message, Part, join_text};
use super::wire_enum;

/// Where a task is in its life.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskState {
    /// `TASK_STATE_SUBMITTED`: received, not started.
    Submitted,
    /// `TASK_STATE_WORKING`: running.
    Working,
    /// `TASK_STATE_COMPLETED`: finished.
    Completed,
    /// `TASK_STATE_FAILED`: ended by an error.
    Failed,
    /// `TASK_STATE_CANCELED`: cancelled.
    Canceled,
    /// `TASK_STATE_INPUT_REQUIRED`: waiting for the client's answer.
    InputRequired,
    /// `TASK_STATE_REJECTED`: refused by the agent.
    Rejected,
    /// `TASK_STATE_AUTH_REQUIRED`: waiting for authorization.
    AuthRequired,
    /// `TASK_STATE_UNSPECIFIED`.
    Unspecified,
    /// A value from a newer protocol version, kept as sent.
    Other(String),
}

wire_enum!(TaskState {
    Submitted => "TASK_STATE_SUBMITTED",
    Working => "TASK_STATE_WORKING",
    Completed => "TASK_STATE_COMPLETED",
    Failed => "TASK_STATE_FAILED",
    Canceled => "TASK_STATE_CANCELED",
    InputRequired => "TASK_STATE_INPUT_REQUIRED",
    Rejected => "TASK_STATE_REJECTED",
    AuthRequired => "TASK_STATE_AUTH_REQUIRED",
    Unspecified => "TASK_STATE_UNSPECIFIED",
});

impl TaskState {
    /// Whether nothing more happens to a task in this state.
    #[must_use]
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Canceled | Self::Rejected)
    }

    /// Whether the task waits for the client (input or authorization).
    #[must_use]
    pub fn is_interrupted(&self) -> bool {
        matches!(self, Self::InputRequired | Self::AuthRequired)
    }
}

/// A task's state, with the agent's message about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskStatus {
    /// The state.
    pub state: TaskState,
    /// What the agent says about it (a question when input is required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When the state was entered (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
}

impl TaskStatus {
    /// A status entered now.
    #[must_use]
    pub fn now(state: TaskState, message: Option<Message>) -> Self {
        Self { state, message, timestamp: Some(dive_core::Timestamp::now().to_string()) }
    }
}

/// Something a task produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Artifact {
    /// Its id.
    pub artifact_id: String,
    /// Its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The content.
    #[serde(default)]
    pub parts: Vec<Part>,
    /// Artifact metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Extension URIs in use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
}

impl Artifact {
    /// A named artifact of these parts with a fresh id.
    #[must_use]
    pub fn new(name: impl Into<String>, parts: Vec<Part>) -> Self {
        Self {
            artifact_id: dive_core::new_id("artifact"),
            name: Some(name.into()),
            description: None,
            parts,
            metadata: None,
            extensions: Vec::new(),
        }
    }

    /// The text of every text part, joined by newlines.
    #[must_use]
    pub fn text(&self) -> String {
        join_text(&self.parts)
    }
}

/// A unit of work an agent does for a client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Task {
    /// Its id.
    pub id: String,
    /// The conversation it belongs to.
    #[serde(default)]
    pub context_id: String,
    /// Where it is.
    pub status: TaskStatus,
    /// What it produced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
    /// The messages exchanged, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Message>,
    /// Task metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl Task {
    /// A task in this state with no artifacts or history.
    #[must_use]
    pub fn new(id: impl Into<String>, context_id: impl Into<String>, status: TaskStatus) -> Self {
        Self {
            id: id.into(),
            context_id: context_id.into(),
            status,
            artifacts: Vec::new(),
            history: Vec::new(),
            metadata: None,
        }
    }

    /// The text of every artifact, joined by newlines; when there is none, the text of the
    /// status message.
    #[must_use]
    pub fn text(&self) -> String {
        if self.artifacts.is_empty() {
            return self.status.message.as_ref().map(Message::text).unwrap_or_default();
        }
        self.artifacts.iter().map(Artifact::text).collect::<Vec<_>>().join("\n")
    }
}

/// A streamed change of a task's status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskStatusUpdateEvent {
    /// The task.
    pub task_id: String,
    /// Its context.
    pub context_id: String,
    /// The new status.
    pub status: TaskStatus,
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// A streamed artifact (or a chunk of one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskArtifactUpdateEvent {
    /// The task.
    pub task_id: String,
    /// Its context.
    pub context_id: String,
    /// The artifact.
    pub artifact: Artifact,
    /// Appends to an artifact sent before with the same id.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub append: bool,
    /// The last chunk of the artifact.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub last_chunk: bool,
    /// Event metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}
