//! [`TodoTracker`] and [`TodoWriteTool`]: the model's task list (`TodoWrite` with
//! `todos[]`), which an application watches to render a checklist.

use std::sync::Arc;

use dive_core::{BoxFuture, Tool, ToolAnnotations, ToolContext, ToolError, ToolResult};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::watch;

/// Where a todo is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one at a time).
    InProgress,
    /// Done.
    Completed,
}

/// One item of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TodoItem {
    /// What to do, imperative (`Run the tests`).
    pub content: String,
    /// Where it is.
    pub status: TodoStatus,
    /// The same in the present continuous (`Running the tests`), shown while in progress.
    #[serde(rename = "activeForm", default)]
    pub active_form: String,
}

impl TodoItem {
    /// An item.
    #[must_use]
    pub fn new(content: impl Into<String>, status: TodoStatus) -> Self {
        Self { content: content.into(), status, active_form: String::new() }
    }
}

/// The current todo list; every `TodoWrite` replaces it and wakes every subscriber.
///
/// ```
/// use dive_subagent::{TodoItem, TodoStatus, TodoTracker};
/// let tracker = TodoTracker::new();
/// let mut events = tracker.subscribe();
/// tracker.set(vec![TodoItem::new("Run the tests", TodoStatus::InProgress)]);
/// assert!(events.has_changed().unwrap());
/// assert_eq!(events.borrow_and_update()[0].content, "Run the tests");
/// ```
#[derive(Debug, Clone)]
pub struct TodoTracker {
    tx: Arc<watch::Sender<Vec<TodoItem>>>,
}

impl Default for TodoTracker {
    fn default() -> Self {
        Self::new()
    }
}

impl TodoTracker {
    /// An empty list.
    #[must_use]
    pub fn new() -> Self {
        Self { tx: Arc::new(watch::Sender::new(Vec::new())) }
    }

    /// Replaces the list.
    pub fn set(&self, todos: Vec<TodoItem>) {
        self.tx.send_replace(todos);
    }

    /// The list now.
    #[must_use]
    pub fn todos(&self) -> Vec<TodoItem> {
        self.tx.borrow().clone()
    }

    /// A receiver that sees every change (`changed().await`, then `borrow_and_update()`).
    #[must_use]
    pub fn subscribe(&self) -> watch::Receiver<Vec<TodoItem>> {
        self.tx.subscribe()
    }
}

#[derive(Debug, Deserialize)]
struct Input {
    todos: Vec<TodoItem>,
}

/// The `TodoWrite` tool over a [`TodoTracker`].
///
/// ```
/// use dive_core::Tool;
/// use dive_subagent::{TodoTracker, TodoWriteTool};
/// let tool = TodoWriteTool::new(TodoTracker::new());
/// assert_eq!(tool.name(), "TodoWrite");
/// ```
#[derive(Debug, Clone)]
pub struct TodoWriteTool {
    tracker: TodoTracker,
    schema: Value,
    /// Read-only: the list lives in the tracker, nothing outside changes.
    annotations: ToolAnnotations,
}

impl TodoWriteTool {
    /// The tool over `tracker`.
    #[must_use]
    pub fn new(tracker: TodoTracker) -> Self {
        let schema = json!({
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "description": "The updated todo list",
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string", "minLength": 1},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                            "activeForm": {"type": "string", "minLength": 1}
                        },
                        "required": ["content", "status", "activeForm"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["todos"],
            "additionalProperties": false
        });
        Self { tracker, schema, annotations: ToolAnnotations::read_only() }
    }
}

impl Tool for TodoWriteTool {
    fn name(&self) -> &str {
        "TodoWrite"
    }

    fn description(&self) -> &str {
        "Creates and updates a structured task list for the current work: send the whole list each time, \
         with each item's status (pending, in_progress, completed). Keep exactly one item in_progress while \
         working, and mark items completed as soon as they are done."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }

    fn call(&self, input: Value, _ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let input: Input = match serde_json::from_value(input) {
                Ok(input) => input,
                Err(e) => return Ok(ToolResult::error(format!("Invalid TodoWrite input: {e}"))),
            };
            let active = input.todos.iter().filter(|t| t.status == TodoStatus::InProgress).count();
            let done = input.todos.iter().filter(|t| t.status == TodoStatus::Completed).count();
            let total = input.todos.len();
            self.tracker.set(input.todos);
            let mut text = format!("Todo list updated: {done} of {total} completed.");
            if active > 1 {
                text.push_str(" Note: more than one item is in_progress; keep one at a time.");
            }
            Ok(ToolResult::text(text))
        })
    }
}
