//! Engine overhead with `ScriptedModel` (no I/O): one turn of model → one tool → model, and a
//! fan-out of 100 parallel tool calls. Figures go in `docs/benchmarks.md`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use dive_agent::Agent;
use dive_core::{FunctionTool, ModelResponse, ToolError, ToolUse};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

fn echo() -> Arc<FunctionTool> {
    Arc::new(
        FunctionTool::new("echo", "Echoes.", |input: Value, _ctx| async move {
            Ok::<_, ToolError>(input["text"].as_str().unwrap_or_default().to_owned())
        })
        .with_schema(
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        ),
    )
}

fn one_tool_turn(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let model = ScriptedModel::new([]);
    let agent = Agent::builder().model(Arc::new(model.clone())).tool(echo()).build().unwrap();
    c.bench_function("turn: model → 1 tool → model", |b| {
        b.iter(|| {
            model.push(ModelResponse::tool_calls(vec![ToolUse::new("c1", "echo", json!({"text": "hi"}))]));
            model.push(ModelResponse::text("done"));
            let response = runtime.block_on(agent.run("go")).unwrap();
            black_box(response);
        });
    });
}

fn fan_out(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let model = ScriptedModel::new([]);
    let agent = Agent::builder()
        .model(Arc::new(model.clone()))
        .tool(echo())
        .parallel_tool_execution(true)
        .build()
        .unwrap();
    let calls: Vec<ToolUse> =
        (0..100).map(|i| ToolUse::new(format!("c{i}"), "echo", json!({"text": format!("t{i}")}))).collect();
    c.bench_function("turn: 100 parallel tool calls", |b| {
        b.iter(|| {
            model.push(ModelResponse::tool_calls(calls.clone()));
            model.push(ModelResponse::text("done"));
            let response = runtime.block_on(agent.run("go")).unwrap();
            black_box(response);
        });
    });
}

criterion_group!(benches, one_tool_turn, fan_out);
criterion_main!(benches);
