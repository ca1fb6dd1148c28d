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

/// Starts spans. Implementations must not block.
pub trait Tracer: Send + Sync {
    /// A run starts.
    fn start_agent_run(&self, run: &RunInfo) -> Box<dyn AgentRunSpan>;
    /// A model call starts.
    fn start_chat(&self, run: &RunInfo, chat: &ChatStart<'_>) -> Box<dyn ChatSpan>;
    /// A tool call starts.
    fn start_tool_call(&self, run: &RunInfo, call: &ToolUse) -> Box<dyn ToolCallSpan>;
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
}

struct Nop;
impl AgentRunSpan for Nop {}
impl ChatSpan for Nop {}
impl ToolCallSpan for Nop {}

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
}
