//! Calling observers: each event is built only when an observer is registered, from what the
//! run already holds (no copy, no allocation otherwise).

use std::sync::Arc;
use std::time::Duration;

use dive_core::{
    Content, ContentDelta, FinalResponse, IterationStart, ModelResponse, Observer, OutcomeReason, Role,
    RunInfo, StreamEvent, ThinkingBlock, ThinkingContent, ToolCallEnd, ToolCallResult, ToolCallStart,
    ToolPreview, ToolUse,
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

    /// One event per thinking block of a whole (not streamed) response, in order.
    pub(super) fn observe_thinking(&self, iteration: u32, response: &ModelResponse) {
        if !self.observed() {
            return;
        }
        for block in &response.content {
            if let Content::Thinking(thinking) = block {
                observe_thinking_block(&self.agent.inner.hooks.observers, &self.info, iteration, thinking);
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

/// Tells observers a thinking block is complete (a free function, so a streaming loop that
/// holds the run's stream can call it with the fields it needs).
pub(super) fn observe_thinking_block(
    observers: &[Arc<dyn Observer>],
    run: &RunInfo,
    iteration: u32,
    block: &ThinkingContent,
) {
    let event = ThinkingBlock::new(run, iteration, block);
    for o in observers {
        o.thinking(&event);
    }
}

/// Follows the thinking blocks of a stream, so each is reported the moment its
/// `content_block_stop` arrives. Used only when an observer is registered.
#[derive(Default)]
pub(super) struct ThinkingWatch {
    open: Vec<(usize, ThinkingContent)>,
}

impl ThinkingWatch {
    /// The thinking block this event completes, if it completes one.
    pub(super) fn see(&mut self, event: &StreamEvent) -> Option<ThinkingContent> {
        match event {
            StreamEvent::ContentBlockStart { index, content_block } => {
                if let Content::Thinking(block) = &**content_block {
                    self.open.push((*index, block.clone()));
                }
                None
            }
            StreamEvent::ContentBlockDelta { index, delta } => {
                let (_, block) = self.open.iter_mut().find(|(i, _)| i == index)?;
                match delta {
                    ContentDelta::ThinkingDelta { thinking } => block.thinking.push_str(thinking),
                    ContentDelta::SignatureDelta { signature } => {
                        block.signature.get_or_insert_with(String::new).push_str(signature);
                    }
                    _ => {}
                }
                None
            }
            StreamEvent::ContentBlockStop { index } => {
                let at = self.open.iter().position(|(i, _)| i == index)?;
                Some(self.open.swap_remove(at).1)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_thinking_block_is_whole_at_its_stop_and_other_blocks_are_ignored() {
        let response = ModelResponse::text("answer")
            .with_content(Content::Thinking(ThinkingContent::new("step one, step two", Some("sig".into()))));
        let mut watch = ThinkingWatch::default();
        let done: Vec<ThinkingContent> =
            StreamEvent::sequence_for(&response).iter().filter_map(|e| watch.see(e)).collect();
        assert_eq!(done.len(), 1);
        assert_eq!(done[0].thinking, "step one, step two");
        assert_eq!(done[0].signature.as_deref(), Some("sig"));
        assert!(watch.open.is_empty());
    }
}
