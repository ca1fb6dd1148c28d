//! Compaction in the loop: before a model call when the estimated context passes the
//! configured share of the window, and once on a context overflow (then the call is retried);
//! after the turn is saved, the compacted window is recorded in the session's history.
//! Without a [`Compaction`](crate::CompactionPolicy) configured none of this runs: one `Option`
//! check a call.

use std::sync::Arc;

use dive_core::{
    CompactionRequest, CompactionTrigger, ContextSize, LlmErrorKind, ModelResponse, PostCompactContext,
    SessionEdit, Turn, TurnStatus,
};

use super::model::ResolvedTools;
use super::{Exit, Run};
use crate::compaction::{CompactionPolicy, hooks};
use crate::error::TurnFailure;

/// What the loop knows about the size of the working set.
#[derive(Debug, Default)]
pub(crate) struct CompactionState {
    /// Input tokens the provider reported for the last call (0: none yet, or compacted since).
    last_input_tokens: u64,
    /// How much of the working set that call carried.
    counted: usize,
    /// Whether this run compacted its working set (then it is recorded after the turn).
    compacted: bool,
}

impl CompactionState {
    /// What the loop knows at the start of a run over `history` (the session's window): the
    /// context size the previous turn ended with, when the window is still the one it measured.
    pub(crate) fn resumed(previous: Option<ContextSize>, history: usize) -> Self {
        match previous {
            Some(size) if size.messages == history && history > 0 => {
                Self { last_input_tokens: size.tokens, counted: history, compacted: false }
            }
            _ => Self::default(),
        }
    }

    /// Whether this run compacted its working set.
    pub(crate) fn compacted(&self) -> bool {
        self.compacted
    }
}

impl Run {
    /// The context at the end of the run: the last answered call's input and output, over the
    /// working set as it stands (`None` when no call reported usage).
    pub(super) fn context_size(&self) -> Option<ContextSize> {
        let last = self.model_calls.iter().rev().find(|c| c.error.is_none())?;
        let tokens = last.usage.total_input_tokens() + last.usage.output_tokens;
        (tokens > 0).then(|| ContextSize::new(tokens, self.working.len()))
    }

    /// [`call_model`](Self::call_model) with the agent's compaction around it. Without a
    /// compaction policy this is the call itself; with one, the policy's work runs in a
    /// future boxed when it runs, so a turn's future has no room for it.
    pub(super) async fn call_model_compacting(
        &mut self,
        tools: &ResolvedTools,
        iteration: u32,
        last_call: bool,
    ) -> Result<Box<ModelResponse>, Exit> {
        let Some(config) = self.agent.inner.compaction.clone() else {
            return self.call_model(tools, iteration, last_call).await;
        };
        Box::pin(self.call_model_under(config, tools, iteration, last_call)).await
    }

    /// A model call under a compaction policy: compacted first when the estimated context
    /// passes the policy's threshold, and once more (then called again) on an overflow.
    async fn call_model_under(
        &mut self,
        config: CompactionPolicy,
        tools: &ResolvedTools,
        iteration: u32,
        last_call: bool,
    ) -> Result<Box<ModelResponse>, Exit> {
        if let Some(window) = config.context_window(&*self.model)
            && self.estimated_context() as f64 > config.threshold * window as f64
        {
            self.compact(&config, CompactionTrigger::Auto, None, tools).await;
        }
        let mut counted = self.working.len();
        let result = match self.call_model(tools, iteration, last_call).await {
            Err(exit) if config.retry_on_overflow && is_overflow(&exit) => {
                if !self.compact(&config, CompactionTrigger::Overflow, None, tools).await {
                    return Err(exit);
                }
                counted = self.working.len();
                self.call_model(tools, iteration, last_call).await
            }
            other => other,
        };
        if let Ok(response) = &result {
            // A model that reports no usage (a test model, some local servers) leaves the
            // whole working set to the estimate.
            let reported = response.usage.total_input_tokens();
            self.compaction.last_input_tokens = reported;
            self.compaction.counted = if reported == 0 { 0 } else { counted.min(self.working.len()) };
        }
        result
    }

    /// The last call's reported input, plus an estimate of what was added since, plus the
    /// output room the request reserves.
    fn estimated_context(&self) -> u64 {
        let state = &self.compaction;
        let added = self.working.get(state.counted..).unwrap_or_default();
        let reserve = self.agent.inner.settings.template.max_tokens.map_or(0, u64::from);
        state.last_input_tokens + dive_core::estimate_tokens(added) + reserve
    }

    /// Compacts the working set; returns whether it changed. A failing strategy is logged and
    /// the run goes on uncompacted.
    pub(super) async fn compact(
        &mut self,
        config: &CompactionPolicy,
        trigger: CompactionTrigger,
        instructions: Option<String>,
        tools: &ResolvedTools,
    ) -> bool {
        let before = dive_core::estimate_tokens(&self.working);
        let estimated = self.estimated_context().max(before);
        let planned = hooks::Planned {
            info: &self.info,
            strategy: config.strategy.name(),
            trigger,
            estimated_tokens: estimated,
            message_count: self.working.len(),
        };
        let Ok(instructions) = hooks::pre_compact(&self.agent.inner.hooks, &planned, instructions).await
        else {
            return false;
        };
        let mut request = CompactionRequest::new(Vec::clone(&self.working), trigger)
            .with_system_prompt(self.system_prompt.clone())
            .with_estimated_tokens(estimated)
            .with_tools(tools.definitions());
        request.instructions = instructions;
        request.context_window = config.context_window(&*self.model);
        let compacted = match config.apply(&request).await {
            Ok(Some(window)) => {
                // What the compaction's own model calls cost is part of the turn's cost.
                self.usage += &window.usage;
                window.messages
            }
            Ok(None) => return false,
            Err(error) => {
                tracing::warn!(strategy = config.strategy.name(), %error, "compaction failed; going on uncompacted");
                return false;
            }
        };
        let after = dive_core::estimate_tokens(&compacted);
        tracing::info!(
            strategy = config.strategy.name(),
            trigger = trigger.as_str(),
            before,
            after,
            "compacted the working set"
        );
        let messages_after = compacted.len();
        self.working = Arc::new(compacted);
        self.compaction = CompactionState { compacted: true, ..CompactionState::default() };
        if !self.agent.inner.hooks.post_compact.is_empty() {
            let mut ctx = PostCompactContext::new(self.info.clone(), trigger, config.strategy.name());
            ctx.tokens_before = before;
            ctx.tokens_after = after;
            ctx.messages_before = request.messages.len();
            ctx.messages_after = messages_after;
            hooks::post_compact(&self.agent.inner.hooks, ctx).await;
        }
        true
    }

    /// After the turn is saved: records the compacted window as the session's new active
    /// window (the turn itself keeps every original message). A suspended turn records
    /// nothing (its resume rebuilds the window and compacts again if it must).
    pub(super) async fn record_compaction(&self, turn: &Turn) {
        if !self.compaction.compacted || matches!(turn.status, TurnStatus::Suspended | TurnStatus::Running) {
            return;
        }
        let Some(history) = self.session.as_deref().and_then(|s| s.as_history()) else { return };
        let edit = SessionEdit::Compact { summary: Vec::clone(&self.working) };
        if let Err(error) = history.edit(Some(turn.revision), &edit).await {
            tracing::warn!(%error, "recording the compaction in the session failed; the next turn starts uncompacted");
        }
    }
}

fn is_overflow(exit: &Exit) -> bool {
    matches!(exit, Exit::Failed { cause: TurnFailure::Model(e), .. } if e.kind == LlmErrorKind::ContextOverflow)
}
