//! [`NativeCompaction`]: what a provider's own compaction ([`Llm::compact`](super::Llm::compact))
//! gives back.

use super::usage::Usage;
use crate::message::Message;

/// The result of a provider-side compaction: the messages that stand in for the compacted
/// ones (typically one message holding the provider's signed or encrypted compaction block,
/// which later requests replay exactly as received), and what the compaction call cost.
///
/// ```
/// use dive_core::{Message, NativeCompaction, Usage};
/// let done = NativeCompaction::new(vec![Message::assistant("summary")]).with_usage(Usage::new(900, 40));
/// assert_eq!(done.messages.len(), 1);
/// assert_eq!(done.usage.output_tokens, 40);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct NativeCompaction {
    /// The messages that replace the compacted ones, in order.
    pub messages: Vec<Message>,
    /// The compaction call's usage (its cost priced when the catalog knows the model).
    pub usage: Usage,
}

impl NativeCompaction {
    /// A compaction that produced `messages`.
    #[must_use]
    pub fn new(messages: Vec<Message>) -> Self {
        Self { messages, usage: Usage::default() }
    }

    /// Sets the usage.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }
}
