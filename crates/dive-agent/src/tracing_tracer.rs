//! [`TracingTracer`]: the engine's runs, model calls, tool calls and operations as spans of
//! the `tracing` crate, for applications that log with `tracing` and want no OpenTelemetry.

use dive_core::trace::{AgentRunSpan, ChatSpan, ChatStart, Operation, OperationSpan, ToolCallSpan, Tracer};
use dive_core::{ModelResponse, RunInfo, ToolCallResult, ToolUse, Usage};
use tracing::Span;
use tracing::field::Empty;

/// The spans `tracing` subscribers see, under target `dive`: `invoke_agent` (fields `agent`,
/// `session`, `turn`, then `input_tokens`, `output_tokens`, `status`, `reason`, `error`),
/// `chat` (`provider`, `model`, `streaming`, then `response_model`, `stop_reason`, tokens,
/// `error`), `execute_tool` (`tool`, `call_id`, then `error`) and `operation` (`name`,
/// `target`, then `count`, `error`); model calls, tool calls and operations are children of
/// their run's span. With no subscriber interested the spans cost next to nothing.
///
/// ```
/// use dive_agent::{Agent, TracingTracer};
/// use dive_test::TestModel;
/// let agent = Agent::builder().model(TestModel::new()).tracer(TracingTracer).build().unwrap();
/// # drop(agent);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingTracer;

/// A run's `invoke_agent` span, kept in its values so its children find their parent.
#[derive(Clone)]
struct RunSpan(Span);

fn parent(run: &RunInfo) -> Span {
    run.values.get::<RunSpan>().map_or_else(Span::current, |s| s.0)
}

struct Run(Span);
struct Chat(Span);
struct Call(Span);
struct Op(Span);

impl AgentRunSpan for Run {
    fn set_usage(&mut self, usage: &Usage) {
        self.0.record("input_tokens", usage.total_input_tokens());
        self.0.record("output_tokens", usage.output_tokens);
    }
    fn set_outcome(&mut self, status: &str, reason: Option<&str>) {
        self.0.record("status", status);
        if let Some(reason) = reason {
            self.0.record("reason", reason);
        }
    }
    fn set_error(&mut self, error: &str) {
        self.0.record("error", error);
    }
}

impl ChatSpan for Chat {
    fn set_response(&mut self, response: &ModelResponse) {
        self.0.record("response_model", response.model.as_str());
        self.0.record("stop_reason", response.stop_reason.as_str());
        self.0.record("input_tokens", response.usage.total_input_tokens());
        self.0.record("output_tokens", response.usage.output_tokens);
    }
    fn set_error(&mut self, error: &str) {
        self.0.record("error", error);
    }
}

impl ToolCallSpan for Call {
    fn set_result(&mut self, result: &ToolCallResult) {
        if let Some(error) = &result.error {
            self.0.record("error", error.message.as_str());
        } else if let Some(output) = result.output.as_ref().filter(|o| o.is_error) {
            self.0.record("error", output.text_content().as_str());
        }
    }
}

impl OperationSpan for Op {
    fn set_count(&mut self, count: usize) {
        self.0.record("count", count);
    }
    fn set_error(&mut self, error: &str) {
        self.0.record("error", error);
    }
}

impl Tracer for TracingTracer {
    fn start_agent_run(&self, run: &RunInfo) -> Box<dyn AgentRunSpan> {
        let span = tracing::info_span!(
            target: "dive",
            "invoke_agent",
            agent = %run.agent_name,
            session = run.session_id.as_deref(),
            turn = run.turn_id.as_deref(),
            input_tokens = Empty,
            output_tokens = Empty,
            status = Empty,
            reason = Empty,
            error = Empty,
        );
        run.values.insert(RunSpan(span.clone()));
        Box::new(Run(span))
    }

    fn start_chat(&self, run: &RunInfo, chat: &ChatStart<'_>) -> Box<dyn ChatSpan> {
        let span = tracing::info_span!(
            target: "dive",
            parent: &parent(run),
            "chat",
            provider = chat.provider,
            model = chat.request.model.as_deref(),
            streaming = chat.streaming,
            response_model = Empty,
            stop_reason = Empty,
            input_tokens = Empty,
            output_tokens = Empty,
            error = Empty,
        );
        Box::new(Chat(span))
    }

    fn start_tool_call(&self, run: &RunInfo, call: &ToolUse) -> Box<dyn ToolCallSpan> {
        let span = tracing::info_span!(
            target: "dive",
            parent: &parent(run),
            "execute_tool",
            tool = call.name.as_str(),
            call_id = call.id.as_str(),
            error = Empty,
        );
        Box::new(Call(span))
    }

    fn start_operation(&self, run: &RunInfo, operation: &Operation<'_>) -> Box<dyn OperationSpan> {
        let span = tracing::info_span!(
            target: "dive",
            parent: &parent(run),
            "operation",
            name = operation.name,
            target = operation.target,
            count = Empty,
            error = Empty,
        );
        Box::new(Op(span))
    }
}
