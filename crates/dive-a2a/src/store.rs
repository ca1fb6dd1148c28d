//! Tasks kept in a session store: one session a task (the session id is the task id), the
//! agent's turns in the session and the A2A task record in the session's metadata, so a
//! server restarted on the same store finds every task.

use std::sync::Arc;

use dive_core::{ListOptions, Session, SessionEdit, SessionError, SessionStore};
use serde_json::{Map, Value};

use crate::types::Task;

/// The metadata key of the task record.
pub(crate) const TASK_KEY: &str = "a2a.task";

/// A task store over a session store.
#[derive(Clone)]
pub(crate) struct TaskStore {
    sessions: Arc<dyn SessionStore>,
}

impl TaskStore {
    /// Refuses a store whose sessions cannot keep metadata.
    pub(crate) fn new(sessions: Arc<dyn SessionStore>) -> Result<Self, String> {
        if !sessions.capabilities().history {
            return Err("the session store cannot keep session metadata (its sessions offer no \
                        history interface); use MemoryStore, FileStore or SqliteStore"
                .into());
        }
        Ok(Self { sessions })
    }

    /// The task's session (created when absent).
    pub(crate) async fn session(&self, id: &str) -> Result<Arc<dyn Session>, SessionError> {
        self.sessions.open(id).await
    }

    /// The task, when one with this id was stored.
    pub(crate) async fn get(&self, id: &str) -> Result<Option<(Task, Arc<dyn Session>)>, SessionError> {
        if dive_core::validate_session_id(id).is_err() {
            return Ok(None);
        }
        let session = self.sessions.open(id).await?;
        let Some(history) = session.as_history() else { return Ok(None) };
        let document = history.document().await?;
        let task = document.info.metadata.get(TASK_KEY).and_then(|v| serde_json::from_value(v.clone()).ok());
        Ok(task.map(|t| (t, session)))
    }

    /// Stores the task record in its session, keeping the session's other metadata.
    pub(crate) async fn put(&self, session: &dyn Session, task: &Task) -> Result<(), SessionError> {
        let history = session
            .as_history()
            .ok_or_else(|| SessionError::Rejected("the session cannot keep metadata".into()))?;
        let mut metadata: Map<String, Value> = history.document().await?.info.metadata;
        let record = serde_json::to_value(task).map_err(|e| SessionError::Rejected(e.to_string()))?;
        metadata.insert(TASK_KEY.into(), record);
        history.edit(None, &SessionEdit::SetMetadata(metadata)).await?;
        Ok(())
    }

    /// Every stored task, most recently updated first.
    pub(crate) async fn all(&self) -> Result<Vec<Task>, SessionError> {
        let page = self.sessions.list(&ListOptions::all()).await?;
        Ok(page
            .sessions
            .into_iter()
            .filter_map(|info| {
                info.metadata.get(TASK_KEY).and_then(|v| serde_json::from_value(v.clone()).ok())
            })
            .collect())
    }
}
