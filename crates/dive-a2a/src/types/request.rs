//! The requests and responses of the A2A operations.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::message::Message;
use super::task::{Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent};

/// How a `SendMessage` is handled.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SendMessageConfiguration {
    /// Media types the client accepts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accepted_output_modes: Vec<String>,
    /// Push notification settings (not supported by our server; kept as sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_push_notification_config: Option<Value>,
    /// How many history messages to return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
    /// Return at once with the task in its current state instead of waiting for it to end
    /// or to need input (the 1.0 name for a non-blocking send).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub return_immediately: bool,
}

/// `SendMessage` and `SendStreamingMessage` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SendMessageRequest {
    /// The tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The message.
    pub message: Message,
    /// How to handle it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<SendMessageConfiguration>,
    /// Request metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl SendMessageRequest {
    /// A request for this message.
    #[must_use]
    pub fn new(message: Message) -> Self {
        Self { tenant: None, message, configuration: None, metadata: None }
    }

    /// Asks the server to return at once (non-blocking).
    #[must_use]
    pub fn returning_immediately(mut self) -> Self {
        self.configuration.get_or_insert_with(Default::default).return_immediately = true;
        self
    }
}

/// What `SendMessage` returns: a task, or a direct message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum SendMessageResponse {
    /// A task.
    Task(Task),
    /// A message (no task).
    Message(Message),
}

/// One event of `SendStreamingMessage` or `SubscribeToTask`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum StreamResponse {
    /// The task, as it is.
    Task(Task),
    /// A direct message.
    Message(Message),
    /// A status change.
    StatusUpdate(TaskStatusUpdateEvent),
    /// An artifact.
    ArtifactUpdate(TaskArtifactUpdateEvent),
}

/// `GetTask` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetTaskRequest {
    /// The tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The task id.
    pub id: String,
    /// How many history messages to return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
}

impl GetTaskRequest {
    /// A request for this task.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        Self { tenant: None, id: id.into(), history_length: None }
    }
}

/// `ListTasks` parameters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListTasksRequest {
    /// The tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// Only tasks of this context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// Only tasks in this state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TaskState>,
    /// Page size (1–100; the server's default when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<i32>,
    /// The `nextPageToken` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_token: Option<String>,
    /// How many history messages to return a task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history_length: Option<i32>,
    /// Only tasks whose status changed after this time (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_timestamp_after: Option<String>,
    /// Include artifacts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_artifacts: Option<bool>,
}

impl ListTasksRequest {
    /// Every task, the server's page size.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Pages of `size` tasks.
    #[must_use]
    pub fn with_page_size(mut self, size: i32) -> Self {
        self.page_size = Some(size);
        self
    }

    /// The page after the one that returned this `nextPageToken`.
    #[must_use]
    pub fn with_page_token(mut self, token: impl Into<String>) -> Self {
        self.page_token = Some(token.into());
        self
    }

    /// Only tasks of this context.
    #[must_use]
    pub fn with_context_id(mut self, context_id: impl Into<String>) -> Self {
        self.context_id = Some(context_id.into());
        self
    }

    /// Only tasks in this state.
    #[must_use]
    pub fn with_status(mut self, state: TaskState) -> Self {
        self.status = Some(state);
        self
    }

    /// With their artifacts.
    #[must_use]
    pub fn with_artifacts(mut self) -> Self {
        self.include_artifacts = Some(true);
        self
    }
}

/// A page of `ListTasks`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListTasksResponse {
    /// The tasks, most recently updated first.
    #[serde(default)]
    pub tasks: Vec<Task>,
    /// The token of the next page; empty on the last one.
    #[serde(default)]
    pub next_page_token: String,
    /// The page size used.
    #[serde(default)]
    pub page_size: i32,
    /// Matching tasks in total.
    #[serde(default)]
    pub total_size: i32,
}

/// `CancelTask` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CancelTaskRequest {
    /// The tenant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The task id.
    pub id: String,
    /// Request metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

impl CancelTaskRequest {
    /// A request to cancel this task.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        Self { tenant: None, id: id.into(), metadata: None }
    }
}
