//! Read policies: what part of a stored history a model call sees. They run when history is
//! read, never when it is written, and cut only between tool groups (see [`groups`]).
//!
//! [`groups`]: crate::groups

use std::sync::Arc;

use dive_core::Message;

use crate::group::window_start;
use crate::tokens::{HeuristicEstimator, TokenEstimator};

/// Chooses the messages of a history a model call sees.
pub trait ReadPolicy: Send + Sync {
    /// The messages to send, in order.
    fn select(&self, messages: &[Message]) -> Vec<Message>;
}

impl<P: ReadPolicy + ?Sized> ReadPolicy for Arc<P> {
    fn select(&self, messages: &[Message]) -> Vec<Message> {
        (**self).select(messages)
    }
}

/// Everything, unchanged.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoWindow;

impl ReadPolicy for NoWindow {
    fn select(&self, messages: &[Message]) -> Vec<Message> {
        messages.to_vec()
    }
}

/// At most `n` messages: the newest whole tool groups that fit. When the newest group alone
/// holds more than `n` messages it is kept whole (a window never splits a call from its
/// results); `n == 0` keeps nothing.
///
/// ```
/// use dive_core::Message;
/// use dive_memory::{MessageWindow, ReadPolicy};
/// let history: Vec<_> = (0..5).map(|i| Message::user(format!("m{i}"))).collect();
/// let kept = MessageWindow::new(2).select(&history);
/// assert_eq!(kept.iter().map(|m| m.text()).collect::<Vec<_>>(), ["m3", "m4"]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MessageWindow {
    max: usize,
}

impl MessageWindow {
    /// A window of at most `max` messages.
    #[must_use]
    pub fn new(max: usize) -> Self {
        Self { max }
    }
}

impl ReadPolicy for MessageWindow {
    fn select(&self, messages: &[Message]) -> Vec<Message> {
        if self.max == 0 {
            return Vec::new();
        }
        let start = window_start(messages, true, |accepted, group| accepted.len() + group.len() <= self.max);
        messages[start..].to_vec()
    }
}

/// The newest whole tool groups whose estimated tokens fit `budget`, walking from the newest
/// and stopping at the first group that does not fit. The newest group is always kept, even
/// when it alone is over budget.
///
/// ```
/// use dive_core::Message;
/// use dive_memory::{ReadPolicy, TokenWindow};
/// let history = vec![Message::user("x".repeat(400)), Message::user("short"), Message::assistant("ok")];
/// // 104 tokens for the first message, 6 and 5 for the others.
/// assert_eq!(TokenWindow::new(50).select(&history).len(), 2);
/// assert_eq!(TokenWindow::new(200).select(&history).len(), 3);
/// ```
#[derive(Clone)]
pub struct TokenWindow {
    budget: usize,
    estimator: Arc<dyn TokenEstimator>,
}

impl std::fmt::Debug for TokenWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenWindow").field("budget", &self.budget).finish_non_exhaustive()
    }
}

impl TokenWindow {
    /// A window of `budget` tokens counted by the [`HeuristicEstimator`].
    #[must_use]
    pub fn new(budget: usize) -> Self {
        Self { budget, estimator: Arc::new(HeuristicEstimator) }
    }

    /// Counts tokens with another estimator (an exact tokenizer).
    #[must_use]
    pub fn with_estimator(mut self, estimator: impl TokenEstimator + 'static) -> Self {
        self.estimator = Arc::new(estimator);
        self
    }
}

impl ReadPolicy for TokenWindow {
    fn select(&self, messages: &[Message]) -> Vec<Message> {
        let mut used = 0usize;
        let start = window_start(messages, true, |_, group| {
            let cost: usize = messages[group.clone()].iter().map(|m| self.estimator.message_tokens(m)).sum();
            let fits = used + cost <= self.budget;
            // The newest group is kept even over budget, and counts.
            used += cost;
            fits
        });
        messages[start..].to_vec()
    }
}
