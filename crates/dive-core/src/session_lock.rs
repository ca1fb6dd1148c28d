//! [`SessionLock`]: the lock a run holds on its session, owned by the session (or its store),
//! never by a process-wide map, so two stores that both hold a session `chat` never block each
//! other.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll, Waker};

#[derive(Debug, Default)]
struct State {
    held: bool,
    waiters: Vec<Waker>,
}

/// An asynchronous lock that serialises runs on one session. Clones share one lock. A session
/// hands it out from [`Session::run_lock`](crate::Session::run_lock); a store that opens several
/// objects for one id gives them all the same lock (see [`SessionLocks`]).
///
/// ```
/// # futures::executor::block_on(async {
/// use dive_core::SessionLock;
/// let lock = SessionLock::new();
/// let guard = lock.lock().await;
/// assert!(lock.try_lock().is_none(), "held until the guard is dropped");
/// drop(guard);
/// assert!(lock.try_lock().is_some());
/// # });
/// ```
#[derive(Debug, Clone, Default)]
pub struct SessionLock {
    state: Arc<Mutex<State>>,
}

impl SessionLock {
    /// A new, free lock.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes the lock if it is free.
    #[must_use]
    pub fn try_lock(&self) -> Option<SessionLockGuard> {
        let mut state = self.state();
        if state.held {
            return None;
        }
        state.held = true;
        Some(SessionLockGuard { state: Arc::clone(&self.state) })
    }

    /// Waits for the lock. Dropping the future gives up waiting.
    pub fn lock(&self) -> impl Future<Output = SessionLockGuard> + Send + 'static {
        Acquire { lock: self.clone() }
    }

    /// Whether two handles are the same lock.
    #[must_use]
    pub fn same_lock(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }

    /// A stable identity of this lock while it is alive (for "held by this task" checks).
    #[must_use]
    pub fn identity(&self) -> usize {
        Arc::as_ptr(&self.state) as usize
    }
}

struct Acquire {
    lock: SessionLock,
}

impl Future for Acquire {
    type Output = SessionLockGuard;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<SessionLockGuard> {
        let mut state = self.lock.state();
        if state.held {
            if !state.waiters.iter().any(|w| w.will_wake(cx.waker())) {
                state.waiters.push(cx.waker().clone());
            }
            return Poll::Pending;
        }
        state.held = true;
        Poll::Ready(SessionLockGuard { state: Arc::clone(&self.lock.state) })
    }
}

/// Holds a [`SessionLock`] until dropped.
#[derive(Debug)]
pub struct SessionLockGuard {
    state: Arc<Mutex<State>>,
}

impl Drop for SessionLockGuard {
    fn drop(&mut self) {
        let waiters = {
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            state.held = false;
            std::mem::take(&mut state.waiters)
        };
        // Every waiter polls again; the first to run takes the lock, the others wait anew.
        for waker in waiters {
            waker.wake();
        }
    }
}

/// The locks of one store's sessions, by id: every object the store opens for an id shares
/// that id's lock, and no other store sees it. A lock lives while a session object holds it.
#[derive(Debug, Default)]
pub struct SessionLocks {
    by_id: Mutex<HashMap<String, Weak<Mutex<State>>>>,
}

impl SessionLocks {
    /// An empty set of locks.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The lock of session `id` in this store.
    #[must_use]
    pub fn lock_for(&self, id: &str) -> SessionLock {
        let mut map = self.by_id.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(state) = map.get(id).and_then(Weak::upgrade) {
            return SessionLock { state };
        }
        map.retain(|_, weak| weak.strong_count() > 0);
        let lock = SessionLock::new();
        map.insert(id.to_owned(), Arc::downgrade(&lock.state));
        lock
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    #[test]
    fn a_waiter_gets_the_lock_when_the_holder_drops_it() {
        let lock = SessionLock::new();
        let guard = lock.try_lock().unwrap();
        let mut pool = futures::executor::LocalPool::new();
        let got = Arc::new(Mutex::new(false));
        let (l, g) = (lock.clone(), Arc::clone(&got));
        futures::task::LocalSpawnExt::spawn_local(&pool.spawner(), async move {
            let _guard = l.lock().await;
            *g.lock().unwrap() = true;
        })
        .unwrap();
        pool.run_until_stalled();
        assert!(!*got.lock().unwrap(), "waits while held");
        drop(guard);
        pool.run_until_stalled();
        assert!(*got.lock().unwrap(), "woken when released");
        assert!(block_on(async { lock.try_lock() }).is_some(), "released again after the waiter");
    }

    #[test]
    fn one_store_shares_a_lock_per_id_and_two_stores_do_not() {
        let (a, b) = (SessionLocks::new(), SessionLocks::new());
        let first = a.lock_for("chat");
        assert!(first.same_lock(&a.lock_for("chat")));
        assert!(!first.same_lock(&a.lock_for("other")));
        assert!(!first.same_lock(&b.lock_for("chat")));
        let _held = first.try_lock().unwrap();
        assert!(b.lock_for("chat").try_lock().is_some(), "another store's chat is not blocked");
        assert!(a.lock_for("chat").try_lock().is_none());
    }
}
