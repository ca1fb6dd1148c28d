//! [`ShortTerm`]: an in-memory conversation history with a read policy applied on read.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use dive_core::{BoxFuture, MemoryError, Message, ShortTermMemory};

use crate::hooks::{MemoryEvent, MemoryHooks};
use crate::window::{NoWindow, ReadPolicy};

/// A conversation history kept whole in memory; [`messages`](ShortTermMemory::messages)
/// applies the read policy, [`append`](ShortTermMemory::append) stores everything. For an
/// agent's history kept in a session store, use the policy through
/// [`MemoryExtension::with_window`](crate::MemoryExtension::with_window) instead.
///
/// ```
/// use dive_core::{Message, ShortTermMemory};
/// use dive_memory::{MessageWindow, ShortTerm};
/// # futures::executor::block_on(async {
/// let memory = ShortTerm::new().with_policy(MessageWindow::new(2));
/// memory.append(vec![Message::user("a"), Message::assistant("b"), Message::user("c")]).await.unwrap();
/// assert_eq!(memory.messages().await.unwrap().len(), 2);
/// assert_eq!(memory.stored().len(), 3); // nothing is dropped on write
/// # });
/// ```
#[derive(Clone)]
pub struct ShortTerm {
    messages: Arc<Mutex<Vec<Message>>>,
    policy: Arc<dyn ReadPolicy>,
    hooks: MemoryHooks,
}

impl std::fmt::Debug for ShortTerm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShortTerm").field("stored", &self.stored().len()).finish_non_exhaustive()
    }
}

impl Default for ShortTerm {
    fn default() -> Self {
        Self::new()
    }
}

impl ShortTerm {
    /// An empty history with no window.
    #[must_use]
    pub fn new() -> Self {
        Self { messages: Arc::default(), policy: Arc::new(NoWindow), hooks: MemoryHooks::new() }
    }

    /// Reads through this policy.
    #[must_use]
    pub fn with_policy(mut self, policy: impl ReadPolicy + 'static) -> Self {
        self.policy = Arc::new(policy);
        self
    }

    /// Calls these hooks after each load and append.
    #[must_use]
    pub fn with_hooks(mut self, hooks: MemoryHooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Everything stored, without the policy.
    #[must_use]
    pub fn stored(&self) -> Vec<Message> {
        self.messages.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

impl ShortTermMemory for ShortTerm {
    fn messages(&self) -> BoxFuture<'_, Result<Vec<Message>, MemoryError>> {
        let started = Instant::now();
        let selected = self.policy.select(&self.stored());
        self.hooks.short_term_load(&MemoryEvent::new(selected.len(), started.elapsed(), None));
        Box::pin(std::future::ready(Ok(selected)))
    }

    fn append(&self, messages: Vec<Message>) -> BoxFuture<'_, Result<(), MemoryError>> {
        let (started, count) = (Instant::now(), messages.len());
        self.messages.lock().unwrap_or_else(PoisonError::into_inner).extend(messages);
        self.hooks.short_term_append(&MemoryEvent::new(count, started.elapsed(), None));
        Box::pin(std::future::ready(Ok(())))
    }
}
