//! [`Observer`]: read-only, synchronous callbacks on the loop's milestones (an iteration
//! starts, a thinking block, a tool call before it runs, its result, the final response).
//!
//! Hooks can change a turn; an observer only watches it, so it is called in place, without a
//! future or a copy of the conversation: its events borrow what the engine already holds. An
//! agent with no observer pays nothing for them (the engine does not even build the events).
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use dive_core::{FnObserver, Hooks};
//! let log = Arc::new(Mutex::new(Vec::new()));
//! let seen = log.clone();
//! let hooks = Hooks::new().observer(
//!     FnObserver::new().on_iteration_start(move |e| seen.lock().unwrap().push(e.iteration)),
//! );
//! assert_eq!(hooks.observers.len(), 1);
//! ```

use std::time::Duration;

use crate::message::{ThinkingContent, ToolUse};
use crate::response::ToolCallResult;
use crate::run::RunInfo;
use crate::tool::ToolPreview;
use crate::turn::OutcomeReason;

/// An iteration of the loop starts: a model call is about to be made.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct IterationStart<'a> {
    /// The run.
    pub run: &'a RunInfo,
    /// The iteration, from 0 (the engine's tool-iteration count: a paused response continued
    /// or a Stop hook's continuation starts an iteration too).
    pub iteration: u32,
}

impl<'a> IterationStart<'a> {
    /// An event.
    #[must_use]
    pub fn new(run: &'a RunInfo, iteration: u32) -> Self {
        Self { run, iteration }
    }
}

/// A thinking block of the model's response, once it is complete (in order; one event per
/// block, so interleaved thinking gives several).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ThinkingBlock<'a> {
    /// The run.
    pub run: &'a RunInfo,
    /// The iteration whose response it is part of.
    pub iteration: u32,
    /// The block (its `thinking` text may be a summary, per provider).
    pub block: &'a ThinkingContent,
}

impl<'a> ThinkingBlock<'a> {
    /// An event.
    #[must_use]
    pub fn new(run: &'a RunInfo, iteration: u32, block: &'a ThinkingContent) -> Self {
        Self { run, iteration, block }
    }

    /// The reasoning text.
    #[must_use]
    pub fn text(&self) -> &'a str {
        &self.block.thinking
    }
}

/// A tool call the model asked for, before it is dispatched (before PreToolUse hooks; for a
/// parallel batch, every call's event comes before any call runs).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ToolCallStart<'a> {
    /// The run.
    pub run: &'a RunInfo,
    /// The call: id, tool name and input as the model sent it.
    pub call: &'a ToolUse,
    /// The tool's preview of the call, when it has one.
    pub preview: Option<&'a ToolPreview>,
}

impl<'a> ToolCallStart<'a> {
    /// An event.
    #[must_use]
    pub fn new(run: &'a RunInfo, call: &'a ToolUse, preview: Option<&'a ToolPreview>) -> Self {
        Self { run, call, preview }
    }
}

/// A tool call's result: what the model will read, how long the tool ran and why it failed.
/// Every [`ToolCallStart`] gets one, also for calls answered without running (unknown tool,
/// denied, invalid input, not run), whose duration is zero.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ToolCallEnd<'a> {
    /// The run.
    pub run: &'a RunInfo,
    /// The result (its `output`, and its `error` for failed calls).
    pub result: &'a ToolCallResult,
    /// How long the tool ran, to the millisecond.
    pub duration: Duration,
}

impl<'a> ToolCallEnd<'a> {
    /// An event.
    #[must_use]
    pub fn new(run: &'a RunInfo, result: &'a ToolCallResult, duration: Duration) -> Self {
        Self { run, result, duration }
    }

    /// Whether the call failed (an error result, an error, a panic, a refusal).
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.result.error.is_some() || self.result.is_error()
    }
}

/// The turn ended (completed, or stopped by a limit, or failed; not suspended): the answer
/// and how many iterations it took. Fired before the turn is saved.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct FinalResponse<'a> {
    /// The run.
    pub run: &'a RunInfo,
    /// The text of the last assistant message (without thinking); empty when the last
    /// response was only tool calls.
    pub text: &'a str,
    /// Iterations this invocation ran (from 1; 0 when it ended before the first).
    pub iterations: u32,
    /// Why the turn ended (`Completed`, `IterationLimit`, …).
    pub reason: &'a OutcomeReason,
}

impl<'a> FinalResponse<'a> {
    /// An event.
    #[must_use]
    pub fn new(run: &'a RunInfo, text: &'a str, iterations: u32, reason: &'a OutcomeReason) -> Self {
        Self { run, text, iterations, reason }
    }
}

/// Watches a run: every method is optional and synchronous. Observers run on the engine's
/// task in the order they were added, and may be called from concurrent runs of one agent;
/// keep them quick (hand slow work to a channel).
pub trait Observer: Send + Sync {
    /// An iteration starts.
    fn iteration_start(&self, _event: &IterationStart<'_>) {}
    /// A thinking block is complete.
    fn thinking(&self, _event: &ThinkingBlock<'_>) {}
    /// A tool call is about to be dispatched.
    fn tool_call(&self, _event: &ToolCallStart<'_>) {}
    /// A tool call has its result.
    fn tool_result(&self, _event: &ToolCallEnd<'_>) {}
    /// The turn ended with this answer.
    fn response(&self, _event: &FinalResponse<'_>) {}
}

impl<O: Observer + ?Sized> Observer for std::sync::Arc<O> {
    fn iteration_start(&self, event: &IterationStart<'_>) {
        (**self).iteration_start(event);
    }
    fn thinking(&self, event: &ThinkingBlock<'_>) {
        (**self).thinking(event);
    }
    fn tool_call(&self, event: &ToolCallStart<'_>) {
        (**self).tool_call(event);
    }
    fn tool_result(&self, event: &ToolCallEnd<'_>) {
        (**self).tool_result(event);
    }
    fn response(&self, event: &FinalResponse<'_>) {
        (**self).response(event);
    }
}

/// An [`Observer`] from closures, one per milestone (any left unset does nothing).
///
/// ```
/// use dive_core::FnObserver;
/// let observer = FnObserver::new()
///     .on_tool_result(|e| println!("{} took {:?}", e.result.name, e.duration))
///     .on_response(|e| println!("answer after {} iterations: {}", e.iterations, e.text));
/// # let _ = observer;
/// ```
#[derive(Default)]
pub struct FnObserver {
    iteration_start: Option<Callback<IterationStartFn>>,
    thinking: Option<Callback<ThinkingFn>>,
    tool_call: Option<Callback<ToolCallFn>>,
    tool_result: Option<Callback<ToolResultFn>>,
    response: Option<Callback<ResponseFn>>,
}

type Callback<F> = Box<F>;
type IterationStartFn = dyn for<'a> Fn(&IterationStart<'a>) + Send + Sync;
type ThinkingFn = dyn for<'a> Fn(&ThinkingBlock<'a>) + Send + Sync;
type ToolCallFn = dyn for<'a> Fn(&ToolCallStart<'a>) + Send + Sync;
type ToolResultFn = dyn for<'a> Fn(&ToolCallEnd<'a>) + Send + Sync;
type ResponseFn = dyn for<'a> Fn(&FinalResponse<'a>) + Send + Sync;

impl std::fmt::Debug for FnObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnObserver")
            .field("iteration_start", &self.iteration_start.is_some())
            .field("thinking", &self.thinking.is_some())
            .field("tool_call", &self.tool_call.is_some())
            .field("tool_result", &self.tool_result.is_some())
            .field("response", &self.response.is_some())
            .finish()
    }
}

impl FnObserver {
    /// No callbacks.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Called when an iteration starts.
    #[must_use]
    pub fn on_iteration_start(mut self, f: impl Fn(&IterationStart<'_>) + Send + Sync + 'static) -> Self {
        self.iteration_start = Some(Box::new(f));
        self
    }

    /// Called for each complete thinking block.
    #[must_use]
    pub fn on_thinking(mut self, f: impl Fn(&ThinkingBlock<'_>) + Send + Sync + 'static) -> Self {
        self.thinking = Some(Box::new(f));
        self
    }

    /// Called for each tool call before it is dispatched.
    #[must_use]
    pub fn on_tool_call(mut self, f: impl Fn(&ToolCallStart<'_>) + Send + Sync + 'static) -> Self {
        self.tool_call = Some(Box::new(f));
        self
    }

    /// Called for each tool call's result.
    #[must_use]
    pub fn on_tool_result(mut self, f: impl Fn(&ToolCallEnd<'_>) + Send + Sync + 'static) -> Self {
        self.tool_result = Some(Box::new(f));
        self
    }

    /// Called with the final response.
    #[must_use]
    pub fn on_response(mut self, f: impl Fn(&FinalResponse<'_>) + Send + Sync + 'static) -> Self {
        self.response = Some(Box::new(f));
        self
    }
}

impl Observer for FnObserver {
    fn iteration_start(&self, event: &IterationStart<'_>) {
        if let Some(f) = &self.iteration_start {
            f(event);
        }
    }
    fn thinking(&self, event: &ThinkingBlock<'_>) {
        if let Some(f) = &self.thinking {
            f(event);
        }
    }
    fn tool_call(&self, event: &ToolCallStart<'_>) {
        if let Some(f) = &self.tool_call {
            f(event);
        }
    }
    fn tool_result(&self, event: &ToolCallEnd<'_>) {
        if let Some(f) = &self.tool_result {
            f(event);
        }
    }
    fn response(&self, event: &FinalResponse<'_>) {
        if let Some(f) = &self.response {
            f(event);
        }
    }
}
