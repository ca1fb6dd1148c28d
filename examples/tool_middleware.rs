//! Tool middleware and observers: a flaky idempotent search retried with backoff, a hung
//! deploy ended by a timeout, a broken quotes service whose circuit opens and stays open into
//! the next run, a rate-limited geocoder, and an observer printing every milestone (iteration
//! starts, tool calls and results, the answer) — driven by a scripted model, offline.
//!
//! Run with `cargo run -p dive-examples --example tool_middleware`.
#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use dive::layer::{CircuitBreaker, RateLimit, Retry, Timeout, ToolLayerExt};
use dive::{Agent, FnObserver, FunctionTool, ModelResponse, Tool, ToolAnnotations, ToolError, ToolUse};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

fn call(id: &str, name: &str, input: Value) -> ToolUse {
    ToolUse::new(id, name, input)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Fails twice, then answers: safe to retry because it says it is idempotent.
    let attempts = Arc::new(AtomicU32::new(0));
    let seen = attempts.clone();
    let search = FunctionTool::new("search", "Searches the docs.", move |_: Value, _ctx| {
        let n = seen.fetch_add(1, Ordering::SeqCst) + 1;
        async move {
            if n < 3 {
                return Err(ToolError::new(format!("search backend unavailable (attempt {n})")));
            }
            Ok("3 pages mention circuit breakers".to_owned())
        }
    })
    .with_annotations(ToolAnnotations::read_only().with_idempotent(true))
    .layer(Timeout::new(Duration::from_millis(200)))
    .layer(Retry::idempotent(3).with_initial_delay(Duration::from_millis(20)));

    // Never answers: the timeout ends it and the model reads why.
    let deploy = FunctionTool::new("deploy", "Deploys the service.", |_: Value, _ctx| async {
        tokio::time::sleep(Duration::from_secs(3600)).await;
        Ok::<_, ToolError>("deployed")
    })
    .layer(Timeout::new(Duration::from_millis(100)));

    // Always down: after two failures its circuit opens for a minute, across runs.
    let quotes = FunctionTool::new("quotes", "Stock quotes.", |_: Value, _ctx| async {
        Err::<String, _>(ToolError::new("quotes service returned 503"))
    })
    .layer(CircuitBreaker::new(2, Duration::from_secs(60)));

    // At most 2 calls a second: the third call of a burst waits its turn.
    let geocode = FunctionTool::new("geocode", "Coordinates of a place.", |input: Value, _ctx| async move {
        Ok::<_, ToolError>(format!("{}: 38.7, -9.1", input["place"].as_str().unwrap_or("?")))
    })
    .layer(RateLimit::new(2, Duration::from_secs(1)));

    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![
            call("s1", "search", json!({})),
            call("d1", "deploy", json!({})),
            call("q1", "quotes", json!({})),
            call("q2", "quotes", json!({})),
        ]),
        ModelResponse::tool_calls(vec![
            call("g1", "geocode", json!({"place": "Lisbon"})),
            call("g2", "geocode", json!({"place": "Porto"})),
            call("g3", "geocode", json!({"place": "Faro"})),
        ]),
        ModelResponse::text("Search worked on the third try; deploy timed out; quotes are down."),
        ModelResponse::tool_calls(vec![call("q3", "quotes", json!({}))]),
        ModelResponse::text("Quotes are still down; not calling them for now."),
    ]);

    let observer = FnObserver::new()
        .on_iteration_start(|e| println!("── iteration {}", e.iteration))
        .on_tool_call(|e| println!("   → {} {}", e.call.name, e.call.input))
        .on_tool_result(|e| {
            let text = e.result.output.as_ref().map(dive::ToolOutput::text_content).unwrap_or_default();
            let mark = if e.is_error() { "✗" } else { "✓" };
            println!("   {mark} {} after {} ms: {text}", e.result.name, e.duration.as_millis());
        })
        .on_response(|e| {
            println!("── answer after {} iterations ({:?}): {}", e.iterations, e.reason, e.text)
        });

    let tools: Vec<Arc<dyn Tool>> =
        vec![Arc::new(search), Arc::new(deploy), Arc::new(quotes), Arc::new(geocode)];
    let agent = Agent::builder().model(model).tools(tools).observer(observer).build()?;

    agent.run("Check the docs, deploy, and get quotes.").await?;
    println!("(search was called {} times)", attempts.load(Ordering::SeqCst));
    println!();
    // The breaker lives in the tool, so the next run sees the circuit still open.
    agent.run("Try the quotes again.").await?;
    Ok(())
}
