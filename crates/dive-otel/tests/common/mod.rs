//! Shared scaffolding for dive-otel's tests: an SDK provider on the in-memory exporters, a
//! real agent on a scripted model with tools, and span lookups.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use dive_agent::Agent;
use dive_core::{FunctionTool, ModelResponse, Tool, ToolError, ToolResult, ToolUse, Usage};
use dive_otel::OtelTracerBuilder;
use dive_otel::opentelemetry::metrics::MeterProvider as _;
use dive_otel::opentelemetry::{KeyValue, Value};
use dive_otel::opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use dive_otel::opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use dive_test::ScriptedModel;
use serde_json::{Value as Json, json};

/// A tracer provider and a meter provider on in-memory exporters.
pub struct Sdk {
    pub spans: InMemorySpanExporter,
    pub metrics: InMemoryMetricExporter,
    pub tracer_provider: SdkTracerProvider,
    pub meter_provider: SdkMeterProvider,
}

impl Sdk {
    pub fn new() -> Self {
        let spans = InMemorySpanExporter::default();
        let metrics = InMemoryMetricExporter::default();
        let tracer_provider = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
        let meter_provider =
            SdkMeterProvider::builder().with_reader(PeriodicReader::builder(metrics.clone()).build()).build();
        Self { spans, metrics, tracer_provider, meter_provider }
    }

    /// An `OtelTracer` builder on both providers.
    pub fn tracer(&self) -> OtelTracerBuilder {
        dive_otel::OtelTracer::builder(&self.tracer_provider).meter(self.meter_provider.meter("dive"))
    }

    pub fn finished(&self) -> Vec<SpanData> {
        self.spans.get_finished_spans().unwrap()
    }
}

/// A response calling these tools.
pub fn calls(list: &[(&str, &str, Json)]) -> ModelResponse {
    ModelResponse::tool_calls(
        list.iter().map(|(id, name, input)| ToolUse::new(*id, *name, input.clone())).collect(),
    )
}

/// `echo`: returns its `text`.
pub fn echo() -> Arc<dyn Tool> {
    Arc::new(
        FunctionTool::new("echo", "Echoes text.", |input: Json, _ctx| async move {
            Ok::<_, ToolError>(ToolResult::text(input["text"].as_str().unwrap_or_default().to_owned()))
        })
        .with_schema(
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        ),
    )
}

/// `broken`: always fails.
pub fn broken() -> Arc<dyn Tool> {
    Arc::new(
        FunctionTool::new("broken", "Fails.", |_input: Json, _ctx| async move {
            Err::<ToolResult, _>(ToolError::new("the disk is on fire"))
        })
        .with_schema(json!({"type": "object"})),
    )
}

/// A scripted model that calls `echo` then answers, with usage including cache and reasoning.
pub fn echo_model() -> ScriptedModel {
    let mut first = calls(&[("call_1", "echo", json!({"text": "pong"}))])
        .with_id("resp_1")
        .with_usage(Usage::new(10, 4).with_cache(30, 5).with_reasoning(2));
    first.model = "model-x-2026".into();
    ScriptedModel::new([first, ModelResponse::text("done").with_id("resp_2").with_usage(Usage::new(7, 1))])
        .with_model("model-x")
}

pub fn agent(model: &ScriptedModel, tracer: dive_otel::OtelTracer, tools: Vec<Arc<dyn Tool>>) -> Agent {
    Agent::builder().name("helper").model(model.clone()).tools(tools).tracer(tracer).build().unwrap()
}

pub fn named<'a>(spans: &'a [SpanData], name: &str) -> Vec<&'a SpanData> {
    spans.iter().filter(|s| s.name == name).collect()
}

pub fn one<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    let found = named(spans, name);
    assert_eq!(
        found.len(),
        1,
        "one span {name:?} in {:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    found[0]
}

pub fn attr(span: &SpanData, key: &str) -> Option<Value> {
    span.attributes.iter().find(|kv: &&KeyValue| kv.key.as_str() == key).map(|kv| kv.value.clone())
}

pub fn attr_str(span: &SpanData, key: &str) -> Option<String> {
    attr(span, key).map(|v| v.as_str().into_owned())
}

pub fn attr_i64(span: &SpanData, key: &str) -> Option<i64> {
    match attr(span, key) {
        Some(Value::I64(n)) => Some(n),
        _ => None,
    }
}
