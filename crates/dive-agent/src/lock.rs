//! The per-session lock: two invocations on one session id in this process run one after the
//! other, and a nested invocation on the same session from inside a turn (a tool calling the
//! agent again) fails fast instead of deadlocking.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use crate::error::AgentError;

static LOCKS: LazyLock<Mutex<HashMap<String, Weak<AsyncMutex<()>>>>> = LazyLock::new(Mutex::default);

tokio::task_local! {
    /// Session ids whose lock the current task holds.
    static HELD: Vec<String>;
}

/// Holds a session's lock until dropped.
#[derive(Debug)]
pub struct SessionLock {
    _guard: OwnedMutexGuard<()>,
    session_id: String,
}

impl SessionLock {
    /// The locked session id.
    #[must_use]
    pub fn session_id(&self) -> &str {
        &self.session_id
    }
}

fn mutex_for(session_id: &str) -> Arc<AsyncMutex<()>> {
    let mut map = LOCKS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(existing) = map.get(session_id).and_then(Weak::upgrade) {
        return existing;
    }
    map.retain(|_, weak| weak.strong_count() > 0);
    let fresh = Arc::new(AsyncMutex::new(()));
    map.insert(session_id.to_owned(), Arc::downgrade(&fresh));
    fresh
}

/// Whether the current task already holds this session's lock.
#[must_use]
pub(crate) fn held_by_current_task(session_id: &str) -> bool {
    HELD.try_with(|held| held.iter().any(|id| id == session_id)).unwrap_or(false)
}

/// Takes the in-process lock of a session, waiting for any running turn on it. Use it to
/// serialise your own changes to a session (import, rewind, cancelling a suspension) with
/// agent runs.
///
/// # Errors
/// [`AgentError::ReentrantSession`] when called from inside a turn that holds this session.
pub async fn lock_session(session_id: &str) -> Result<SessionLock, AgentError> {
    if held_by_current_task(session_id) {
        return Err(AgentError::ReentrantSession(session_id.to_owned()));
    }
    let guard = mutex_for(session_id).lock_owned().await;
    Ok(SessionLock { _guard: guard, session_id: session_id.to_owned() })
}

/// Runs `fut` with `session_id` marked as held by the current task, so nested invocations on
/// it fail fast.
pub(crate) async fn while_held<F: std::future::Future>(session_id: Option<&str>, fut: F) -> F::Output {
    let Some(id) = session_id else {
        return fut.await;
    };
    let mut held = HELD.try_with(Clone::clone).unwrap_or_default();
    held.push(id.to_owned());
    HELD.scope(held, fut).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn nested_lock_fails_fast_and_others_wait() {
        let lock = lock_session("s1").await.unwrap();
        let nested = while_held(Some("s1"), async { lock_session("s1").await.map(|_| ()) }).await;
        assert!(matches!(nested, Err(AgentError::ReentrantSession(id)) if id == "s1"));
        let waiter = tokio::spawn(async { lock_session("s1").await.map(|l| l.session_id().to_owned()) });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        drop(lock);
        assert_eq!(waiter.await.unwrap().unwrap(), "s1");
    }
}
