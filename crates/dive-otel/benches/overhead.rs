//! What tracing costs a turn: the same agent (one tool round on a scripted model) run with no
//! tracer and with `OtelTracer` into the SDK (in-memory exporter, with and without metrics).
//! `cargo bench -p dive-otel --bench overhead`; the figures go in docs/guides/observability.md.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use dive_agent::Agent;
use dive_core::{FunctionTool, ModelResponse, Tool, ToolError, ToolResult, ToolUse};
use dive_otel::OtelTracer;
use dive_otel::opentelemetry::metrics::MeterProvider as _;
use dive_otel::opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use dive_otel::opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

const RUNS: u32 = 2000;

fn echo() -> Arc<dyn Tool> {
    Arc::new(
        FunctionTool::new("echo", "Echoes.", |input: Value, _ctx| async move {
            Ok::<_, ToolError>(ToolResult::text(input["text"].as_str().unwrap_or_default().to_owned()))
        })
        .with_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}})),
    )
}

async fn measure(label: &str, tracer: Option<OtelTracer>, spans: Option<&InMemorySpanExporter>) -> Duration {
    let model = ScriptedModel::new([]);
    let mut builder = Agent::builder().name("bench").model(model.clone()).tool(echo());
    if let Some(t) = tracer {
        builder = builder.tracer(t);
    }
    let agent = builder.build().unwrap();
    let mut total = Duration::ZERO;
    for i in 0..RUNS + 200 {
        model.push(ModelResponse::tool_calls(vec![ToolUse::new("c1", "echo", json!({"text": "x"}))]));
        model.push(ModelResponse::text("done"));
        let start = Instant::now();
        agent.run("go").await.unwrap();
        if i >= 200 {
            total += start.elapsed();
        }
        if let Some(s) = spans {
            s.reset();
        }
    }
    let per_run = total / RUNS;
    println!("{label:<28} {:>8.1} µs a turn", per_run.as_secs_f64() * 1e6);
    per_run
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let off = measure("no tracer", None, None).await;
    let spans = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
    let on = measure("OtelTracer (spans)", Some(OtelTracer::builder(&provider).build()), Some(&spans)).await;
    let metrics = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(InMemoryMetricExporter::default()).build())
        .build();
    let tracer = OtelTracer::builder(&provider).meter(metrics.meter("dive")).build();
    let both = measure("OtelTracer (spans+metrics)", Some(tracer), Some(&spans)).await;
    let pct = |d: Duration| (d.as_secs_f64() / off.as_secs_f64() - 1.0) * 100.0;
    println!("overhead: spans {:+.0}%, spans+metrics {:+.0}% (4 spans a turn)", pct(on), pct(both));
}
