//! OpenTelemetry: an agent traced by `OtelTracer` into the SDK's in-memory exporter, printed
//! as a span tree with its GenAI attributes (the latest experimental names), plus the same
//! agent's content capture turned on. With `OTEL_EXPORTER_OTLP_ENDPOINT` set, the spans go to
//! that OTLP/HTTP endpoint instead (`dive::otel::otlp::init_from_env`).
//!
//! Runs offline on a scripted model: `cargo run -p dive-examples --example otel`.
#![allow(clippy::print_stdout)]

use dive::otel::semconv::Semconv;
use dive::otel::{Capture, OtelTracer};
use dive::{Agent, FunctionTool, ModelResponse, ToolError, ToolUse, Usage};
use dive_test::ScriptedModel;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Value, json};

fn model() -> ScriptedModel {
    let call = ModelResponse::tool_calls(vec![ToolUse::new("call_1", "weather", json!({"city": "Paris"}))])
        .with_usage(Usage::new(120, 18).with_cache(900, 0));
    ScriptedModel::new([call, ModelResponse::text("Rainy, 14°C.").with_usage(Usage::new(40, 9))])
        .with_model("demo-model")
}

fn agent(tracer: OtelTracer) -> Result<Agent, dive::AgentError> {
    let weather = FunctionTool::new("weather", "The weather in a city.", |input: Value, _ctx| async move {
        Ok::<_, ToolError>(format!("{}: rainy, 14°C", input["city"].as_str().unwrap_or("?")))
    })
    .with_schema(json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}));
    Agent::builder().name("forecaster").model(model()).tool(weather).tracer(tracer).build()
}

fn print_tree(spans: &[SpanData], parent: dive::otel::opentelemetry::trace::SpanId, depth: usize) {
    for span in spans.iter().filter(|s| s.parent_span_id == parent) {
        let attrs: Vec<String> =
            span.attributes.iter().map(|kv| format!("{}={}", kv.key, kv.value)).collect();
        println!("{}{}  [{}]", "  ".repeat(depth), span.name, attrs.join(", "));
        print_tree(spans, span.span_context.span_id(), depth + 1);
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if let Some(guard) = dive::otel::otlp::init_from_env()? {
        let answer = agent(guard.tracer())?.run("Weather in Paris?").await?;
        println!("{}\nexporting to the OTLP endpoint (flushed when the guard drops)", answer.output_text());
        tokio::task::spawn_blocking(move || guard.shutdown()).await??;
        return Ok(());
    }

    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
    let tracer = OtelTracer::builder(&provider).semconv(Semconv::Latest).build();
    let answer = agent(tracer)?.run("Weather in Paris?").await?;
    println!("answer: {}\n", answer.output_text());
    let spans = exporter.get_finished_spans()?;
    print_tree(&spans, dive::otel::opentelemetry::trace::SpanId::INVALID, 0);

    // Content is off by default; turned on, it is capped per attribute.
    exporter.reset();
    let tracer = OtelTracer::builder(&provider).capture(Capture::all().with_max_bytes(64)).build();
    agent(tracer)?.run("Weather in Paris?").await?;
    println!("\nwith content capture (v1.36 names, 64-byte cap):");
    for span in exporter.get_finished_spans()? {
        for kv in span
            .attributes
            .iter()
            .filter(|kv| kv.key.as_str().contains("messages") || kv.key.as_str().contains("tool.call."))
        {
            println!("  {} {} = {}", span.name, kv.key, kv.value);
        }
    }
    provider.shutdown()?;
    Ok(())
}
