//! Tracing: the [`Tracer`] trait the engine calls around runs, model calls and tool calls.
//! `dive-otel` implements it with OpenTelemetry GenAI conventions; [`NopTracer`] does nothing;
//! [`MultiTracer`] fans out.

use std::sync::Arc;

use crate::llm::{ModelRequest, ModelResponse, Usage};
use crate::message::ToolUse;
use crate::response::ToolCallResult;
use crate::run::RunInfo;

/// Names of the span attributes a tool reports through
/// [`ToolOutput::with_span_attribute`](crate::ToolOutput::with_span_attribute) (the
/// OpenTelemetry conventions' names; every tracer sees the same ones).
pub mod attributes {
    /// `gen_ai.skill.name`: the skill a call loaded.
    pub const SKILL_NAME: &str = "gen_ai.skill.name";
    /// `gen_ai.skill.description`.
    pub const SKILL_DESCRIPTION: &str = "gen_ai.skill.description";
    /// `gen_ai.skill.source.uri`: where the skill came from (`file:///…/SKILL.md`).
    pub const SKILL_SOURCE_URI: &str = "gen_ai.skill.source.uri";
    /// `gen_ai.skill.resource.name`: a file of the skill a call read.
    pub const SKILL_RESOURCE_NAME: &str = "gen_ai.skill.resource.name";
    /// `process.executable.name`: the program a call ran.
    pub const PROCESS_EXECUTABLE_NAME: &str = "process.executable.name";
    /// `process.exit.code`: how it exited.
    pub const PROCESS_EXIT_CODE: &str = "process.exit.code";
}

/// A span around one agent invocation.
pub trait AgentRunSpan: Send {
    /// Records the final usage.
    fn set_usage(&mut self, _usage: &Usage) {}
    /// Records the turn status and outcome reason.
    fn set_outcome(&mut self, _status: &str, _reason: Option<&str>) {}
    /// Records an error.
    fn set_error(&mut self, _error: &str) {}
    /// Ends the span.
    fn end(self: Box<Self>) {}
}

/// A span around one model call.
pub trait ChatSpan: Send {
    /// Records the response.
    fn set_response(&mut self, _response: &ModelResponse) {}
    /// Records time to the first stream event.
    fn set_time_to_first_event(&mut self, _elapsed: std::time::Duration) {}
    /// Records an error.
    fn set_error(&mut self, _error: &str) {}
    /// Ends the span.
    fn end(self: Box<Self>) {}
}

/// A span around one tool call.
pub trait ToolCallSpan: Send {
    /// Records the result.
    fn set_result(&mut self, _result: &ToolCallResult) {}
    /// Ends the span.
    fn end(self: Box<Self>) {}
}

/// What a model call is, as it starts: enough for a tracer to set every attribute the
/// conventions want at span start (provider, model, server address and port, …).
///
/// ```
/// use dive_core::{ChatStart, ModelRequest};
/// let request = ModelRequest::default();
/// let chat = ChatStart::new("anthropic", &request).with_endpoint(Some("https://api.anthropic.com")).with_streaming(true);
/// assert_eq!(chat.endpoint, Some("https://api.anthropic.com"));
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ChatStart<'a> {
    /// Provider name, e.g. `anthropic`.
    pub provider: &'a str,
    /// The provider's base URL, when it has one ([`Llm::endpoint`](crate::Llm::endpoint)).
    pub endpoint: Option<&'a str>,
    /// The request as it will be sent (the model always named).
    pub request: &'a ModelRequest,
    /// Whether the call streams.
    pub streaming: bool,
}

impl<'a> ChatStart<'a> {
    /// A call to `provider` with `request`, no endpoint known, not streaming.
    #[must_use]
    pub fn new(provider: &'a str, request: &'a ModelRequest) -> Self {
        Self { provider, endpoint: None, request, streaming: false }
    }

    /// Sets the endpoint.
    #[must_use]
    pub fn with_endpoint(mut self, endpoint: Option<&'a str>) -> Self {
        self.endpoint = endpoint;
        self
    }

    /// Sets whether the call streams.
    #[must_use]
    pub fn with_streaming(mut self, streaming: bool) -> Self {
        self.streaming = streaming;
        self
    }
}

/// `gen_ai.operation.name` values of the operations code other than the engine reports
/// through [`start_operation`] (the OpenTelemetry conventions' memory operations).
pub mod operations {
    /// A memory store searched (a long-term recall).
    pub const SEARCH_MEMORY: &str = "search_memory";
    /// Memories written or replaced.
    pub const UPSERT_MEMORY: &str = "upsert_memory";
    /// Memories deleted.
    pub const DELETE_MEMORY: &str = "delete_memory";
    /// Text turned into vectors.
    pub const EMBEDDINGS: &str = "embeddings";
}

/// An operation inside a run that is neither a model call nor a tool call: a memory search,
/// a memory write. `name` is the conventions' operation name ([`operations`]).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Operation<'a> {
    /// The operation, e.g. [`operations::SEARCH_MEMORY`].
    pub name: &'a str,
    /// What it works on, e.g. the memory store's name.
    pub target: Option<&'a str>,
}

impl<'a> Operation<'a> {
    /// An operation on `target`.
    #[must_use]
    pub fn new(name: &'a str, target: Option<&'a str>) -> Self {
        Self { name, target }
    }
}

/// A span around one [`Operation`].
pub trait OperationSpan: Send {
    /// How many items it found or wrote.
    fn set_count(&mut self, _count: usize) {}
    /// The operation failed.
    fn set_error(&mut self, _error: &str) {}
    /// Ends the span.
    fn end(self: Box<Self>) {}
}

/// The tracer of a run, kept in its values by the engine when the agent has one, so code that
/// holds the run's [`RunInfo`] (hooks, extensions, tools) can report operations.
#[derive(Clone)]
pub struct RunTracer(pub Arc<dyn Tracer>);

impl std::fmt::Debug for RunTracer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RunTracer(..)")
    }
}

/// Starts a span for `operation` on the run's tracer; one that records nothing when the run
/// is not traced (no allocation then).
///
/// ```
/// use dive_core::RunInfo;
/// use dive_core::trace::{Operation, operations, start_operation};
/// let run = RunInfo::detached();
/// let mut span = start_operation(&run, &Operation::new(operations::SEARCH_MEMORY, Some("notes")));
/// span.set_count(3);
/// span.end();
/// ```
#[must_use]
pub fn start_operation(run: &RunInfo, operation: &Operation<'_>) -> Box<dyn OperationSpan> {
    match run.values.get::<RunTracer>() {
        Some(RunTracer(tracer)) => tracer.start_operation(run, operation),
        None => Box::new(Nop),
    }
}

/// Starts spans. Implementations must not block.
pub trait Tracer: Send + Sync {
    /// A run starts.
    fn start_agent_run(&self, run: &RunInfo) -> Box<dyn AgentRunSpan>;
    /// A model call starts.
    fn start_chat(&self, run: &RunInfo, chat: &ChatStart<'_>) -> Box<dyn ChatSpan>;
    /// A tool call starts.
    fn start_tool_call(&self, run: &RunInfo, call: &ToolUse) -> Box<dyn ToolCallSpan>;
    /// Another operation of the run starts (see [`start_operation`]). The default records
    /// nothing.
    fn start_operation(&self, _run: &RunInfo, _operation: &Operation<'_>) -> Box<dyn OperationSpan> {
        Box::new(Nop)
    }
    /// Whether this tracer records anything: the engine skips work for one that does not.
    fn enabled(&self) -> bool {
        true
    }
}

/// A tracer shared through an `Arc` is a tracer itself.
impl<T: Tracer + ?Sized> Tracer for std::sync::Arc<T> {
    fn start_agent_run(&self, run: &RunInfo) -> Box<dyn AgentRunSpan> {
        (**self).start_agent_run(run)
    }
    fn start_chat(&self, run: &RunInfo, chat: &ChatStart<'_>) -> Box<dyn ChatSpan> {
        (**self).start_chat(run, chat)
    }
    fn start_tool_call(&self, run: &RunInfo, call: &ToolUse) -> Box<dyn ToolCallSpan> {
        (**self).start_tool_call(run, call)
    }
    fn start_operation(&self, run: &RunInfo, operation: &Operation<'_>) -> Box<dyn OperationSpan> {
        (**self).start_operation(run, operation)
    }
    fn enabled(&self) -> bool {
        (**self).enabled()
    }
}

struct Nop;
impl AgentRunSpan for Nop {}
impl ChatSpan for Nop {}
impl ToolCallSpan for Nop {}
impl OperationSpan for Nop {}

/// A tracer that records nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NopTracer;

impl Tracer for NopTracer {
    fn start_agent_run(&self, _run: &RunInfo) -> Box<dyn AgentRunSpan> {
        Box::new(Nop)
    }
    fn start_chat(&self, _: &RunInfo, _: &ChatStart<'_>) -> Box<dyn ChatSpan> {
        Box::new(Nop)
    }
    fn start_tool_call(&self, _run: &RunInfo, _call: &ToolUse) -> Box<dyn ToolCallSpan> {
        Box::new(Nop)
    }
    fn enabled(&self) -> bool {
        false
    }
}

/// Sends every span to several tracers.
#[derive(Clone, Default)]
pub struct MultiTracer(Vec<Arc<dyn Tracer>>);

impl std::fmt::Debug for MultiTracer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("MultiTracer").field(&self.0.len()).finish()
    }
}

impl MultiTracer {
    /// Fans out to these tracers.
    #[must_use]
    pub fn new(tracers: Vec<Arc<dyn Tracer>>) -> Self {
        Self(tracers)
    }
}

struct Many<T: ?Sized>(Vec<Box<T>>);

impl AgentRunSpan for Many<dyn AgentRunSpan> {
    fn set_usage(&mut self, usage: &Usage) {
        self.0.iter_mut().for_each(|s| s.set_usage(usage));
    }
    fn set_outcome(&mut self, status: &str, reason: Option<&str>) {
        self.0.iter_mut().for_each(|s| s.set_outcome(status, reason));
    }
    fn set_error(&mut self, error: &str) {
        self.0.iter_mut().for_each(|s| s.set_error(error));
    }
    fn end(self: Box<Self>) {
        self.0.into_iter().for_each(AgentRunSpan::end);
    }
}

impl ChatSpan for Many<dyn ChatSpan> {
    fn set_response(&mut self, response: &ModelResponse) {
        self.0.iter_mut().for_each(|s| s.set_response(response));
    }
    fn set_time_to_first_event(&mut self, elapsed: std::time::Duration) {
        self.0.iter_mut().for_each(|s| s.set_time_to_first_event(elapsed));
    }
    fn set_error(&mut self, error: &str) {
        self.0.iter_mut().for_each(|s| s.set_error(error));
    }
    fn end(self: Box<Self>) {
        self.0.into_iter().for_each(ChatSpan::end);
    }
}

impl ToolCallSpan for Many<dyn ToolCallSpan> {
    fn set_result(&mut self, result: &ToolCallResult) {
        self.0.iter_mut().for_each(|s| s.set_result(result));
    }
    fn end(self: Box<Self>) {
        self.0.into_iter().for_each(ToolCallSpan::end);
    }
}

impl Tracer for MultiTracer {
    fn start_agent_run(&self, run: &RunInfo) -> Box<dyn AgentRunSpan> {
        Box::new(Many(self.0.iter().map(|t| t.start_agent_run(run)).collect()))
    }
    fn start_chat(&self, run: &RunInfo, chat: &ChatStart<'_>) -> Box<dyn ChatSpan> {
        Box::new(Many(self.0.iter().map(|t| t.start_chat(run, chat)).collect()))
    }
    fn start_tool_call(&self, run: &RunInfo, call: &ToolUse) -> Box<dyn ToolCallSpan> {
        Box::new(Many(self.0.iter().map(|t| t.start_tool_call(run, call)).collect()))
    }
    fn start_operation(&self, run: &RunInfo, operation: &Operation<'_>) -> Box<dyn OperationSpan> {
        Box::new(Many(self.0.iter().map(|t| t.start_operation(run, operation)).collect()))
    }
    fn enabled(&self) -> bool {
        self.0.iter().any(|t| t.enabled())
    }
}

impl OperationSpan for Many<dyn OperationSpan> {
    fn set_count(&mut self, count: usize) {
        self.0.iter_mut().for_each(|s| s.set_count(count));
    }
    fn set_error(&mut self, error: &str) {
        self.0.iter_mut().for_each(|s| s.set_error(error));
    }
    fn end(self: Box<Self>) {
        self.0.into_iter().for_each(OperationSpan::end);
    }
}
