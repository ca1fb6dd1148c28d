//! Engine overhead with `ScriptedModel` (no I/O): one turn of model → one tool → model, and a
//! fan-out of 100 parallel tool calls; the fan-out again with a model that, like a real
//! provider, keeps no request (`ScriptedModel` keeps every one, pinning each call's history).
//! Figures go in `docs/benchmarks.md`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::hint::black_box;
use std::sync::{Arc, Mutex};

use criterion::{Criterion, criterion_group, criterion_main};
use dive_agent::Agent;
use dive_core::{BoxFuture, FunctionTool, Llm, LlmError, ModelRequest, ModelResponse, ToolError, ToolUse};
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

/// The same turn with what issue 22 added in use: an observer (a no-op counter) and the tool
/// behind a timeout and a circuit breaker.
fn one_tool_turn_observed_and_layered(c: &mut Criterion) {
    use dive_agent::layer::{CircuitBreaker, Timeout, ToolLayerExt};
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let model = ScriptedModel::new([]);
    let seen = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = seen.clone();
    let observer = dive_core::FnObserver::new()
        .on_tool_result(move |_| {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .on_iteration_start(|e| {
            black_box(e.iteration);
        });
    let tool = echo()
        .layer(Timeout::new(std::time::Duration::from_secs(30)))
        .layer(CircuitBreaker::new(5, std::time::Duration::from_secs(20)));
    let agent =
        Agent::builder().model(Arc::new(model.clone())).tool(tool).observer(observer).build().unwrap();
    c.bench_function("turn: model → 1 tool → model, observer + timeout + breaker", |b| {
        b.iter(|| {
            model.push(ModelResponse::tool_calls(vec![ToolUse::new("c1", "echo", json!({"text": "hi"}))]));
            model.push(ModelResponse::text("done"));
            let response = runtime.block_on(agent.run("go")).unwrap();
            black_box(response);
        });
    });
    assert!(seen.load(std::sync::atomic::Ordering::Relaxed) > 0);
}

/// The same one-tool turn with a compaction policy whose threshold is never reached: the
/// estimate runs before each call, nothing is compacted (without a policy the loop adds one
/// `Option` check a call and nothing else).
fn one_tool_turn_with_compaction_policy(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let model = ScriptedModel::new([]);
    let policy =
        dive_agent::CompactionPolicy::new(dive_core::ClearToolResults::new(3)).context_limit(1_000_000);
    let agent =
        Agent::builder().model(Arc::new(model.clone())).tool(echo()).compaction(policy).build().unwrap();
    c.bench_function("turn: model → 1 tool → model, compaction policy below its threshold", |b| {
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

/// Plays responses in order and drops each request, as a provider does once it has sent it.
#[derive(Clone, Default)]
struct Forgetful(Arc<Mutex<VecDeque<ModelResponse>>>);

impl Llm for Forgetful {
    fn provider(&self) -> &str {
        "forgetful"
    }
    fn model(&self) -> &str {
        "forgetful-1"
    }
    fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>> {
        drop(request);
        let next = self.0.lock().unwrap().pop_front().unwrap();
        Box::pin(async move { Ok(next) })
    }
}

fn fan_out_no_recording(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let model = Forgetful::default();
    let agent =
        Agent::builder().model(model.clone()).tool(echo()).parallel_tool_execution(true).build().unwrap();
    let calls: Vec<ToolUse> =
        (0..100).map(|i| ToolUse::new(format!("c{i}"), "echo", json!({"text": format!("t{i}")}))).collect();
    c.bench_function("turn: 100 parallel tool calls, model keeps no request", |b| {
        b.iter(|| {
            model
                .0
                .lock()
                .unwrap()
                .extend([ModelResponse::tool_calls(calls.clone()), ModelResponse::text("done")]);
            let response = runtime.block_on(agent.run("go")).unwrap();
            black_box(response);
        });
    });
}

criterion_group!(
    benches,
    one_tool_turn,
    one_tool_turn_observed_and_layered,
    one_tool_turn_with_compaction_policy,
    fan_out,
    fan_out_no_recording
);
criterion_main!(benches);
