//! Compaction in the engine: [`CompactionPolicy`] (a [`CompactionStrategy`] and when to apply it,
//! set with [`AgentBuilder::compaction`](crate::AgentBuilder::compaction)) and [`Summarize`],
//! the strategy that asks a model for a summary. The pure strategies
//! ([`ClearToolResults`](dive_core::ClearToolResults), [`Trim`](dive_core::Trim)) and the
//! trait are in `dive-core`.
//!
//! The engine compacts the working set (what the next request carries) before a model call
//! when the estimated context passes a share of the context window, and once more, then
//! retries the call, when a call fails with
//! [`LlmErrorKind::ContextOverflow`](dive_core::LlmErrorKind::ContextOverflow). The turn
//! record keeps every original message; with a session that has a history, the compacted
//! window is recorded as a [`Compaction`](dive_core::Compaction) after the turn is saved, so
//! the next turn starts from it while the full transcript keeps everything.

pub(crate) mod hooks;
mod native;
mod summarize;

use std::sync::Arc;

use dive_core::{CarryOver, CompactionStrategy, Message, safe_cuts};

pub use native::{Auto, Native};
pub use summarize::{DEFAULT_SUMMARY_PROMPT, SUMMARY_PREFIX, Summarize};

/// The default share of the context window at which the engine compacts.
pub const DEFAULT_COMPACTION_THRESHOLD: f64 = 0.8;

/// A compaction strategy and when the engine applies it.
///
/// ```
/// use dive_agent::{Agent, CompactionPolicy};
/// use dive_core::ClearToolResults;
/// use dive_test::TestModel;
/// let agent = Agent::builder()
///     .model(TestModel::new())
///     .compaction(CompactionPolicy::new(ClearToolResults::new(3)).threshold(0.7).context_limit(100_000))
///     .build()
///     .unwrap();
/// # let _ = agent;
/// ```
#[derive(Clone)]
#[must_use]
pub struct CompactionPolicy {
    pub(crate) strategy: Arc<dyn CompactionStrategy>,
    pub(crate) threshold: f64,
    pub(crate) context_limit: Option<u64>,
    pub(crate) carry_over: Vec<CarryOver>,
    pub(crate) retry_on_overflow: bool,
}

impl std::fmt::Debug for CompactionPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompactionPolicy")
            .field("strategy", &self.strategy.name())
            .field("threshold", &self.threshold)
            .field("context_limit", &self.context_limit)
            .field("carry_over", &self.carry_over.len())
            .field("retry_on_overflow", &self.retry_on_overflow)
            .finish()
    }
}

impl CompactionPolicy {
    /// Applies `strategy` at [`DEFAULT_COMPACTION_THRESHOLD`] of the model's context window,
    /// and on a context overflow.
    pub fn new(strategy: impl CompactionStrategy + 'static) -> Self {
        Self {
            strategy: Arc::new(strategy),
            threshold: DEFAULT_COMPACTION_THRESHOLD,
            context_limit: None,
            carry_over: Vec::new(),
            retry_on_overflow: true,
        }
    }

    /// The share of the context window (0 to 1) past which the engine compacts before a call.
    pub fn threshold(mut self, share: f64) -> Self {
        self.threshold = share.clamp(0.0, 1.0);
        self
    }

    /// The context window to assume when the model does not report one
    /// ([`Llm::model_info`](dive_core::Llm::model_info)). Without either, the engine compacts
    /// only on a context overflow.
    pub fn context_limit(mut self, tokens: u64) -> Self {
        self.context_limit = Some(tokens);
        self
    }

    /// Content to keep word for word across a compaction: given the messages before, the
    /// message to put back after when the compaction lost it (`dive_skill::carry_over` keeps
    /// loaded skills).
    pub fn keep(mut self, carry: impl Fn(&[Message]) -> Option<Message> + Send + Sync + 'static) -> Self {
        self.carry_over.push(Arc::new(carry));
        self
    }

    /// Whether a call that fails with a context overflow is compacted and retried once
    /// (default: yes).
    pub fn retry_on_overflow(mut self, retry: bool) -> Self {
        self.retry_on_overflow = retry;
        self
    }

    /// The context window compaction measures against: `model`'s, else
    /// [`context_limit`](Self::context_limit)'s; `None` when neither is known.
    pub(crate) fn context_window(&self, model: &dyn dive_core::Llm) -> Option<u64> {
        model.model_info().map(|i| i.context_window).filter(|w| *w > 0).or(self.context_limit)
    }

    /// The strategy.
    #[must_use]
    pub fn strategy(&self) -> &Arc<dyn CompactionStrategy> {
        &self.strategy
    }

    /// Compacts `request.messages` with the strategy and puts back what the carry-overs keep:
    /// what the engine does, for an application's own `/compact` (then recorded with
    /// [`SessionEdit::Compact`](dive_core::SessionEdit::Compact)). Hooks do not run here;
    /// [`Agent::compact_session`](crate::Agent::compact_session) runs them, and records it.
    ///
    /// # Errors
    /// The strategy's [`CompactionError`](dive_core::CompactionError).
    pub async fn apply(
        &self,
        request: &dive_core::CompactionRequest,
    ) -> Result<Option<dive_core::CompactedWindow>, dive_core::CompactionError> {
        Ok(self.strategy.compact(request).await?.map(|mut window| {
            window.messages = self.carry(&request.messages, std::mem::take(&mut window.messages));
            window
        }))
    }

    /// Puts back what a carry-over keeps and `compacted` lost, before the compacted messages.
    fn carry(&self, before: &[Message], compacted: Vec<Message>) -> Vec<Message> {
        let kept: Vec<Message> = self
            .carry_over
            .iter()
            .filter_map(|carry| {
                let wanted = carry(before)?;
                (carry(&compacted).as_ref() != Some(&wanted)).then_some(wanted)
            })
            .collect();
        if kept.is_empty() {
            return compacted;
        }
        dive_core::join_messages(kept, compacted)
    }
}

/// Where the compacted part of `messages` ends: the latest safe cut that keeps at least the
/// newest `keep_recent` messages out, or `None` when there is none.
pub(crate) fn oldest_cut(messages: &[Message], keep_recent: usize) -> Option<usize> {
    let latest = messages.len().saturating_sub(keep_recent);
    safe_cuts(messages).into_iter().filter(|&c| c > 0 && c <= latest).max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive_core::Trim;

    fn keep_rules(messages: &[Message]) -> Option<Message> {
        messages.iter().any(|m| m.text().contains("RULES")).then(|| Message::user("RULES"))
    }

    #[test]
    fn carry_over_is_put_back_only_when_lost() {
        let policy = CompactionPolicy::new(Trim::new(1)).keep(keep_rules);
        let before = vec![Message::user("RULES"), Message::assistant("ok"), Message::user("next")];
        let lost = policy.carry(&before, vec![Message::user("next")]);
        assert_eq!(lost.len(), 1);
        assert_eq!(lost[0].text(), "RULES\nnext");
        let kept = policy.carry(&before, before.clone());
        assert_eq!(kept, before);
    }
}
