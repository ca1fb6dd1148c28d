//! Tool middleware over real tools and tokio's (paused) clock: timeouts, circuit breakers,
//! rate limits and retries of idempotent tools, alone, stacked, and inside an agent's turn.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use common::{agent_with, calls, last_results};
use dive_agent::layer::{
    CircuitBreaker, CircuitState, LayerError, RateLimit, Retry, Timeout, ToolLayerExt, layer_each,
};
use dive_core::{
    FunctionTool, ModelResponse, Tool, ToolAnnotations, ToolCallErrorKind, ToolContext, ToolError, ToolResult,
};
use dive_test::ScriptedModel;
use serde_json::{Value, json};
use tokio::time::Instant;

/// A tool that fails its first `failures` calls, then answers "ok"; counts its calls.
fn flaky(name: &str, failures: u32, idempotent: bool) -> (FunctionTool, Arc<AtomicU32>) {
    let count = Arc::new(AtomicU32::new(0));
    let seen = count.clone();
    let tool = FunctionTool::new(name, "Fails a few times, then works.", move |_input: Value, _ctx| {
        let n = seen.fetch_add(1, Ordering::SeqCst) + 1;
        async move {
            if n <= failures {
                Err::<ToolResult, _>(ToolError::new(format!("upstream unavailable (call {n})")))
            } else {
                Ok(ToolResult::text("ok"))
            }
        }
    })
    .with_annotations(ToolAnnotations::default().with_idempotent(idempotent));
    (tool, count)
}

/// A tool that sleeps `{"ms": n}` then answers "done"; counts its calls.
fn sleeper(name: &str, idempotent: bool) -> (FunctionTool, Arc<AtomicU32>) {
    let count = Arc::new(AtomicU32::new(0));
    let seen = count.clone();
    let tool = FunctionTool::new(name, "Sleeps.", move |input: Value, _ctx| {
        seen.fetch_add(1, Ordering::SeqCst);
        async move {
            tokio::time::sleep(Duration::from_millis(input["ms"].as_u64().unwrap_or(0))).await;
            Ok::<_, ToolError>(ToolResult::text("done"))
        }
    })
    .with_annotations(ToolAnnotations::default().with_idempotent(idempotent));
    (tool, count)
}

async fn call(tool: &impl Tool, input: Value) -> Result<ToolResult, ToolError> {
    tool.call(input, ToolContext::detached(tool.name())).await
}

fn text(result: Result<ToolResult, ToolError>) -> String {
    match result.unwrap() {
        ToolResult::Output(o) => o.text_content(),
        other => panic!("not an output: {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn a_timeout_ends_a_slow_call_with_a_typed_error_and_lets_a_fast_one_through() {
    let (tool, _) = sleeper("Bash", false);
    let tool = tool.layer(Timeout::new(Duration::from_secs(30)));
    let started = Instant::now();
    let error = call(&tool, json!({"ms": 60_000})).await.unwrap_err();
    assert_eq!(started.elapsed(), Duration::from_secs(30), "ended at the limit, not when the tool would");
    assert_eq!(error.to_string(), "Bash timed out after 30 s");
    assert!(
        matches!(LayerError::of(&error), Some(LayerError::TimedOut { after, .. }) if *after == Duration::from_secs(30))
    );
    assert_eq!(text(call(&tool, json!({"ms": 10})).await), "done");
    assert_eq!(tool.name(), "Bash", "the layer is invisible to the model");
}

#[tokio::test(start_paused = true)]
async fn a_circuit_opens_after_consecutive_failures_refuses_then_probes_and_closes() {
    let (tool, count) = flaky("Fetch", 3, false);
    let tool = tool.layer(CircuitBreaker::new(3, Duration::from_secs(20)));
    for _ in 0..3 {
        let e = call(&tool, json!({})).await.unwrap_err();
        assert!(e.to_string().starts_with("upstream unavailable"), "{e}");
    }
    assert_eq!(tool.state(), CircuitState::Open);
    tokio::time::advance(Duration::from_secs(5)).await;
    let refused = call(&tool, json!({})).await.unwrap_err();
    assert_eq!(refused.to_string(), "Fetch: circuit open after 3 failures; retrying in 15 s");
    assert_eq!(count.load(Ordering::SeqCst), 3, "an open circuit does not call the tool");
    tokio::time::advance(Duration::from_secs(15)).await;
    assert_eq!(tool.state(), CircuitState::HalfOpen);
    assert_eq!(text(call(&tool, json!({})).await), "ok", "the probe succeeds");
    assert_eq!(tool.state(), CircuitState::Closed);
    assert_eq!(count.load(Ordering::SeqCst), 4);
}

#[tokio::test(start_paused = true)]
async fn a_failed_probe_opens_the_circuit_again_and_successes_reset_the_count() {
    let (tool, _) = flaky("Fetch", 2, false);
    let tool = tool.layer(CircuitBreaker::new(1, Duration::from_secs(10)));
    call(&tool, json!({})).await.unwrap_err();
    assert_eq!(tool.state(), CircuitState::Open);
    tokio::time::advance(Duration::from_secs(10)).await;
    let e = call(&tool, json!({})).await.unwrap_err();
    assert_eq!(e.to_string(), "upstream unavailable (call 2)", "the probe ran and failed");
    let e = call(&tool, json!({})).await.unwrap_err();
    assert!(
        matches!(LayerError::of(&e), Some(LayerError::CircuitOpen { retry_in, .. }) if *retry_in == Duration::from_secs(10))
    );

    let (tool, _) = flaky("Other", 0, false);
    let tool = tool.layer(CircuitBreaker::new(2, Duration::from_secs(10)));
    assert_eq!(text(call(&tool, json!({})).await), "ok");
    assert_eq!(tool.state(), CircuitState::Closed);
}

#[tokio::test(start_paused = true)]
async fn error_results_do_not_count_as_failures() {
    let tool = FunctionTool::new("Lint", "Reports problems.", |_: Value, _ctx| async {
        Ok::<_, ToolError>(ToolResult::error("line 3: unused variable"))
    })
    .layer(CircuitBreaker::new(1, Duration::from_secs(60)));
    for _ in 0..3 {
        call(&tool, json!({})).await.unwrap();
    }
    assert_eq!(tool.state(), CircuitState::Closed);
}

#[tokio::test(start_paused = true)]
async fn a_dropped_probe_reopens_the_circuit_instead_of_leaving_it_half_open() {
    let calls = Arc::new(AtomicU32::new(0));
    let seen = calls.clone();
    let tool = FunctionTool::new("Hang", "Fails once, then hangs.", move |_: Value, _ctx| {
        let n = seen.fetch_add(1, Ordering::SeqCst);
        async move {
            if n == 0 {
                return Err::<ToolResult, _>(ToolError::new("down"));
            }
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok(ToolResult::text("late"))
        }
    })
    .layer(CircuitBreaker::new(1, Duration::from_secs(10)));
    let tool = Arc::new(tool);
    call(&tool, json!({})).await.unwrap_err();
    tokio::time::advance(Duration::from_secs(10)).await;
    let probe = tokio::time::timeout(Duration::from_millis(50), call(&tool, json!({}))).await;
    assert!(probe.is_err(), "the probe was cut off");
    assert_eq!(tool.state(), CircuitState::Open, "a probe that never finished is a failure");
}

#[tokio::test(start_paused = true)]
async fn retry_repeats_an_idempotent_tool_with_backoff_until_it_works() {
    let (tool, count) = flaky("Search", 2, true);
    let tool = tool.layer(Retry::idempotent(3).with_initial_delay(Duration::from_millis(100)));
    let started = Instant::now();
    assert_eq!(text(call(&tool, json!({})).await), "ok");
    assert_eq!(count.load(Ordering::SeqCst), 3);
    assert_eq!(started.elapsed(), Duration::from_millis(300), "waited 100 ms, then 200 ms");
}

#[tokio::test(start_paused = true)]
async fn retry_never_repeats_a_tool_that_is_not_idempotent() {
    let (tool, count) = flaky("Write", 5, false);
    let tool = tool.layer(Retry::idempotent(5));
    let e = call(&tool, json!({})).await.unwrap_err();
    assert_eq!(e.to_string(), "upstream unavailable (call 1)", "the error is untouched");
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn retry_gives_up_with_the_last_error_and_the_count_and_skips_fatal_errors() {
    let (tool, count) = flaky("Search", 10, true);
    let tool = tool.layer(Retry::idempotent(3).with_initial_delay(Duration::from_millis(1)));
    let e = call(&tool, json!({})).await.unwrap_err();
    assert_eq!(e.to_string(), "upstream unavailable (call 3) (3 attempts)");
    assert!(matches!(LayerError::of(&e), Some(LayerError::RetriesExhausted { attempts: 3, .. })));
    assert_eq!(count.load(Ordering::SeqCst), 3);

    let fatal = Arc::new(AtomicU32::new(0));
    let seen = fatal.clone();
    let tool = FunctionTool::new("Creds", "Fatal.", move |_: Value, _ctx| {
        seen.fetch_add(1, Ordering::SeqCst);
        async { Err::<ToolResult, _>(ToolError::new("credentials revoked").fatal()) }
    })
    .with_annotations(ToolAnnotations::default().with_idempotent(true))
    .layer(Retry::idempotent(3));
    let e = call(&tool, json!({})).await.unwrap_err();
    assert!(e.is_fatal());
    assert_eq!(fatal.load(Ordering::SeqCst), 1, "a fatal error is not retried");
}

#[tokio::test(start_paused = true)]
async fn retry_outside_a_timeout_gives_each_attempt_its_own_limit_but_not_an_open_circuit() {
    let (tool, count) = sleeper("Fetch", true);
    let tool = tool
        .layer(Timeout::new(Duration::from_secs(10)))
        .layer(Retry::idempotent(3).with_initial_delay(Duration::from_secs(1)));
    let started = Instant::now();
    let e = call(&tool, json!({"ms": 60_000})).await.unwrap_err();
    assert_eq!(e.to_string(), "Fetch timed out after 10 s (3 attempts)");
    assert_eq!(count.load(Ordering::SeqCst), 3);
    assert_eq!(started.elapsed(), Duration::from_secs(10 + 1 + 10 + 2 + 10));

    let (tool, count) = flaky("Api", 10, true);
    let tool = tool
        .layer(CircuitBreaker::new(2, Duration::from_secs(30)))
        .layer(Retry::idempotent(5).with_initial_delay(Duration::from_millis(1)));
    let e = call(&tool, json!({})).await.unwrap_err();
    assert_eq!(count.load(Ordering::SeqCst), 2, "the retry stopped at the open circuit");
    assert!(e.to_string().starts_with("Api: circuit open after 2 failures; retrying in"), "{e}");
}

#[tokio::test(start_paused = true)]
async fn a_rate_limit_spaces_calls_and_a_max_wait_refuses_instead() {
    let (tool, count) = sleeper("Geo", false);
    let tool = tool.layer(RateLimit::new(2, Duration::from_secs(1)));
    let started = Instant::now();
    for _ in 0..4 {
        call(&tool, json!({})).await.unwrap();
    }
    // Two at once (the burst), then one each half second.
    assert_eq!(started.elapsed(), Duration::from_secs(1));
    assert_eq!(count.load(Ordering::SeqCst), 4);

    let (tool, count) = sleeper("Geo", false);
    let tool = tool.layer(RateLimit::new(1, Duration::from_secs(10)).with_max_wait(Duration::from_secs(1)));
    call(&tool, json!({})).await.unwrap();
    let e = call(&tool, json!({})).await.unwrap_err();
    assert_eq!(e.to_string(), "Geo: rate limited; next call allowed in 10 s");
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn a_shared_rate_limit_is_one_bucket_across_tools_and_a_per_tool_one_is_not() {
    let tools: Vec<Arc<dyn Tool>> = vec![Arc::new(sleeper("a", false).0), Arc::new(sleeper("b", false).0)];
    let shared = layer_each(tools.clone(), &RateLimit::new(1, Duration::from_secs(1)).shared());
    let started = Instant::now();
    call(&shared[0], json!({})).await.unwrap();
    call(&shared[1], json!({})).await.unwrap();
    assert_eq!(started.elapsed(), Duration::from_secs(1), "b waited for a's token");

    let per_tool = layer_each(tools, &RateLimit::new(1, Duration::from_secs(1)));
    let started = Instant::now();
    call(&per_tool[0], json!({})).await.unwrap();
    call(&per_tool[1], json!({})).await.unwrap();
    assert_eq!(started.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn in_a_turn_the_model_reads_the_layer_errors_and_the_breaker_outlives_the_run() {
    let (slow, _) = sleeper("Bash", false);
    let slow = slow.layer(Timeout::new(Duration::from_secs(30)));
    let (down, count) = flaky("Fetch", 100, false);
    let down = Arc::new(down.layer(CircuitBreaker::new(1, Duration::from_secs(20))));
    let model = ScriptedModel::new([
        calls(&[("c1", "Bash", json!({"ms": 120_000})), ("c2", "Fetch", json!({}))]),
        ModelResponse::text("both failed"),
        calls(&[("c3", "Fetch", json!({}))]),
        ModelResponse::text("still down"),
    ]);
    let agent = agent_with(&model).tool(slow).tool(down.clone() as Arc<dyn Tool>).build().unwrap();
    let response = agent.run("go").await.unwrap();
    let results = last_results(&response.output_messages);
    assert_eq!(results[0].1, "Tool execution error: Bash timed out after 30 s");
    assert!(results[0].2, "an error result");
    assert_eq!(results[1].1, "Tool execution error: upstream unavailable (call 1)");
    let first = response.tool_call_results().next().unwrap();
    assert_eq!(first.error.as_ref().unwrap().kind, ToolCallErrorKind::Failed);

    let response = agent.run("again").await.unwrap();
    let results = last_results(&response.output_messages);
    assert_eq!(results[0].1, "Tool execution error: Fetch: circuit open after 1 failure; retrying in 20 s");
    assert_eq!(count.load(Ordering::SeqCst), 1, "the second run did not reach the tool");
    let seen = model.requests();
    let last = seen.last().unwrap();
    let text = serde_json::to_string(&last.messages.last().unwrap()).unwrap();
    assert!(text.contains("circuit open"), "the model was sent the refusal: {text}");
}

/// A tool that keeps the input it was given, as given: the shared value, not a copy.
struct Keeper {
    schema: Value,
    seen: std::sync::Mutex<Vec<dive_core::Input>>,
}

impl Tool for Keeper {
    fn name(&self) -> &str {
        "keep"
    }
    fn description(&self) -> &str {
        "Keeps its input."
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn annotations(&self) -> &ToolAnnotations {
        static IDEMPOTENT: std::sync::LazyLock<ToolAnnotations> =
            std::sync::LazyLock::new(|| ToolAnnotations::default().with_idempotent(true));
        &IDEMPOTENT
    }
    fn call(
        &self,
        input: Value,
        ctx: ToolContext,
    ) -> dive_core::BoxFuture<'_, Result<ToolResult, ToolError>> {
        self.call_shared(input.into(), ctx)
    }
    fn call_shared(
        &self,
        input: dive_core::Input,
        _ctx: ToolContext,
    ) -> dive_core::BoxFuture<'_, Result<ToolResult, ToolError>> {
        self.seen.lock().unwrap().push(input);
        Box::pin(async { Ok(ToolResult::text("kept")) })
    }
}

#[tokio::test]
async fn a_tool_gets_the_calls_own_input_through_every_layer_without_a_copy() {
    let keeper = Arc::new(Keeper { schema: dive_core::empty_object_schema(), seen: Default::default() });
    let layered = Arc::clone(&keeper)
        .layer(Timeout::new(Duration::from_secs(30)))
        .layer(CircuitBreaker::new(3, Duration::from_secs(20)))
        .layer(RateLimit::new(100, Duration::from_secs(1)))
        .layer(Retry::idempotent(3));
    let model = ScriptedModel::new([
        calls(&[("c1", "keep", json!({"path": "a.txt", "lines": [1, 2]}))]),
        ModelResponse::text("done"),
    ]);
    let agent = agent_with(&model).tool(layered).build().unwrap();
    let response = agent.run("go").await.unwrap();
    assert_eq!(last_results(&response.output_messages)[0].1, "kept");
    let call = response
        .items
        .iter()
        .find_map(|item| match item {
            dive_core::ResponseItem::ToolCall { call, .. } => Some(call.clone()),
            _ => None,
        })
        .unwrap();
    let seen = keeper.seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0], json!({"path": "a.txt", "lines": [1, 2]}));
    assert!(seen[0].ptr_eq(&call.input), "the tool was handed a copy of the call's input");
}
