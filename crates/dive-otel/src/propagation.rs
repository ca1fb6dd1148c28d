//! W3C trace context across process and agent boundaries: the `traceparent` of a running tool
//! call (for an MCP `_meta.traceparent` or an A2A request's headers), a run's values started
//! under an incoming `traceparent`, and a subagent's values under its parent's `execute_tool`.

use std::collections::HashMap;

use dive_core::tool::ToolContext;
use dive_core::{RunInfo, Values};
use opentelemetry::Context;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::TraceContextPropagator;

use crate::tracer::{ParentContext, RunSpans};

/// The W3C `traceparent` header name.
pub const TRACEPARENT: &str = "traceparent";
/// The W3C `tracestate` header name.
pub const TRACESTATE: &str = "tracestate";

/// The W3C headers (`traceparent`, and `tracestate` when there is one) of a context; empty
/// when the context holds no valid span.
#[must_use]
pub fn inject(cx: &Context) -> HashMap<String, String> {
    let mut headers = HashMap::new();
    TraceContextPropagator::new().inject_context(cx, &mut headers);
    headers
}

/// The `traceparent` of a context, if it holds a valid span.
#[must_use]
pub fn traceparent(cx: &Context) -> Option<String> {
    inject(cx).remove(TRACEPARENT)
}

/// A context continuing the trace these W3C headers name (a remote parent); the empty context
/// when `traceparent` is missing or malformed.
#[must_use]
pub fn extract(headers: &HashMap<String, String>) -> Context {
    TraceContextPropagator::new().extract(headers)
}

/// A context continuing the trace of one `traceparent` (and optional `tracestate`).
#[must_use]
pub fn context_from_traceparent(traceparent: &str, tracestate: Option<&str>) -> Context {
    let mut headers = HashMap::from([(TRACEPARENT.to_owned(), traceparent.to_owned())]);
    if let Some(state) = tracestate {
        headers.insert(TRACESTATE.to_owned(), state.to_owned());
    }
    extract(&headers)
}

/// Whether a context carries a valid span (remote or local).
#[must_use]
pub fn is_traced(cx: &Context) -> bool {
    cx.span().span_context().is_valid()
}

/// Values for a run (`RunOptions::with_values`) whose `invoke_agent` span continues an
/// incoming request's trace: a served A2A task or MCP call.
#[must_use]
pub fn values_from_traceparent(traceparent: &str, tracestate: Option<&str>) -> Values {
    values_under(context_from_traceparent(traceparent, tracestate))
}

/// Values for a run whose `invoke_agent` span is a child of `parent`.
#[must_use]
pub fn values_under(parent: Context) -> Values {
    let values = Values::new();
    values.insert(ParentContext(parent));
    values
}

/// The context of the `execute_tool` span of the call a tool is running, when an
/// [`crate::OtelTracer`] traces the run.
#[must_use]
pub fn tool_context(ctx: &ToolContext) -> Option<Context> {
    RunSpans::tool(&ctx.run, &ctx.call_id)
}

/// The `traceparent` of the running tool call's `execute_tool` span: what an MCP request's
/// `_meta.traceparent` or an A2A request's header carries.
#[must_use]
pub fn tool_traceparent(ctx: &ToolContext) -> Option<String> {
    tool_context(ctx).and_then(|cx| traceparent(&cx))
}

/// Values for a subagent run started by a tool: its `invoke_agent` span becomes a child of
/// the tool call's `execute_tool` span. Without a traced parent the values are empty.
#[must_use]
pub fn child_values(ctx: &ToolContext) -> Values {
    tool_context(ctx).map_or_else(Values::new, values_under)
}

/// The `traceparent` of a run's `invoke_agent` span, for code that holds the run's
/// [`RunInfo`] (hooks, toolsets).
#[must_use]
pub fn run_traceparent(run: &RunInfo) -> Option<String> {
    run.values.get::<RunSpans>().and_then(|s| s.agent_context()).and_then(|cx| traceparent(&cx))
}
