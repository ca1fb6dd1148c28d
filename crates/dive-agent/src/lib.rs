//! The engine of Dive for Rust: [`Agent`], the generation loop, tool execution, hooks,
//! streaming and cancellation, speaking only `dive-core`'s traits (no provider, no store).
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use dive_agent::Agent;
//! use dive_core::{FunctionTool, ModelResponse, ToolUse, ToolError};
//! use dive_test::ScriptedModel;
//! use serde::Deserialize;
//! use schemars::JsonSchema;
//! use serde_json::json;
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Add { a: i64, b: i64 }
//!
//! let add = FunctionTool::new("add", "Adds two integers.", |x: Add, _ctx| async move {
//!     Ok::<_, ToolError>(format!("{}", x.a + x.b))
//! });
//! let model = ScriptedModel::new([
//!     ModelResponse::tool_calls(vec![ToolUse::new("c1", "add", json!({"a": 2, "b": 3}))]),
//!     ModelResponse::text("2 + 3 = 5"),
//! ]);
//! let agent = Agent::builder().model(model).tool(add).build()?;
//! let response = agent.run("What is 2 + 3?").await?;
//! assert_eq!(response.output_text(), "2 + 3 = 5");
//! assert_eq!(response.tool_call_results().next().unwrap().output.as_ref().unwrap().text_content(), "5");
//! # Ok::<_, dive_agent::AgentError>(())
//! # }).unwrap();
//! ```
//!
//! # Runtime
//!
//! Runs need a Tokio runtime with timers: `#[tokio::main]`, or a runtime built with
//! `enable_all()` (the response timeout, tool timeouts and the bounded save are timers). Outside
//! one, or on one without timers, [`Agent::run`] and [`Agent::stream`] fail at once with
//! [`AgentError::Runtime`] instead of panicking; nothing runs and nothing is saved.
//!
//! | Item | What it is |
//! |---|---|
//! | [`Agent`], [`AgentBuilder`] | the agent and every option it takes |
//! | [`RunInput`] | what an invocation does: new input, resume, continue, cancel the suspended turn |
//! | [`RunOptions`] | one invocation: its input, session, values, callbacks, cancellation |
//! | [`ResponseStream`] | a run as a stream of `ResponseItem`s |
//! | [`ModelSettings`] | model options applied to every request |
//! | [`AgentError`], [`TurnError`], [`TurnFailure`] | typed failures, with the turn's response |
//! | [`await_background_tasks`] | waiting for tools' background work |
//! | [`layer`] | tool middleware: per-tool timeout, circuit breaker, rate limit, retry of idempotent tools |

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

mod agent;
mod background;
mod builder;
mod compact_session;
mod compaction;
mod emit;
mod error;
mod input;
pub mod layer;
mod lock;
mod options;
mod outcome;
mod run;
mod runtime;
mod seams;
mod settings;
mod stream;
mod suggest;
mod texts;
mod tracing_tracer;
mod validate;

pub use agent::{Agent, ClaimOptions};
pub use background::await_background_tasks;
pub use builder::{
    AgentBuilder, DEFAULT_PAUSE_TURN_LIMIT, DEFAULT_RESPONSE_TIMEOUT, DEFAULT_SAVE_TIMEOUT,
    DEFAULT_TOOL_ITERATION_LIMIT,
};
pub use compact_session::{CompactSessionError, SessionCompaction};
pub use compaction::{
    Auto, CompactionPolicy, DEFAULT_COMPACTION_THRESHOLD, DEFAULT_SUMMARY_PROMPT, Native, SUMMARY_PREFIX,
    Summarize,
};
pub use error::{AgentError, Rejection, TurnError, TurnFailure};
/// The extension trait that reads a [`ResponseStream`] (`stream.next().await`), re-exported so
/// a caller needs no futures crate of its own.
pub use futures_util::StreamExt;
pub use input::{ResumeRequest, RunInput};
pub use options::{EventCallback, RunOptions};
pub use outcome::outcome_returns_error;
pub use run::TURN_CONTINUE_REMINDER;
pub use seams::TokioSpawner;
pub use settings::ModelSettings;
pub use stream::ResponseStream;
pub use texts::{REMINDER_PRIMING_RULE, TOOL_CALL_NOT_RUN_TEXT};
pub use tokio_util::sync::CancellationToken;
pub use tracing_tracer::TracingTracer;
