//! Serialising runs on one session: a run holds the lock its session hands out
//! ([`Session::run_lock`]), never one from a process-wide map keyed by id, so two stores that both
//! hold a session `chat` never block each other. A run on a busy session fails at once unless its
//! caller asked to wait (a bounded wait), so a run started from inside the run that holds its
//! session — even from a spawned task, which no task-local can follow — never deadlocks.

use std::sync::Arc;
use std::time::Duration;

use dive_core::{Session, SessionLock, SessionLockGuard};
use tokio_util::sync::CancellationToken;

use crate::error::{AgentError, Rejection};

tokio::task_local! {
    /// Identities of the sessions whose lock the current task holds.
    static HELD: Vec<usize>;
}

/// The identity of a session for the "held by this task" check: its lock, or, for a session
/// without one, the session object.
fn identity(session: &Arc<dyn Session>, lock: Option<&SessionLock>) -> usize {
    lock.map_or_else(|| Arc::as_ptr(session).cast::<()>() as usize, SessionLock::identity)
}

/// What a run holds on its session until it ends.
#[derive(Debug)]
pub(crate) struct Held {
    identity: usize,
    _guard: Option<SessionLockGuard>,
}

/// Takes the session's run lock. When another run holds it, fails at once with
/// [`Rejection::SessionBusy`], or with `wait` waits that long (or until `cancel` fires) first.
///
/// # Errors
/// [`AgentError::ReentrantSession`] when the current task's own turn holds this session;
/// [`Rejection::SessionBusy`] when another run holds it past the wait.
pub(crate) async fn acquire(
    session: &Arc<dyn Session>,
    cancel: Option<&CancellationToken>,
    wait: Option<Duration>,
) -> Result<Held, AgentError> {
    let lock = session.run_lock();
    let identity = identity(session, lock.as_ref());
    if HELD.try_with(|held| held.contains(&identity)).unwrap_or(false) {
        return Err(AgentError::ReentrantSession(session.id().to_owned()));
    }
    let Some(lock) = lock else { return Ok(Held { identity, _guard: None }) };
    let busy = || AgentError::Rejected(Rejection::SessionBusy(session.id().to_owned()));
    if let Some(guard) = lock.try_lock() {
        return Ok(Held { identity, _guard: Some(guard) });
    }
    let Some(wait) = wait else { return Err(busy()) };
    let cancelled = async {
        match cancel {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    };
    let guard = tokio::select! {
        guard = lock.lock() => guard,
        () = cancelled => return Err(busy()),
        () = tokio::time::sleep(wait) => return Err(busy()),
    };
    Ok(Held { identity, _guard: Some(guard) })
}

/// Runs `fut` with the held session marked as held by the current task, so nested invocations
/// on it fail fast.
///
/// A plain function returning either future, not an `async fn`: an `async fn` would keep
/// `fut` and the future awaiting it side by side, doubling the size of every turn's future.
pub(crate) fn while_held<F: std::future::Future>(
    held: Option<&Held>,
    fut: F,
) -> futures_util::future::Either<F, tokio::task::futures::TaskLocalFuture<Vec<usize>, F>> {
    let Some(held) = held else {
        return futures_util::future::Either::Left(fut);
    };
    let mut ids = HELD.try_with(Clone::clone).unwrap_or_default();
    ids.push(held.identity);
    futures_util::future::Either::Right(HELD.scope(ids, fut))
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive_core::{BoxFuture, SessionError, SessionSnapshot, Turn};

    struct Locked {
        id: &'static str,
        lock: SessionLock,
    }

    impl Session for Locked {
        fn id(&self) -> &str {
            self.id
        }
        fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
            Box::pin(async { Ok(SessionSnapshot::default()) })
        }
        fn save_turn<'a>(&'a self, _turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
            Box::pin(async { Ok(1) })
        }
        fn run_lock(&self) -> Option<SessionLock> {
            Some(self.lock.clone())
        }
    }

    fn session(id: &'static str, lock: &SessionLock) -> Arc<dyn Session> {
        Arc::new(Locked { id, lock: lock.clone() })
    }

    #[tokio::test]
    async fn nested_lock_fails_fast_busy_fails_at_once_and_a_wait_is_served() {
        let lock = SessionLock::new();
        let s1 = session("s1", &lock);
        let held = acquire(&s1, None, None).await.unwrap();
        let nested = while_held(Some(&held), async { acquire(&s1, None, None).await.map(|_| ()) }).await;
        assert!(matches!(nested, Err(AgentError::ReentrantSession(id)) if id == "s1"));
        let busy = acquire(&s1, None, None).await;
        assert!(matches!(busy, Err(AgentError::Rejected(Rejection::SessionBusy(id))) if id == "s1"));
        let other = Arc::clone(&s1);
        let waiter =
            tokio::spawn(
                async move { acquire(&other, None, Some(Duration::from_secs(60))).await.map(|_| ()) },
            );
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished(), "a caller that asked to wait waits");
        drop(held);
        waiter.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_waiter_gives_up_when_cancelled_or_timed_out() {
        let lock = SessionLock::new();
        let s1 = session("s1", &lock);
        let _held = acquire(&s1, None, None).await.unwrap();
        let token = CancellationToken::new();
        token.cancel();
        let cancelled = acquire(&s1, Some(&token), Some(Duration::from_secs(60))).await;
        assert!(matches!(cancelled, Err(AgentError::Rejected(Rejection::SessionBusy(id))) if id == "s1"));
        let timed_out = acquire(&s1, None, Some(Duration::from_millis(5))).await;
        assert!(matches!(timed_out, Err(AgentError::Rejected(Rejection::SessionBusy(_)))));
    }
}
