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
//! | [`session_event`] | [`SessionDocument`] (the full record and export format), [`SessionEvent`], [`Compaction`] |
//! | [`reminder`] | typed runtime context for the model |
//! | [`trace`], [`memory`] | [`Tracer`]; [`Embedder`], [`VectorStore`], memories, [`WritePolicy`] |
//! | [`error`] | [`LlmError`], [`SessionError`], [`HookError`], [`MemoryError`] |
#![deny(missing_docs)]

pub mod background;
pub mod cancel;
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
pub mod secret;
pub mod session;
pub mod session_event;
pub mod time;
pub mod tool;
pub mod trace;
pub mod turn;

pub use background::{BackgroundTaskCompleter, BackgroundTaskHandle};
pub use cancel::SoftCancel;
pub use error::{BoxError, HookError, LlmError, LlmErrorKind, MemoryError, SessionError};
pub use future::{BoxFuture, BoxStream};
pub use hook::*;
pub use id::new_id;
pub use llm::*;
pub use memory::{
    Embedder, LongTermMemory, MinLength, ScoredRecord, SearchOptions, ShortTermMemory, StoreAlways,
    VectorRecord, VectorStore, WritePolicy,
};
pub use message::*;
pub use reminder::{
    REMINDER_PRIMING_RULE, Reminder, ReminderDelivery, ReminderStyle, ReminderTier, find_latest_reminder,
    render_reminders, strip_reminders,
};
pub use response::{
    ModelCallRecord, Response, ResponseItem, ToolCallError, ToolCallErrorKind, ToolCallResult,
};
pub use run::{RunInfo, Values};
pub use secret::{Secret, redact};
pub use session::{
    ListOptions, Session, SessionClaimer, SessionHistory, SessionInfo, SessionPage, SessionSnapshot,
    SessionStore, TurnStore, validate_session_id,
};
pub use session_event::{
    Compaction, ForkOptions, SESSION_DOCUMENT_FORMAT, SESSION_DOCUMENT_VERSION, SessionDocument, SessionEdit,
    SessionEvent,
};
pub use time::Timestamp;
pub use tool::*;
pub use trace::{AgentRunSpan, ChatSpan, MultiTracer, NopTracer, ToolCallSpan, Tracer};
pub use turn::{
    CompletedToolCall, NextStep, OUTCOME_REMINDER_NAME, OutcomeReason, PendingToolCall, Persistence,
    SuspensionState, ToolCallRecord, ToolCallState, Turn, TurnOrigin, TurnOutcome, TurnStatus,
    find_turn_outcome, outcome_reminder,
};
