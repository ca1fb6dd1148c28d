//! [`ToolBudget`]: a hook written as a struct, with state the application reads after the run.
//!
//! A struct hook implements the phase's trait (here [`PreToolUseHook`]). Shared through an
//! `Arc`, the same value is both registered on the agent and kept by the application: an
//! `Arc<ToolBudget>` is a hook itself, so the state needs no inner `Arc<Mutex<…>>`.

use std::sync::atomic::{AtomicU32, Ordering};

use dive_core::{BoxFuture, HookError, PreToolUseDecision, PreToolUseHook, ToolUseContext};

/// Allows at most `limit` tool calls over the agent's life, then denies each further call
/// with a reason the model reads; counts what it allowed and what it denied.
#[derive(Debug)]
pub struct ToolBudget {
    limit: u32,
    allowed: AtomicU32,
    denied: AtomicU32,
}

impl ToolBudget {
    /// A budget of `limit` calls.
    #[must_use]
    pub fn new(limit: u32) -> Self {
        Self { limit, allowed: AtomicU32::new(0), denied: AtomicU32::new(0) }
    }

    /// Calls allowed so far.
    #[must_use]
    pub fn allowed(&self) -> u32 {
        self.allowed.load(Ordering::SeqCst)
    }

    /// Calls denied so far.
    #[must_use]
    pub fn denied(&self) -> u32 {
        self.denied.load(Ordering::SeqCst)
    }
}

impl PreToolUseHook for ToolBudget {
    fn name(&self) -> &str {
        "tool_budget"
    }

    fn pre_tool_use(&self, ctx: ToolUseContext) -> BoxFuture<'_, Result<PreToolUseDecision, HookError>> {
        // Take a slot only while one is left, so concurrent calls never overspend.
        let took = self
            .allowed
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| (n < self.limit).then_some(n + 1))
            .is_ok();
        let decision = if took {
            PreToolUseDecision::allow()
        } else {
            self.denied.fetch_add(1, Ordering::SeqCst);
            PreToolUseDecision::deny(format!(
                "the tool budget of {} calls is spent; answer without calling {}",
                self.limit, ctx.call.name
            ))
        };
        Box::pin(async move { Ok(decision) })
    }
}
