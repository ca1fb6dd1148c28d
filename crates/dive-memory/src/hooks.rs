//! [`MemoryHooks`]: the memory hooks — called after each short-term load and append and each
//! long-term retrieve and store, with how many messages, how long it took and the error, on
//! success and failure alike.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// What one memory operation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryEvent<'a> {
    /// Messages loaded, appended, retrieved or stored (0 when it failed, for loads and
    /// retrievals; what was attempted, for appends and stores).
    pub count: usize,
    /// How long it took.
    pub duration: Duration,
    /// Why it failed, if it did.
    pub error: Option<&'a str>,
}

impl<'a> MemoryEvent<'a> {
    /// An event.
    #[must_use]
    pub fn new(count: usize, duration: Duration, error: Option<&'a str>) -> Self {
        Self { count, duration, error }
    }
}

type Callback = Arc<dyn Fn(&MemoryEvent<'_>) + Send + Sync>;

/// The four memory hooks, each optional: short-term load and append, long-term retrieve and
/// store. Set on a [`MemoryExtension`](crate::MemoryExtension) or a
/// [`ShortTerm`](crate::ShortTerm).
///
/// ```
/// use dive_memory::MemoryHooks;
/// let hooks = MemoryHooks::new().on_long_term_retrieve(|e| {
///     println!("recalled {} in {:?} (error: {:?})", e.count, e.duration, e.error);
/// });
/// # drop(hooks);
/// ```
#[derive(Clone, Default)]
pub struct MemoryHooks {
    short_term_load: Option<Callback>,
    short_term_append: Option<Callback>,
    long_term_retrieve: Option<Callback>,
    long_term_store: Option<Callback>,
}

impl fmt::Debug for MemoryHooks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryHooks")
            .field("short_term_load", &self.short_term_load.is_some())
            .field("short_term_append", &self.short_term_append.is_some())
            .field("long_term_retrieve", &self.long_term_retrieve.is_some())
            .field("long_term_store", &self.long_term_store.is_some())
            .finish()
    }
}

impl MemoryHooks {
    /// No hooks.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// After the history is read through the window (the messages the model sees).
    #[must_use]
    pub fn on_short_term_load(mut self, f: impl Fn(&MemoryEvent<'_>) + Send + Sync + 'static) -> Self {
        self.short_term_load = Some(Arc::new(f));
        self
    }

    /// After messages are appended to a [`ShortTerm`](crate::ShortTerm) history.
    #[must_use]
    pub fn on_short_term_append(mut self, f: impl Fn(&MemoryEvent<'_>) + Send + Sync + 'static) -> Self {
        self.short_term_append = Some(Arc::new(f));
        self
    }

    /// After long-term memory is searched for the new input.
    #[must_use]
    pub fn on_long_term_retrieve(mut self, f: impl Fn(&MemoryEvent<'_>) + Send + Sync + 'static) -> Self {
        self.long_term_retrieve = Some(Arc::new(f));
        self
    }

    /// After what the write policy kept is stored (not called when it keeps nothing).
    #[must_use]
    pub fn on_long_term_store(mut self, f: impl Fn(&MemoryEvent<'_>) + Send + Sync + 'static) -> Self {
        self.long_term_store = Some(Arc::new(f));
        self
    }

    pub(crate) fn short_term_load(&self, event: &MemoryEvent<'_>) {
        if let Some(f) = &self.short_term_load {
            f(event);
        }
    }

    pub(crate) fn short_term_append(&self, event: &MemoryEvent<'_>) {
        if let Some(f) = &self.short_term_append {
            f(event);
        }
    }

    pub(crate) fn long_term_retrieve(&self, event: &MemoryEvent<'_>) {
        if let Some(f) = &self.long_term_retrieve {
            f(event);
        }
    }

    pub(crate) fn long_term_store(&self, event: &MemoryEvent<'_>) {
        if let Some(f) = &self.long_term_store {
            f(event);
        }
    }
}
