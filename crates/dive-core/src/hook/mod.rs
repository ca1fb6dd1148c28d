//! Hooks: one trait per phase of the agent loop, each with its own typed
//! context and typed decision, collected in [`Hooks`].
//!
//! Any `Fn(Context) -> impl Future<Output = Result<Decision, HookError>>` closure is a hook:
//!
//! ```
//! use dive_core::{HookError, Hooks, PreToolUseDecision, ToolUseContext};
//! let hooks = Hooks::new().on_pre_tool_use(|ctx: ToolUseContext| async move {
//!     if ctx.call.name == "bash" && ctx.call.input["command"].as_str().is_some_and(|c| c.contains("rm -rf")) {
//!         return Ok(PreToolUseDecision::deny("destructive commands are not allowed"));
//!     }
//!     Ok::<_, HookError>(PreToolUseDecision::allow())
//! });
//! assert_eq!(hooks.pre_tool_use.len(), 1);
//! ```
//!
//! | Phase | Trait | Context | Decision |
//! |---|---|---|---|
//! | a fresh conversation starts | [`SessionStartHook`] | [`SessionStartContext`] | [`SessionStartDecision`] |
//! | once, after the turn boundary | [`PreGenerationHook`] | [`GenerationContext`] | [`GenerationEdit`] |
//! | before each model call | [`PreIterationHook`] | [`GenerationContext`] | [`GenerationEdit`] |
//! | before each tool call | [`PreToolUseHook`] | [`ToolUseContext`] | [`PreToolUseDecision`] |
//! | after a successful call | [`PostToolUseHook`] | [`ToolResultContext`] | [`PostToolUseDecision`] |
//! | after a failed call | [`PostToolUseFailureHook`] | [`ToolResultContext`] | [`PostToolUseDecision`] |
//! | the model finished | [`StopHook`] | [`StopContext`] | [`StopDecision`] |
//! | completed or suspended turn | [`PostGenerationHook`] | [`PostGenerationContext`] | `()` |
//! | a new suspension | [`OnSuspendHook`] | [`SuspendContext`] | `()` |
//! | an incomplete turn, before save | [`OnIncompleteTurnHook`] | [`IncompleteTurnContext`] | [`IncompleteTurnDecision`] |
//! | background results delivered | [`PostBackgroundToolUseHook`] | [`ToolResultContext`] | `()` |
//!
//! Beside them, [`Observer`]s watch the loop without changing it (synchronous, no copies):
//! iteration start, thinking blocks, tool calls and results with durations, the final
//! response; [`FnObserver`] builds one from closures.

mod compact;
mod context;
mod decision;
mod observer;

use std::future::Future;
use std::sync::Arc;

pub use compact::{PostCompactContext, PreCompactContext, PreCompactDecision};
pub use context::{
    GenerationContext, IncompleteTurnContext, PostGenerationContext, QueuedReminder, SessionStartContext,
    StopContext, SuspendContext, ToolResultContext, ToolUseContext,
};
pub use decision::{
    GenerationEdit, IncompleteTurnDecision, PostToolUseDecision, PreToolUseDecision, SessionStartDecision,
    StopDecision, Verdict,
};
pub use observer::{
    FinalResponse, FnObserver, IterationStart, Observer, ThinkingBlock, ToolCallEnd, ToolCallStart,
};

use crate::error::HookError;
use crate::future::BoxFuture;
use crate::tool::Tool;

macro_rules! hook_trait {
    ($(#[$doc:meta])* $trait:ident, $method:ident, $field:ident, $adder:ident, $ctx:ty, $out:ty) => {
        $(#[$doc])*
        pub trait $trait: Send + Sync {
            /// A name for errors and traces.
            fn name(&self) -> &str {
                stringify!($method)
            }

            /// Runs the hook.
            fn $method(&self, ctx: $ctx) -> BoxFuture<'_, Result<$out, HookError>>;
        }

        impl<F, Fut> $trait for F
        where
            F: Fn($ctx) -> Fut + Send + Sync,
            Fut: Future<Output = Result<$out, HookError>> + Send + 'static,
        {
            fn $method(&self, ctx: $ctx) -> BoxFuture<'_, Result<$out, HookError>> {
                Box::pin(self(ctx))
            }
        }

        /// A hook shared through an `Arc` (to read its state after the agent is built) is a
        /// hook itself.
        impl<H: $trait + ?Sized> $trait for Arc<H> {
            fn name(&self) -> &str {
                (**self).name()
            }

            fn $method(&self, ctx: $ctx) -> BoxFuture<'_, Result<$out, HookError>> {
                (**self).$method(ctx)
            }
        }

        impl Hooks {
            #[doc = concat!("Adds a [`", stringify!($trait), "`].")]
            #[must_use]
            pub fn $adder(mut self, hook: impl $trait + 'static) -> Self {
                self.$field.push(Arc::new(hook));
                self
            }
        }
    };
}

/// Every hook of an agent, by phase, run in insertion order.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct Hooks {
    /// Session start.
    pub session_start: Vec<Arc<dyn SessionStartHook>>,
    /// Pre-generation.
    pub pre_generation: Vec<Arc<dyn PreGenerationHook>>,
    /// Pre-iteration.
    pub pre_iteration: Vec<Arc<dyn PreIterationHook>>,
    /// Pre-tool-use.
    pub pre_tool_use: Vec<Arc<dyn PreToolUseHook>>,
    /// Post-tool-use.
    pub post_tool_use: Vec<Arc<dyn PostToolUseHook>>,
    /// Post-tool-use failure.
    pub post_tool_use_failure: Vec<Arc<dyn PostToolUseFailureHook>>,
    /// Stop.
    pub stop: Vec<Arc<dyn StopHook>>,
    /// Post-generation.
    pub post_generation: Vec<Arc<dyn PostGenerationHook>>,
    /// On suspend.
    pub on_suspend: Vec<Arc<dyn OnSuspendHook>>,
    /// On incomplete turn.
    pub on_incomplete_turn: Vec<Arc<dyn OnIncompleteTurnHook>>,
    /// Post background tool use.
    pub post_background_tool_use: Vec<Arc<dyn PostBackgroundToolUseHook>>,
    /// Pre-compact.
    pub pre_compact: Vec<Arc<dyn PreCompactHook>>,
    /// Post-compact.
    pub post_compact: Vec<Arc<dyn PostCompactHook>>,
    /// Observers (read-only, synchronous).
    pub observers: Vec<Arc<dyn Observer>>,
}

impl std::fmt::Debug for Hooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks")
            .field("session_start", &self.session_start.len())
            .field("pre_generation", &self.pre_generation.len())
            .field("pre_iteration", &self.pre_iteration.len())
            .field("pre_tool_use", &self.pre_tool_use.len())
            .field("post_tool_use", &self.post_tool_use.len())
            .field("post_tool_use_failure", &self.post_tool_use_failure.len())
            .field("stop", &self.stop.len())
            .field("post_generation", &self.post_generation.len())
            .field("on_suspend", &self.on_suspend.len())
            .field("on_incomplete_turn", &self.on_incomplete_turn.len())
            .field("post_background_tool_use", &self.post_background_tool_use.len())
            .field("pre_compact", &self.pre_compact.len())
            .field("post_compact", &self.post_compact.len())
            .field("observers", &self.observers.len())
            .finish()
    }
}

impl Hooks {
    /// No hooks.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends every hook of `other` after these.
    pub fn extend(&mut self, other: Hooks) {
        self.session_start.extend(other.session_start);
        self.pre_generation.extend(other.pre_generation);
        self.pre_iteration.extend(other.pre_iteration);
        self.pre_tool_use.extend(other.pre_tool_use);
        self.post_tool_use.extend(other.post_tool_use);
        self.post_tool_use_failure.extend(other.post_tool_use_failure);
        self.stop.extend(other.stop);
        self.post_generation.extend(other.post_generation);
        self.on_suspend.extend(other.on_suspend);
        self.on_incomplete_turn.extend(other.on_incomplete_turn);
        self.post_background_tool_use.extend(other.post_background_tool_use);
        self.pre_compact.extend(other.pre_compact);
        self.post_compact.extend(other.post_compact);
        self.observers.extend(other.observers);
    }

    /// Adds an [`Observer`].
    #[must_use]
    pub fn observer(mut self, observer: impl Observer + 'static) -> Self {
        self.observers.push(Arc::new(observer));
        self
    }

    /// Whether there are no hooks.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.session_start.is_empty()
            && self.pre_generation.is_empty()
            && self.pre_iteration.is_empty()
            && self.pre_tool_use.is_empty()
            && self.post_tool_use.is_empty()
            && self.post_tool_use_failure.is_empty()
            && self.stop.is_empty()
            && self.post_generation.is_empty()
            && self.on_suspend.is_empty()
            && self.on_incomplete_turn.is_empty()
            && self.post_background_tool_use.is_empty()
            && self.pre_compact.is_empty()
            && self.post_compact.is_empty()
            && self.observers.is_empty()
    }
}

hook_trait!(
    /// Seeds a fresh conversation (history empty, not a resume or continue).
    SessionStartHook, session_start, session_start, on_session_start, SessionStartContext, SessionStartDecision
);
hook_trait!(
    /// Runs once per turn after the boundary; may edit the prompt and messages.
    PreGenerationHook, pre_generation, pre_generation, on_pre_generation, GenerationContext, GenerationEdit
);
hook_trait!(
    /// Runs before each model call; may edit the prompt and working messages.
    PreIterationHook, pre_iteration, pre_iteration, on_pre_iteration, GenerationContext, GenerationEdit
);
hook_trait!(
    /// Runs before each tool call; may deny it, rewrite its input or add context.
    PreToolUseHook, pre_tool_use, pre_tool_use, on_pre_tool_use, ToolUseContext, PreToolUseDecision
);
hook_trait!(
    /// Runs after a successful tool call; may replace the output or add context.
    PostToolUseHook, post_tool_use, post_tool_use, on_post_tool_use, ToolResultContext, PostToolUseDecision
);
hook_trait!(
    /// Runs after a failed tool call (error result, error, panic).
    PostToolUseFailureHook, post_tool_use_failure, post_tool_use_failure, on_post_tool_use_failure,
    ToolResultContext, PostToolUseDecision
);
hook_trait!(
    /// Runs when the model finished; may continue the loop.
    StopHook, stop, stop, on_stop, StopContext, StopDecision
);
hook_trait!(
    /// Observes a completed or suspended turn.
    PostGenerationHook, post_generation, post_generation, on_post_generation, PostGenerationContext, ()
);
hook_trait!(
    /// Observes a new suspension before it is saved (notify, dispatch webhooks).
    OnSuspendHook, on_suspend, on_suspend, on_suspend, SuspendContext, ()
);
hook_trait!(
    /// Runs on an incomplete turn after it is closed and before it is saved.
    OnIncompleteTurnHook, on_incomplete_turn, on_incomplete_turn, on_incomplete_turn, IncompleteTurnContext,
    IncompleteTurnDecision
);
hook_trait!(
    /// Runs when background results are delivered.
    PostBackgroundToolUseHook, post_background_tool_use, post_background_tool_use, on_post_background_tool_use,
    ToolResultContext, ()
);

hook_trait!(
    /// Runs before the engine compacts the working set; may add custom instructions or veto.
    PreCompactHook, pre_compact, pre_compact, on_pre_compact, PreCompactContext, PreCompactDecision
);
hook_trait!(
    /// Observes a compaction: the strategy, and the estimated size before and after.
    PostCompactHook, post_compact, post_compact, on_post_compact, PostCompactContext, ()
);

/// A bundle of capabilities added to an agent in one go: tools, hooks and rules (text
/// appended to the system prompt). Skills, MCP clients and permission managers are
/// extensions.
pub trait Extension: Send + Sync {
    /// The extension name.
    fn name(&self) -> &str;

    /// Tools it adds.
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        Vec::new()
    }

    /// Hooks it adds.
    fn hooks(&self) -> Hooks {
        Hooks::new()
    }

    /// Rules appended to the system prompt.
    fn rules(&self) -> Option<String> {
        None
    }
}

/// An extension shared through an `Arc` is an extension itself.
impl<E: Extension + ?Sized> Extension for Arc<E> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        (**self).tools()
    }
    fn hooks(&self) -> Hooks {
        (**self).hooks()
    }
    fn rules(&self) -> Option<String> {
        (**self).rules()
    }
}
