//! The vocabulary of Dive for Rust: messages, the [`Llm`] trait, tools, hooks, sessions,
//! turns, tracing and memory traits. No I/O and no async runtime: every other crate of the
//! workspace builds on these types, and so can yours.
//!
//! | Module | What lives there |
//! |---|---|
//! | [`message`] | [`Message`], [`Content`] blocks (unknown blocks kept verbatim) |
//! | [`llm`] | [`Llm`], [`ModelRequest`], [`ModelResponse`], [`StreamEvent`], [`ResponseAccumulator`], [`Usage`], [`StopKind`] |
//! | [`tool`] | [`Tool`], [`TypedTool`], [`FunctionTool`], [`ToolResult`], [`ToolAnnotations`], [`Toolset`] |
//! | [`hook`] | one hook trait per loop phase, [`Hooks`], [`Extension`] |
//! | [`turn`] | [`Turn`], [`TurnOutcome`], tool-call states, suspension |
//! | [`response`] | [`Response`], [`ResponseItem`], [`ToolCallResult`], [`ModelCallRecord`] |
//! | [`session`] | [`Session`], [`TurnStore`], [`SessionClaimer`], [`SessionHistory`], [`SessionStore`] |
//! | [`capabilities`] | [`StoreCapabilities`]: what a store declares it can do |
//! | [`session_event`] | [`SessionDocument`] (the full record and export format), [`SessionEvent`], [`Compaction`] |
//! | [`reminder`] | typed runtime context for the model |
//! | [`trace`], [`memory`] | [`Tracer`]; [`Embedder`], [`VectorStore`], memories, [`WritePolicy`] |
//! | [`error`] | [`LlmError`], [`SessionError`], [`HookError`], [`MemoryError`] |
//!
//! ## The serde, serde_json and schemars this crate uses
//!
//! A [`TypedTool`]'s input derives `Deserialize` and `JsonSchema` from the same majors of serde
//! and schemars as dive-core; both are re-exported ([`serde`], [`schemars`], and [`serde_json`]
//! for the `Value`s in the API), so a crate can use them without naming its own copies. With
//! the re-exports, tell the derives where the crates are:
//!
//! ```
//! use dive_core::{IntoTool, ToolContext, ToolError, ToolResult, TypedTool, schemars, serde};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! #[serde(crate = "dive_core::serde")]
//! #[schemars(crate = "dive_core::schemars")]
//! struct Greet {
//!     /// Who to greet.
//!     name: String,
//! }
//!
//! struct Greeter;
//! impl TypedTool for Greeter {
//!     type Input = Greet;
//!     fn name(&self) -> &str { "greet" }
//!     fn description(&self) -> &str { "Greets someone." }
//!     async fn call(&self, input: Greet, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
//!         Ok(ToolResult::text(format!("Hello, {}!", input.name)))
//!     }
//! }
//!
//! let tool = Greeter.into_tool();
//! assert_eq!(tool.input_schema()["required"], dive_core::serde_json::json!(["name"]));
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

/// The schemars dive-core derives tool input schemas with (re-exported so a [`TypedTool`]
/// input's `JsonSchema` derive matches it: add `#[schemars(crate = "dive_core::schemars")]`).
pub use schemars;
/// The serde dive-core's types serialize with (re-exported so a [`TypedTool`] input's
/// `Deserialize` derive matches it: add `#[serde(crate = "dive_core::serde")]`).
pub use serde;
/// The serde_json whose `Value` appears throughout the API (tool inputs, metadata, options).
pub use serde_json;

pub mod background;
pub mod cancel;
pub mod capabilities;
pub mod compaction;
pub mod error;
pub mod future;
pub mod hook;
pub mod id;
pub mod llm;
pub mod memory;
pub mod message;
pub mod reminder;
pub mod response;
pub mod run;
pub mod seams;
pub mod secret;
pub mod session;
pub mod session_event;
pub mod session_lock;
pub mod time;
pub mod tool;
pub mod trace;
pub mod turn;

pub use background::{BackgroundTaskCompleter, BackgroundTaskHandle};
pub use cancel::SoftCancel;
pub use capabilities::StoreCapabilities;
pub use compaction::{
    CLEARED_THINKING_TEXT, CLEARED_TOOL_RESULT_TEXT, CarryOver, ClearToolResults, CompactedWindow,
    CompactionError, CompactionRequest, CompactionStrategy, CompactionTrigger, Trim, estimate_tokens,
    join_messages, safe_cuts,
};
pub use error::{BoxError, HookError, LlmError, LlmErrorKind, MemoryError, SessionError};
pub use future::{BoxFuture, BoxStream};
pub use hook::*;
pub use id::new_id;
pub use llm::*;
pub use memory::{
    Embedder, LongTermMemory, MinLength, ScoredRecord, SearchOptions, ShortTermMemory, StoreAlways,
    TEXT_METADATA_KEY, VectorRecord, VectorStore, WritePolicy,
};
pub use message::*;
pub use reminder::{
    Reminder, ReminderDelivery, ReminderStyle, ReminderTier, contains_reminders, find_latest_reminder,
    render_reminders, strip_reminders,
};
pub use response::{
    ModelCallRecord, Response, ResponseItem, ToolCallError, ToolCallErrorKind, ToolCallResult,
};
pub use run::{RunInfo, Values};
pub use seams::{Clock, IdGenerator, RandomIds, Spawner, SystemClock};
pub use secret::{Secret, redact};
pub use session::{
    ListOptions, Session, SessionClaimer, SessionHistory, SessionInfo, SessionPage, SessionSnapshot,
    SessionStore, TurnStore, validate_session_id,
};
pub use session_event::{
    Compaction, ForkOptions, SESSION_DOCUMENT_FORMAT, SESSION_DOCUMENT_VERSION, SessionDocument, SessionEdit,
    SessionEvent,
};
pub use session_lock::{SessionLock, SessionLockGuard, SessionLocks};
pub use time::Timestamp;
pub use tool::*;
pub use trace::{AgentRunSpan, ChatSpan, ChatStart, MultiTracer, NopTracer, ToolCallSpan, Tracer};
pub use turn::{
    CompletedToolCall, ContextSize, NextStep, OUTCOME_REMINDER_NAME, OutcomeReason, PendingToolCall,
    Persistence, SuspensionState, ToolCallRecord, ToolCallState, Turn, TurnOrigin, TurnOutcome, TurnStatus,
    find_turn_outcome, outcome_reminder,
};
