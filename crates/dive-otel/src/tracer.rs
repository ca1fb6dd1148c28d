//! `OtelTracer`: dive-core's `Tracer` on the OpenTelemetry API, emitting `invoke_agent`,
//! `chat` and `execute_tool` spans with the GenAI conventions' attributes, and the GenAI
//! client metrics when given a meter.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use dive_core::trace::{AgentRunSpan, ChatSpan, ChatStart, Operation, OperationSpan, ToolCallSpan, Tracer};
use dive_core::{ModelResponse, RunInfo, ToolCallResult, ToolUse, Usage};
use opentelemetry::global::BoxedTracer;
use opentelemetry::metrics::Meter;
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer as _, TracerProvider};
use opentelemetry::{Array, Context, KeyValue, StringValue, Value};

use crate::content::{self, Capture};
use crate::metrics::Metrics;
use crate::semconv::{self, Semconv, operation};

/// The instrumentation scope name of every span and metric this crate emits.
pub const SCOPE: &str = "dive";

/// The trace context a run's `invoke_agent` span starts under, put in the run's values
/// (`RunOptions::with_values`) by whoever starts the run: an incoming W3C `traceparent`
/// ([`crate::propagation::values_from_traceparent`]) or a parent's `execute_tool` span
/// ([`crate::propagation::child_values`]). Without one the span's parent is the caller's
/// current OpenTelemetry context.
#[derive(Debug, Clone)]
pub struct ParentContext(pub Context);

/// Where a run's open spans are, kept in the run's own values (never process-wide): the
/// `invoke_agent` context that `chat` and `execute_tool` spans hang under, and each running
/// tool call's context, by call id, for what the tool starts (a subagent, an MCP or A2A
/// request). Keyed by tracer, so two `OtelTracer`s behind one `MultiTracer` keep their own
/// trees.
#[derive(Clone, Default)]
pub(crate) struct RunSpans(Arc<Mutex<HashMap<usize, RunState>>>);

#[derive(Default)]
struct RunState {
    agent: Option<Context>,
    tools: HashMap<String, Context>,
}

impl RunSpans {
    fn of(run: &RunInfo) -> Self {
        if let Some(spans) = run.values.get::<RunSpans>() {
            return spans;
        }
        let spans = RunSpans::default();
        run.values.insert(spans.clone());
        spans
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<usize, RunState>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn set_agent(&self, tracer: usize, cx: Context) {
        self.lock().entry(tracer).or_default().agent = Some(cx);
    }

    fn agent(&self, tracer: usize) -> Option<Context> {
        self.lock().get(&tracer).and_then(|s| s.agent.clone())
    }

    fn open_tool(&self, tracer: usize, call_id: String, cx: Context) {
        self.lock().entry(tracer).or_default().tools.insert(call_id, cx);
    }

    fn close_tool(&self, tracer: usize, call_id: &str) {
        if let Some(state) = self.lock().get_mut(&tracer) {
            state.tools.remove(call_id);
        }
    }

    /// The run's `invoke_agent` context (of any tracer).
    pub(crate) fn agent_context(&self) -> Option<Context> {
        self.lock().values().find_map(|s| s.agent.clone())
    }

    /// A running call's `execute_tool` context (of any tracer).
    pub(crate) fn tool(run: &RunInfo, call_id: &str) -> Option<Context> {
        run.values
            .get::<RunSpans>()
            .and_then(|s| s.lock().values().find_map(|st| st.tools.get(call_id).cloned()))
    }
}

/// A [`Tracer`] that emits OpenTelemetry GenAI spans (and metrics, with
/// [`OtelTracerBuilder::meter`]) through any OpenTelemetry tracer. It installs nothing global.
///
/// ```
/// use dive_otel::{OtelTracer, semconv::Semconv};
/// use opentelemetry_sdk::trace::SdkTracerProvider;
///
/// let provider = SdkTracerProvider::builder().build();
/// let tracer = OtelTracer::builder(&provider).semconv(Semconv::Latest).build();
/// # let _ = tracer;
/// ```
#[derive(Clone)]
pub struct OtelTracer {
    inner: Arc<Inner>,
}

struct Inner {
    tracer: BoxedTracer,
    semconv: Semconv,
    capture: Capture,
    metrics: Option<Metrics>,
}

impl std::fmt::Debug for OtelTracer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtelTracer")
            .field("semconv", &self.inner.semconv)
            .field("capture", &self.inner.capture)
            .field("metrics", &self.inner.metrics.is_some())
            .finish()
    }
}

/// Builds an [`OtelTracer`].
#[must_use]
pub struct OtelTracerBuilder {
    tracer: BoxedTracer,
    semconv: Semconv,
    capture: Capture,
    meter: Option<Meter>,
}

impl std::fmt::Debug for OtelTracerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtelTracerBuilder")
            .field("semconv", &self.semconv)
            .field("capture", &self.capture)
            .finish()
    }
}

impl OtelTracerBuilder {
    /// Which names to emit (default [`Semconv::V1_36`]; [`Semconv::from_env`] reads
    /// `OTEL_SEMCONV_STABILITY_OPT_IN`).
    pub fn semconv(mut self, semconv: Semconv) -> Self {
        self.semconv = semconv;
        self
    }

    /// What content to capture (default none).
    pub fn capture(mut self, capture: Capture) -> Self {
        self.capture = capture;
        self
    }

    /// Records the GenAI client metrics on this meter.
    pub fn meter(mut self, meter: Meter) -> Self {
        self.meter = Some(meter);
        self
    }

    /// Reads the choices the environment makes: `OTEL_SEMCONV_STABILITY_OPT_IN` and
    /// `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` (`true` captures messages and tool
    /// input/output).
    #[allow(clippy::disallowed_methods)] // a from_env constructor
    pub fn from_env(mut self) -> Self {
        self.semconv = Semconv::from_env();
        let capture = std::env::var(CAPTURE_CONTENT_VAR).is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"));
        if capture {
            self.capture.messages = true;
            self.capture.tool_io = true;
        }
        self
    }

    /// The tracer.
    pub fn build(self) -> OtelTracer {
        let metrics = self.meter.as_ref().map(|m| Metrics::new(m, self.semconv));
        OtelTracer {
            inner: Arc::new(Inner {
                tracer: self.tracer,
                semconv: self.semconv,
                capture: self.capture,
                metrics,
            }),
        }
    }
}

/// The variable [`OtelTracerBuilder::from_env`] reads to capture content.
pub const CAPTURE_CONTENT_VAR: &str = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

impl OtelTracer {
    /// A builder over a tracer provider (the scope is [`SCOPE`], with this crate's version).
    pub fn builder<P>(provider: &P) -> OtelTracerBuilder
    where
        P: TracerProvider,
        P::Tracer: Send + Sync + 'static,
        <P::Tracer as opentelemetry::trace::Tracer>::Span: Send + Sync + 'static,
    {
        let scope = opentelemetry::InstrumentationScope::builder(SCOPE)
            .with_version(env!("CARGO_PKG_VERSION"))
            .build();
        Self::builder_for(provider.tracer_with_scope(scope))
    }

    /// A builder over one OpenTelemetry tracer.
    pub fn builder_for<T>(tracer: T) -> OtelTracerBuilder
    where
        T: opentelemetry::trace::Tracer + Send + Sync + 'static,
        T::Span: Send + Sync + 'static,
    {
        OtelTracerBuilder {
            tracer: BoxedTracer::new(Box::new(tracer)),
            semconv: Semconv::default(),
            capture: Capture::default(),
            meter: None,
        }
    }

    /// This tracer's identity in a run's [`RunSpans`].
    fn key(&self) -> usize {
        Arc::as_ptr(&self.inner).addr()
    }

    pub(crate) fn otel(&self) -> &BoxedTracer {
        &self.inner.tracer
    }

    pub(crate) fn metrics(&self) -> Option<&Metrics> {
        self.inner.metrics.as_ref()
    }

    fn start(&self, name: String, kind: SpanKind, attributes: Vec<KeyValue>, parent: &Context) -> Context {
        let span = self
            .inner
            .tracer
            .span_builder(name)
            .with_kind(kind)
            .with_attributes(attributes)
            .start_with_context(&self.inner.tracer, parent);
        parent.with_span(span)
    }

    fn usage_attributes(&self, usage: &Usage) -> Vec<KeyValue> {
        let s = self.inner.semconv;
        let mut a = vec![
            KeyValue::new(semconv::USAGE_INPUT_TOKENS, to_i64(usage.total_input_tokens())),
            KeyValue::new(semconv::USAGE_OUTPUT_TOKENS, to_i64(usage.output_tokens)),
            KeyValue::new(s.cache_read_tokens(), to_i64(usage.cache_read_input_tokens)),
            KeyValue::new(s.cache_creation_tokens(), to_i64(usage.cache_creation_input_tokens)),
            KeyValue::new(s.reasoning_tokens(), to_i64(usage.reasoning_tokens)),
        ];
        if let Some(cost) = &usage.cost {
            a.push(KeyValue::new(semconv::DIVE_COST_TOTAL, cost.total));
            a.push(KeyValue::new(semconv::DIVE_COST_INPUT, cost.input));
            a.push(KeyValue::new(semconv::DIVE_COST_OUTPUT, cost.output));
            if let Some(source) = &cost.source {
                a.push(KeyValue::new(semconv::DIVE_COST_SOURCE, source.clone()));
            }
        }
        a
    }
}

/// The host and port of a base URL (`https://api.anthropic.com` → `api.anthropic.com`, 443):
/// what `server.address` and `server.port` report.
fn server_of(endpoint: &str) -> Option<(String, u16)> {
    let (scheme, rest) = endpoint.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let default_port = match scheme {
        "https" => 443,
        "http" => 80,
        _ => return None,
    };
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = v6.split_once(']')?;
            (host, after.strip_prefix(':'))
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    let port = match port {
        Some(p) => p.parse().ok()?,
        None => default_port,
    };
    (!host.is_empty()).then(|| (host.to_owned(), port))
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The `error.type` of a failure known only by its message: the conventions ask for a
/// low-cardinality value, so the message goes in the span status instead.
const OTHER_ERROR: &str = "_OTHER";

struct AgentSpan {
    cx: Context,
    tracer: OtelTracer,
}

impl AgentRunSpan for AgentSpan {
    fn set_usage(&mut self, usage: &Usage) {
        self.cx.span().set_attributes(self.tracer.usage_attributes(usage));
    }
    fn set_outcome(&mut self, status: &str, reason: Option<&str>) {
        let span = self.cx.span();
        span.set_attribute(KeyValue::new(semconv::DIVE_TURN_STATUS, status.to_owned()));
        if let Some(reason) = reason {
            span.set_attribute(KeyValue::new(semconv::DIVE_TURN_REASON, reason.to_owned()));
        }
    }
    fn set_error(&mut self, error: &str) {
        failed(&self.cx.span(), error);
    }
    fn end(self: Box<Self>) {
        self.cx.span().end();
    }
}

struct Chat {
    cx: Context,
    tracer: OtelTracer,
    started: Instant,
    metric_attrs: Vec<KeyValue>,
    error: Option<String>,
    tokens: Option<(u64, u64)>,
    /// Whether the span is named by the requested model.
    named: bool,
}

impl ChatSpan for Chat {
    fn set_response(&mut self, response: &ModelResponse) {
        let inner = &self.tracer.inner;
        let span = self.cx.span();
        if !response.model.is_empty() {
            if !self.named {
                // The engine did not say which model it asked for (the agent's default model):
                // name the span by the model that answered rather than leave it bare.
                span.update_name(format!("{} {}", operation::CHAT, response.model));
            }
            span.set_attribute(KeyValue::new(semconv::RESPONSE_MODEL, response.model.clone()));
            self.metric_attrs.push(KeyValue::new(semconv::RESPONSE_MODEL, response.model.clone()));
        }
        if !response.id.is_empty() {
            span.set_attribute(KeyValue::new(semconv::RESPONSE_ID, response.id.clone()));
        }
        if !response.stop_reason.is_empty() {
            let reasons = Array::String(vec![StringValue::from(response.stop_reason.clone())]);
            span.set_attribute(KeyValue::new(semconv::RESPONSE_FINISH_REASONS, Value::Array(reasons)));
        }
        span.set_attributes(self.tracer.usage_attributes(&response.usage));
        self.tokens = Some((response.usage.total_input_tokens(), response.usage.output_tokens));
        if inner.capture.messages {
            let reason = (!response.stop_reason.is_empty()).then_some(response.stop_reason.as_str());
            let json = content::output_json(&response.content, reason);
            span.set_attribute(KeyValue::new(semconv::OUTPUT_MESSAGES, inner.capture.cap(json)));
        }
    }
    fn set_time_to_first_event(&mut self, elapsed: std::time::Duration) {
        let inner = &self.tracer.inner;
        let seconds = elapsed.as_secs_f64();
        self.cx.span().set_attribute(KeyValue::new(inner.semconv.time_to_first_chunk(), seconds));
        if let Some(m) = &inner.metrics {
            m.first_chunk(&self.metric_attrs, seconds);
        }
    }
    fn set_error(&mut self, error: &str) {
        failed(&self.cx.span(), error);
        self.error = Some(OTHER_ERROR.to_owned());
    }
    fn end(self: Box<Self>) {
        if let Some(m) = &self.tracer.inner.metrics {
            m.chat(
                &self.metric_attrs,
                self.started.elapsed().as_secs_f64(),
                self.error.as_deref(),
                self.tokens,
            );
        }
        self.cx.span().end();
    }
}

struct Tool {
    cx: Context,
    tracer: OtelTracer,
    started: Instant,
    call_id: String,
    name: String,
    spans: RunSpans,
    error: Option<String>,
}

impl ToolCallSpan for Tool {
    fn set_result(&mut self, result: &ToolCallResult) {
        let inner = &self.tracer.inner;
        let span = self.cx.span();
        let error = match (&result.error, &result.output) {
            (Some(e), _) => Some((serde_kind(&e.kind), e.message.clone())),
            (None, Some(o)) if o.is_error => Some(("tool_error".to_owned(), o.text_content())),
            _ => None,
        };
        if let Some((kind, message)) = error {
            let message = inner.capture.cap(message);
            span.set_attribute(KeyValue::new(semconv::ERROR_TYPE, kind.clone()));
            span.set_status(Status::error(message.clone()));
            exception(&span, &kind, message);
            self.error = Some(kind);
        }
        if let Some(output) = &result.output {
            for (key, value) in &output.span_attributes {
                span.set_attribute(KeyValue::new(*key, otel_value(value)));
            }
        }
        if inner.capture.tool_io
            && let Some(output) = &result.output
        {
            span.set_attribute(KeyValue::new(
                semconv::TOOL_CALL_RESULT,
                inner.capture.cap(output.text_content()),
            ));
        }
    }
    fn end(self: Box<Self>) {
        self.spans.close_tool(self.tracer.key(), &self.call_id);
        if let Some(m) = &self.tracer.inner.metrics {
            let mut attrs = vec![
                KeyValue::new(semconv::OPERATION_NAME, operation::EXECUTE_TOOL),
                KeyValue::new(semconv::TOOL_NAME, self.name.clone()),
            ];
            if let Some(e) = &self.error {
                attrs.push(KeyValue::new(semconv::ERROR_TYPE, e.clone()));
            }
            m.tool(&attrs, self.started.elapsed().as_secs_f64());
        }
        self.cx.span().end();
    }
}

/// A JSON value as an attribute value: strings, booleans and numbers as themselves, anything
/// else as its JSON text.
fn otel_value(value: &serde_json::Value) -> Value {
    match value {
        serde_json::Value::String(s) => Value::from(s.clone()),
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => {
            n.as_i64().map_or_else(|| Value::F64(n.as_f64().unwrap_or(f64::NAN)), Value::I64)
        }
        other => Value::from(other.to_string()),
    }
}

/// Marks a span failed by a message alone: `error.type=_OTHER`, the message as its status and
/// an `exception` event.
fn failed(span: &opentelemetry::trace::SpanRef<'_>, error: &str) {
    span.set_attribute(KeyValue::new(semconv::ERROR_TYPE, OTHER_ERROR));
    span.set_status(Status::error(error.to_owned()));
    exception(span, OTHER_ERROR, error.to_owned());
}

/// The conventions' `exception` event: what failed, as an event a backend lists with the span.
fn exception(span: &opentelemetry::trace::SpanRef<'_>, kind: &str, message: String) {
    span.add_event(
        semconv::EXCEPTION_EVENT,
        vec![
            KeyValue::new(semconv::EXCEPTION_TYPE, kind.to_owned()),
            KeyValue::new(semconv::EXCEPTION_MESSAGE, message),
        ],
    );
}

fn serde_kind<T: dive_core::serde::Serialize>(kind: &T) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| OTHER_ERROR.to_owned())
}

/// A memory search or write under the run's `invoke_agent` span.
struct Op {
    cx: Context,
}

impl OperationSpan for Op {
    fn set_count(&mut self, count: usize) {
        self.cx.span().set_attribute(KeyValue::new(
            semconv::DIVE_OPERATION_COUNT,
            i64::try_from(count).unwrap_or(i64::MAX),
        ));
    }
    fn set_error(&mut self, error: &str) {
        failed(&self.cx.span(), error);
    }
    fn end(self: Box<Self>) {
        self.cx.span().end();
    }
}

impl Tracer for OtelTracer {
    fn start_operation(&self, run: &RunInfo, operation: &Operation<'_>) -> Box<dyn OperationSpan> {
        let parent = RunSpans::of(run).agent(self.key()).unwrap_or_else(Context::current);
        let mut attributes = vec![KeyValue::new(semconv::OPERATION_NAME, operation.name.to_owned())];
        let name = match operation.target {
            Some(target) => {
                attributes.push(KeyValue::new(semconv::DATA_SOURCE_ID, target.to_owned()));
                format!("{} {target}", operation.name)
            }
            None => operation.name.to_owned(),
        };
        Box::new(Op { cx: self.start(name, SpanKind::Internal, attributes, &parent) })
    }

    fn start_agent_run(&self, run: &RunInfo) -> Box<dyn AgentRunSpan> {
        let parent = run.values.get::<ParentContext>().map_or_else(Context::current, |p| p.0);
        let mut attributes = vec![
            KeyValue::new(semconv::OPERATION_NAME, operation::INVOKE_AGENT),
            KeyValue::new(semconv::AGENT_NAME, run.agent_name.to_string()),
        ];
        if let Some(id) = &run.agent_id {
            attributes.push(KeyValue::new(semconv::AGENT_ID, id.to_string()));
        }
        if let Some(id) = &run.session_id {
            attributes.push(KeyValue::new(semconv::CONVERSATION_ID, id.to_string()));
        }
        if let Some(id) = &run.turn_id {
            attributes.push(KeyValue::new(semconv::DIVE_TURN_ID, id.to_string()));
        }
        let cx = self.start(
            format!("{} {}", operation::INVOKE_AGENT, run.agent_name),
            SpanKind::Internal,
            attributes,
            &parent,
        );
        RunSpans::of(run).set_agent(self.key(), cx.clone());
        Box::new(AgentSpan { cx, tracer: self.clone() })
    }

    fn start_chat(&self, run: &RunInfo, chat: &ChatStart<'_>) -> Box<dyn ChatSpan> {
        let (provider, request, streaming) = (chat.provider, chat.request, chat.streaming);
        let inner = &self.inner;
        let parent = RunSpans::of(run).agent(self.key()).unwrap_or_else(Context::current);
        let model = request.model.clone().unwrap_or_default();
        let mut metric_attrs = vec![
            KeyValue::new(semconv::OPERATION_NAME, operation::CHAT),
            KeyValue::new(inner.semconv.provider(), provider.to_owned()),
        ];
        if !model.is_empty() {
            metric_attrs.push(KeyValue::new(semconv::REQUEST_MODEL, model.clone()));
        }
        if let Some((host, port)) = chat.endpoint.and_then(server_of) {
            metric_attrs.push(KeyValue::new(semconv::SERVER_ADDRESS, host));
            metric_attrs.push(KeyValue::new(semconv::SERVER_PORT, i64::from(port)));
        }
        let mut attributes = metric_attrs.clone();
        if let Some(n) = request.max_tokens {
            attributes.push(KeyValue::new(semconv::REQUEST_MAX_TOKENS, i64::from(n)));
        }
        if let Some(t) = request.temperature {
            attributes.push(KeyValue::new(semconv::REQUEST_TEMPERATURE, t));
        }
        if let Some(p) = request.top_p {
            attributes.push(KeyValue::new(semconv::REQUEST_TOP_P, p));
        }
        if inner.semconv.has_request_stream() {
            attributes.push(KeyValue::new(semconv::REQUEST_STREAM, streaming));
        }
        if inner.capture.messages {
            if let Some(system) = &request.system {
                attributes.push(KeyValue::new(
                    semconv::SYSTEM_INSTRUCTIONS,
                    inner.capture.cap(content::system_json(system)),
                ));
            }
            let json = content::messages_json(&request.messages);
            attributes.push(KeyValue::new(semconv::INPUT_MESSAGES, inner.capture.cap(json)));
        }
        let name = if model.is_empty() {
            operation::CHAT.to_owned()
        } else {
            format!("{} {model}", operation::CHAT)
        };
        let cx = self.start(name, SpanKind::Client, attributes, &parent);
        Box::new(Chat {
            cx,
            tracer: self.clone(),
            started: Instant::now(),
            metric_attrs,
            error: None,
            tokens: None,
            named: !model.is_empty(),
        })
    }

    fn start_tool_call(&self, run: &RunInfo, call: &ToolUse) -> Box<dyn ToolCallSpan> {
        let inner = &self.inner;
        let spans = RunSpans::of(run);
        let parent = spans.agent(self.key()).unwrap_or_else(Context::current);
        let mut attributes = vec![
            KeyValue::new(semconv::OPERATION_NAME, operation::EXECUTE_TOOL),
            KeyValue::new(semconv::TOOL_NAME, call.name.clone()),
            KeyValue::new(semconv::TOOL_CALL_ID, call.id.clone()),
            KeyValue::new(semconv::TOOL_TYPE, "function"),
        ];
        if inner.capture.tool_io {
            attributes
                .push(KeyValue::new(semconv::TOOL_CALL_ARGUMENTS, inner.capture.cap(call.input.to_string())));
        }
        let cx = self.start(
            format!("{} {}", operation::EXECUTE_TOOL, call.name),
            SpanKind::Internal,
            attributes,
            &parent,
        );
        spans.open_tool(self.key(), call.id.clone(), cx.clone());
        Box::new(Tool {
            cx,
            tracer: self.clone(),
            started: Instant::now(),
            call_id: call.id.clone(),
            name: call.name.clone(),
            spans,
            error: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::server_of;

    #[test]
    fn the_server_of_a_base_url() {
        assert_eq!(server_of("https://api.anthropic.com"), Some(("api.anthropic.com".into(), 443)));
        assert_eq!(server_of("http://127.0.0.1:8080/v1"), Some(("127.0.0.1".into(), 8080)));
        assert_eq!(server_of("http://[::1]:11434"), Some(("::1".into(), 11434)));
        assert_eq!(server_of("https://user:secret@host.example/v1"), Some(("host.example".into(), 443)));
        assert_eq!(server_of("not a url"), None);
        assert_eq!(server_of("http://host:notaport"), None);
    }
}
