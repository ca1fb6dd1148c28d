//! Tools: a typed tool with a derived schema and a preview, a function tool that streams
//! output, a tool that runs in the background, and parallel execution — driven by a scripted
//! model so the run is the same every time.
//!
//! Run with `cargo run -p dive-examples --example tools`.
#![allow(clippy::print_stdout)]

use std::time::Duration;

use dive::{
    Agent, FunctionTool, IntoTool, ModelResponse, ResponseItem, RunOptions, ToolAnnotations, ToolContext,
    ToolError, ToolOutput, ToolPreview, ToolResult, ToolUse, TypedTool, await_background_tasks,
};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct WeatherInput {
    /// City name, e.g. "Lisbon".
    city: String,
}

/// A typed tool: the input is decoded and validated for you, the schema is derived.
struct Weather;

impl TypedTool for Weather {
    type Input = WeatherInput;
    fn name(&self) -> &str {
        "weather"
    }
    fn description(&self) -> &str {
        "Current weather for a city."
    }
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only().with_open_world(true)
    }
    fn preview(&self, input: &WeatherInput) -> Option<ToolPreview> {
        Some(ToolPreview::new(format!("Look up the weather in {}", input.city)))
    }
    async fn call(&self, input: WeatherInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        tokio::time::sleep(Duration::from_millis(50)).await;
        Ok(ToolResult::text(format!("{}: 21°C, clear", input.city)))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A function tool that streams output while it works.
    let count =
        FunctionTool::new("count", "Counts to three.", |_input: Value, ctx: ToolContext| async move {
            for i in 1..=3 {
                ctx.stream_output(&format!("{i}\n"));
            }
            Ok::<_, ToolError>("counted")
        });
    // A tool that starts background work and returns at once.
    let build = FunctionTool::new("build", "Builds the project.", |_input: Value, _ctx| async move {
        Ok::<_, ToolError>(ToolResult::background("cargo build", async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            ToolOutput::text("build succeeded")
        }))
    });

    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![
            ToolUse::new("c1", "weather", json!({"city": "Lisbon"})),
            ToolUse::new("c2", "weather", json!({"city": "Oslo"})),
            ToolUse::new("c3", "count", json!({})),
            ToolUse::new("c4", "build", json!({})),
        ]),
        ModelResponse::text("Lisbon is warm, Oslo too; counting done; the build is running."),
        ModelResponse::text("The build succeeded."),
    ]);
    let agent = Agent::builder()
        .model(model)
        .tool(Weather.into_tool())
        .tool(count)
        .tool(build)
        .parallel_tool_execution(true)
        .build()?;

    let response = agent
        .run(RunOptions::text("Weather in Lisbon and Oslo, count, and build.").on_event(|item| {
            match item {
                ResponseItem::ToolCall { call, preview } => {
                    let summary = preview.as_ref().map_or(call.name.clone(), |p| p.summary.clone());
                    println!("call   {}: {summary}", call.id);
                }
                ResponseItem::ToolStream { text, .. } => print!("stream {text}"),
                ResponseItem::ToolCallResult { result } => {
                    let text = result.output.as_ref().map(|o| o.text_content()).unwrap_or_default();
                    println!("result {} ({} ms): {text}", result.id, result.duration_ms);
                }
                _ => {}
            }
            Ok(())
        }))
        .await?;
    println!("\n{}", response.output_text());

    // Deliver the background result on the next call.
    let finished = await_background_tasks(&response.background_tasks).await;
    let mut history = response.turn.map(|t| t.messages).unwrap_or_default();
    history.push(dive::Message::user("How did the build go?"));
    let next = agent.run(RunOptions::messages(history).with_background_results(finished)).await?;
    println!("{}", next.output_text());
    Ok(())
}
