//! The compaction hook phases' contexts and decision: PreCompact (add custom instructions or
//! veto) and PostCompact (sees the size before and after).

use crate::compaction::CompactionTrigger;
use crate::run::RunInfo;

/// Context of a PreCompact hook: the engine is about to compact the working set.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PreCompactContext {
    /// The run.
    pub run: RunInfo,
    /// Why (`auto` before a call, `overflow` after a failed one, `manual`).
    pub trigger: CompactionTrigger,
    /// The strategy's name.
    pub strategy: String,
    /// Instructions already given (a `/compact` argument, an earlier hook's).
    pub instructions: Option<String>,
    /// The estimated size of the working set in tokens.
    pub estimated_tokens: u64,
    /// How many messages the working set holds.
    pub message_count: usize,
}

impl PreCompactContext {
    /// A context.
    #[must_use]
    pub fn new(run: RunInfo, trigger: CompactionTrigger, strategy: impl Into<String>) -> Self {
        Self {
            run,
            trigger,
            strategy: strategy.into(),
            instructions: None,
            estimated_tokens: 0,
            message_count: 0,
        }
    }
}

/// What a PreCompact hook decides.
///
/// ```
/// use dive_core::PreCompactDecision;
/// assert!(PreCompactDecision::proceed().veto.is_none());
/// assert_eq!(PreCompactDecision::instructions("keep file names").instructions.as_deref(), Some("keep file names"));
/// assert!(PreCompactDecision::veto("not now").veto.is_some());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PreCompactDecision {
    /// Custom instructions added to the ones already given.
    pub instructions: Option<String>,
    /// Skip this compaction, for this reason (an overflow then fails as it came).
    pub veto: Option<String>,
}

impl PreCompactDecision {
    /// Compact as planned.
    #[must_use]
    pub fn proceed() -> Self {
        Self::default()
    }

    /// Compact, with these instructions added.
    #[must_use]
    pub fn instructions(text: impl Into<String>) -> Self {
        Self { instructions: Some(text.into()), veto: None }
    }

    /// Do not compact.
    #[must_use]
    pub fn veto(reason: impl Into<String>) -> Self {
        Self { instructions: None, veto: Some(reason.into()) }
    }
}

/// Context of a PostCompact hook: the working set was compacted.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PostCompactContext {
    /// The run.
    pub run: RunInfo,
    /// Why it ran.
    pub trigger: CompactionTrigger,
    /// The strategy's name.
    pub strategy: String,
    /// Estimated tokens before.
    pub tokens_before: u64,
    /// Estimated tokens after.
    pub tokens_after: u64,
    /// Messages before.
    pub messages_before: usize,
    /// Messages after.
    pub messages_after: usize,
}

impl PostCompactContext {
    /// A context.
    #[must_use]
    pub fn new(run: RunInfo, trigger: CompactionTrigger, strategy: impl Into<String>) -> Self {
        Self {
            run,
            trigger,
            strategy: strategy.into(),
            tokens_before: 0,
            tokens_after: 0,
            messages_before: 0,
            messages_after: 0,
        }
    }
}
