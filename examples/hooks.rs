//! Hooks: a PreToolUse guard that denies a dangerous call, a PostToolUse hook that redacts a
//! secret, a Stop hook that asks for one more pass, and values shared across phases.
//!
//! Run with `cargo run -p dive-examples --example hooks`.
#![allow(clippy::print_stdout)]

use dive::{
    Agent, FunctionTool, Hooks, ModelResponse, PostToolUseDecision, PreToolUseDecision, RunOptions,
    StopContext, StopDecision, ToolError, ToolOutput, ToolResultContext, ToolUse, ToolUseContext, Values,
};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

#[derive(Clone)]
struct User(&'static str);

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let shell = FunctionTool::new("shell", "Runs a shell command.", |input: Value, _ctx| async move {
        Ok::<_, ToolError>(format!(
            "ran `{}`; API_TOKEN=sk-12345",
            input["command"].as_str().unwrap_or_default()
        ))
    });
    let hooks = Hooks::new()
        .on_pre_tool_use(|ctx: ToolUseContext| async move {
            let user = ctx.run.values.get::<User>().map_or("unknown", |u| u.0);
            let command = ctx.call.input["command"].as_str().unwrap_or_default().to_owned();
            if command.contains("rm -rf") {
                println!("guard: denied `{command}` for {user}");
                return Ok(PreToolUseDecision::deny("Deleting files is not allowed here."));
            }
            Ok(PreToolUseDecision::allow())
        })
        .on_post_tool_use(|ctx: ToolResultContext| async move {
            let redacted = ctx.output.text_content().replace("sk-12345", "[redacted]");
            Ok(PostToolUseDecision::replace(ToolOutput::text(redacted)))
        })
        .on_stop(|ctx: StopContext| async move {
            if ctx.stop_hook_active {
                return Ok(StopDecision::Stop);
            }
            Ok(StopDecision::continue_with("Double-check the answer before you finish."))
        });

    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![
            ToolUse::new("c1", "shell", json!({"command": "rm -rf /"})),
            ToolUse::new("c2", "shell", json!({"command": "ls"})),
        ]),
        ModelResponse::text("Listed the directory."),
        ModelResponse::text("Checked again: the directory was listed; the delete was refused."),
    ]);
    let agent = Agent::builder().model(model).tool(shell).hooks(hooks).build()?;
    let values = Values::new();
    values.insert(User("ada"));
    let response = agent.run(RunOptions::text("Clean up and list files.").with_values(values)).await?;
    for result in response.tool_call_results() {
        let text = result.output.as_ref().map(|o| o.text_content()).unwrap_or_default();
        println!("{} → {text}", result.input["command"]);
    }
    println!("{}", response.output_text());
    Ok(())
}
