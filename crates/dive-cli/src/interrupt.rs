//! What Ctrl-C does in interactive mode, by where the user is:
//! - while the model answers, the first press stops the stream now (what arrived is kept);
//! - while tools run, the first press lets them finish and stops after the step, a second
//!   press stops them now;
//! - at a permission prompt or a question, it cancels the turn;
//! - at an empty prompt, the first press says how to leave and a second one leaves (as does
//!   Ctrl-D).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use dive::{CancellationToken, ResponseItem};

/// The running turn: its hard-cancel token and how many tool calls are running. Shared by
/// the prompt loop, the Ctrl-C watch, the renderer and the dialogs.
#[derive(Clone, Default)]
pub struct TurnState {
    token: Arc<Mutex<Option<CancellationToken>>>,
    running_tools: Arc<AtomicUsize>,
}

impl TurnState {
    /// Starts a turn stopped by `token`.
    pub fn begin(&self, token: CancellationToken) {
        *self.token.lock().unwrap_or_else(PoisonError::into_inner) = Some(token);
        self.running_tools.store(0, Ordering::SeqCst);
    }

    /// The turn ended.
    pub fn end(&self) {
        *self.token.lock().unwrap_or_else(PoisonError::into_inner) = None;
        self.running_tools.store(0, Ordering::SeqCst);
    }

    /// Stops the running turn now (a permission prompt or question was interrupted).
    pub fn cancel(&self) {
        if let Some(token) = &*self.token.lock().unwrap_or_else(PoisonError::into_inner) {
            token.cancel();
        }
    }

    /// Follows the turn's items: a tool call starts, its result ends it.
    pub fn observe(&self, item: &ResponseItem) {
        match item {
            ResponseItem::ToolCall { .. } => {
                self.running_tools.fetch_add(1, Ordering::SeqCst);
            }
            ResponseItem::ToolCallResult { .. } => {
                let _ =
                    self.running_tools.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
            }
            _ => {}
        }
    }

    /// Whether the model is being waited on or streaming (no tool is running), so a first
    /// Ctrl-C should stop at once rather than after the step.
    pub fn model_is_answering(&self) -> bool {
        self.running_tools.load(Ordering::SeqCst) == 0
    }
}

/// Ctrl-C at the prompt: the first press hints, a second one in a row leaves.
#[derive(Debug, Default)]
pub struct PromptInterrupts {
    armed: bool,
}

/// What the prompt loop does after a Ctrl-C.
#[derive(Debug, PartialEq, Eq)]
pub enum AtPrompt {
    /// Show this hint and read again.
    Hint(&'static str),
    /// Leave.
    Exit,
}

impl PromptInterrupts {
    /// The hint shown on the first press.
    pub const HINT: &'static str = "(press Ctrl-C again or Ctrl-D to quit)";

    /// A Ctrl-C at the prompt.
    pub fn interrupted(&mut self) -> AtPrompt {
        if self.armed {
            AtPrompt::Exit
        } else {
            self.armed = true;
            AtPrompt::Hint(Self::HINT)
        }
    }

    /// Anything else was typed: the next Ctrl-C hints again.
    pub fn reset(&mut self) {
        self.armed = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive::{ToolCallResult, ToolOutput, ToolUse};

    #[test]
    fn the_second_ctrl_c_in_a_row_leaves() {
        let mut prompt = PromptInterrupts::default();
        assert_eq!(prompt.interrupted(), AtPrompt::Hint(PromptInterrupts::HINT));
        prompt.reset();
        assert_eq!(prompt.interrupted(), AtPrompt::Hint(PromptInterrupts::HINT), "typing disarms it");
        assert_eq!(prompt.interrupted(), AtPrompt::Exit);
    }

    #[test]
    fn running_tools_are_counted_and_a_cancel_reaches_the_turn() {
        let state = TurnState::default();
        let token = CancellationToken::new();
        state.begin(token.clone());
        assert!(state.model_is_answering());
        let call = ToolUse::new("c1", "Bash", serde_json::json!({"command": "sleep 1"}));
        state.observe(&ResponseItem::ToolCall { call: call.clone(), preview: None });
        assert!(!state.model_is_answering());
        state.observe(&ResponseItem::ToolCallResult {
            result: Box::new(ToolCallResult::new(&call, ToolOutput::text("ok"))),
        });
        assert!(state.model_is_answering());
        state.cancel();
        assert!(token.is_cancelled());
        state.end();
    }
}
