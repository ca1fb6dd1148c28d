//! Calling observers: each event is built only when an observer is registered, from what the
//! run already holds (no copy, no allocation otherwise).

use std::time::Duration;

use dive_core::{
    Content, FinalResponse, IterationStart, ModelResponse, OutcomeReason, Role, ThinkingBlock, ToolCallEnd,
    ToolCallResult, ToolCallStart, ToolPreview, ToolUse,
};

use super::Run;

impl Run {
    /// Whether any observer is registered.
    fn observed(&self) -> bool {
        !self.agent.inner.hooks.observers.is_empty()
    }

    pub(super) fn observe_iteration_start(&mut self, iteration: u32) {
        self.iterations += 1;
        if !self.observed() {
            return;
        }
        let event = IterationStart::new(&self.info, iteration);
        for o in &self.agent.inner.hooks.observers {
            o.iteration_start(&event);
        }
    }

    /// One event per thinking block of a response, in order.
    pub(super) fn observe_thinking(&self, iteration: u32, response: &ModelResponse) {
        if !self.observed() {
            return;
        }
        for block in &response.content {
            if let Content::Thinking(thinking) = block {
                let event = ThinkingBlock::new(&self.info, iteration, thinking);
                for o in &self.agent.inner.hooks.observers {
                    o.thinking(&event);
                }
            }
        }
    }

    pub(super) fn observe_tool_call(&self, call: &ToolUse, preview: Option<&ToolPreview>) {
        if !self.observed() {
            return;
        }
        let event = ToolCallStart::new(&self.info, call, preview);
        for o in &self.agent.inner.hooks.observers {
            o.tool_call(&event);
        }
    }

    pub(super) fn observe_tool_result(&self, result: &ToolCallResult) {
        if !self.observed() {
            return;
        }
        let event = ToolCallEnd::new(&self.info, result, Duration::from_millis(result.duration_ms));
        for o in &self.agent.inner.hooks.observers {
            o.tool_result(&event);
        }
    }

    /// The final response: the last assistant text of this invocation.
    pub(super) fn observe_response(&self, reason: &OutcomeReason) {
        if !self.observed() {
            return;
        }
        let text = self.last_assistant_text();
        let event = FinalResponse::new(&self.info, &text, self.iterations, reason);
        for o in &self.agent.inner.hooks.observers {
            o.response(&event);
        }
    }

    /// The answer text of the turn's last assistant message (empty when it held only tool
    /// calls, or there is none).
    pub(super) fn last_assistant_text(&self) -> String {
        self.output
            .iter()
            .skip(self.output_start)
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(dive_core::Message::answer_text)
            .unwrap_or_default()
    }
}
