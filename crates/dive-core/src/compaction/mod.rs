//! Compaction: a [`CompactionStrategy`] shrinks the messages a model sees when a conversation
//! outgrows the context window. A strategy rewrites only the *working set* (what the next
//! request carries); the saved transcript keeps every original message, and a session records
//! the result as a [`Compaction`](crate::Compaction) over a range, never as a rewrite.
//!
//! The pure strategies live here ([`ClearToolResults`], [`Trim`]); one that calls a model
//! (`Summarize`) lives in `dive-agent`, which also decides when to compact (a threshold of
//! the context window, and once more on a context-overflow error).
//!
//! ```
//! # futures_executor_block_on(async {
//! use dive_core::{CompactionRequest, CompactionStrategy, CompactionTrigger, Message, Trim};
//! let messages = vec![
//!     Message::user("first question"),
//!     Message::assistant("first answer"),
//!     Message::user("second question"),
//! ];
//! let request = CompactionRequest::new(messages, CompactionTrigger::Manual);
//! let kept = Trim::new(1).compact(&request).await.unwrap().unwrap();
//! assert_eq!(kept.messages.len(), 1);
//! assert_eq!(kept.messages[0].text(), "second question");
//! # });
//! # fn futures_executor_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     let waker = std::task::Waker::noop();
//! #     let mut cx = std::task::Context::from_waker(&waker);
//! #     let mut f = std::pin::pin!(f);
//! #     loop { if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
//! # }
//! ```

mod edit;
mod window;

use std::sync::Arc;

pub use edit::{CLEARED_THINKING_TEXT, CLEARED_TOOL_RESULT_TEXT, ClearToolResults, Trim};
pub use window::{estimate_tokens, join_messages, safe_cuts};

use crate::error::LlmError;
use crate::future::BoxFuture;
use crate::llm::Usage;
use crate::message::Message;
use crate::tool::ToolDefinition;

/// Why a compaction runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CompactionTrigger {
    /// Asked for (a `/compact` command, an application call).
    Manual,
    /// The estimated context passed the configured share of the context window.
    Auto,
    /// A model call failed with a context-overflow error; the call is retried once after.
    Overflow,
}

impl CompactionTrigger {
    /// `manual`, `auto` or `overflow`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::Auto => "auto",
            Self::Overflow => "overflow",
        }
    }
}

/// What a strategy is asked to compact.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CompactionRequest {
    /// The working set: the messages the next request would carry.
    pub messages: Vec<Message>,
    /// The system prompt of the run (a summarising strategy may pass it on).
    pub system_prompt: String,
    /// Why this compaction runs.
    pub trigger: CompactionTrigger,
    /// Custom instructions (a `/compact` argument, a PreCompact hook's addition).
    pub instructions: Option<String>,
    /// The estimated size of the working set in tokens.
    pub estimated_tokens: u64,
    /// The context window the working set must fit, when known.
    pub context_window: Option<u64>,
    /// The tools of the run: a strategy that calls a model sends them, since a history with
    /// tool calls is refused by some APIs without their definitions.
    pub tools: Arc<[ToolDefinition]>,
}

impl CompactionRequest {
    /// A request over `messages` (size estimated by [`estimate_tokens`]).
    #[must_use]
    pub fn new(messages: Vec<Message>, trigger: CompactionTrigger) -> Self {
        let estimated_tokens = estimate_tokens(&messages);
        Self {
            messages,
            system_prompt: String::new(),
            trigger,
            instructions: None,
            estimated_tokens,
            context_window: None,
            tools: Arc::from([]),
        }
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = prompt.into();
        self
    }

    /// Sets custom instructions.
    #[must_use]
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Sets the estimated size in tokens.
    #[must_use]
    pub fn with_estimated_tokens(mut self, tokens: u64) -> Self {
        self.estimated_tokens = tokens;
        self
    }

    /// Sets the context window.
    #[must_use]
    pub fn with_context_window(mut self, tokens: u64) -> Self {
        self.context_window = Some(tokens);
        self
    }

    /// Sets the tools of the run.
    #[must_use]
    pub fn with_tools(mut self, tools: impl Into<Arc<[ToolDefinition]>>) -> Self {
        self.tools = tools.into();
        self
    }
}

/// A compaction failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompactionError {
    /// The summarising model call failed.
    #[error("compaction model call failed: {0}")]
    Model(#[source] LlmError),
    /// The strategy could not compact for another reason.
    #[error("compaction failed: {0}")]
    Failed(String),
}

/// What a compaction made of a working set: the new working set, and the usage of the model
/// calls it took (none for the pure strategies), which the engine adds to the turn's. Also
/// what a provider's own compaction ([`Llm::compact`](crate::Llm::compact)) returns: there the
/// messages (typically one holding a signed or encrypted compaction block) stand in for the
/// compacted ones and are replayed exactly as received.
///
/// ```
/// use dive_core::{CompactedWindow, Message, Usage};
/// let done = CompactedWindow::new(vec![Message::assistant("summary")]).with_usage(Usage::new(900, 40));
/// assert_eq!((done.messages.len(), done.usage.output_tokens), (1, 40));
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct CompactedWindow {
    /// The new working set.
    pub messages: Vec<Message>,
    /// What producing it cost.
    pub usage: Usage,
}

impl CompactedWindow {
    /// A window made without a model call.
    #[must_use]
    pub fn new(messages: Vec<Message>) -> Self {
        Self { messages, usage: Usage::default() }
    }

    /// Sets the usage of the calls that made it.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }
}

impl From<Vec<Message>> for CompactedWindow {
    fn from(messages: Vec<Message>) -> Self {
        Self::new(messages)
    }
}

/// A way to shrink a working set. Returns the new working set, or `None` when there is
/// nothing it can take away (the engine then goes on with the messages as they are).
///
/// A strategy must never separate a tool call from its result: the cut points of
/// [`safe_cuts`] are where a window may start.
pub trait CompactionStrategy: Send + Sync {
    /// A name for traces and logs.
    fn name(&self) -> &str;

    /// Compacts `request.messages`.
    fn compact<'a>(
        &'a self,
        request: &'a CompactionRequest,
    ) -> BoxFuture<'a, Result<Option<CompactedWindow>, CompactionError>>;
}

impl<S: CompactionStrategy + ?Sized> CompactionStrategy for Arc<S> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn compact<'a>(
        &'a self,
        request: &'a CompactionRequest,
    ) -> BoxFuture<'a, Result<Option<CompactedWindow>, CompactionError>> {
        (**self).compact(request)
    }
}

/// Content that must survive a compaction word for word (loaded skills: `dive_skill::carry_over`
/// has this shape): given the messages before, the message to keep after, or `None`.
pub type CarryOver = Arc<dyn Fn(&[Message]) -> Option<Message> + Send + Sync>;
