//! [`BackgroundTaskHandle`]: a cloneable handle to a tool's background work, awaitable from
//! any runtime (no runtime dependency in the core).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use crate::tool::ToolOutput;

#[derive(Default)]
struct Slot {
    output: Option<ToolOutput>,
    wakers: Vec<Waker>,
}

/// A handle to background work started by a tool (returned in `Response::background_tasks`).
///
/// Clone it freely; every clone sees the same result.
#[derive(Clone)]
pub struct BackgroundTaskHandle {
    /// Task id (told to the model).
    pub task_id: String,
    /// The `tool_use` id of the call that started it.
    pub tool_use_id: String,
    /// Tool name.
    pub tool_name: String,
    /// The turn that started it.
    pub turn_id: Option<String>,
    /// What it does.
    pub description: String,
    slot: Arc<Mutex<Slot>>,
}

impl std::fmt::Debug for BackgroundTaskHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackgroundTaskHandle")
            .field("task_id", &self.task_id)
            .field("tool_use_id", &self.tool_use_id)
            .field("description", &self.description)
            .field("done", &self.is_done())
            .finish()
    }
}

/// The writing side of a [`BackgroundTaskHandle`], held by whoever runs the work.
#[derive(Debug)]
pub struct BackgroundTaskCompleter {
    handle: BackgroundTaskHandle,
}

impl BackgroundTaskHandle {
    /// A handle and the completer that fills it.
    #[must_use]
    pub fn new(
        task_id: impl Into<String>,
        tool_use_id: impl Into<String>,
        tool_name: impl Into<String>,
        description: impl Into<String>,
    ) -> (Self, BackgroundTaskCompleter) {
        let handle = Self {
            task_id: task_id.into(),
            tool_use_id: tool_use_id.into(),
            tool_name: tool_name.into(),
            turn_id: None,
            description: description.into(),
            slot: Arc::new(Mutex::new(Slot::default())),
        };
        (handle.clone(), BackgroundTaskCompleter { handle })
    }

    /// Sets the turn id.
    #[must_use]
    pub fn with_turn_id(mut self, turn_id: impl Into<String>) -> Self {
        self.turn_id = Some(turn_id.into());
        self
    }

    /// Whether the result is in.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner).output.is_some()
    }

    /// The result, if in.
    #[must_use]
    pub fn try_result(&self) -> Option<ToolOutput> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner).output.clone()
    }

    /// Waits for the result.
    pub fn wait(&self) -> impl Future<Output = ToolOutput> + Send + 'static {
        Wait { slot: Arc::clone(&self.slot) }
    }
}

impl BackgroundTaskCompleter {
    /// Delivers the result and wakes every waiter.
    pub fn complete(self, output: ToolOutput) {
        let wakers = {
            let mut slot = self.handle.slot.lock().unwrap_or_else(PoisonError::into_inner);
            slot.output = Some(output);
            std::mem::take(&mut slot.wakers)
        };
        for w in wakers {
            w.wake();
        }
    }
}

struct Wait {
    slot: Arc<Mutex<Slot>>,
}

impl Future for Wait {
    type Output = ToolOutput;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolOutput> {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        match &slot.output {
            Some(output) => Poll::Ready(output.clone()),
            None => {
                if !slot.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    slot.wakers.push(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiters_see_the_result() {
        let (handle, done) = BackgroundTaskHandle::new("t1", "c1", "build", "build the project");
        let clone = handle.clone();
        assert!(!handle.is_done());
        let waiter = std::thread::spawn(move || futures::executor::block_on(clone.wait()));
        done.complete(ToolOutput::text("ok"));
        assert_eq!(waiter.join().unwrap().text_content(), "ok");
        assert_eq!(handle.try_result().unwrap().text_content(), "ok");
    }
}
