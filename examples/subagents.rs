//! Subagents: a project agent file next to the built-in `Explore`; the parent writes a todo
//! list, hands a search to `Explore` (which runs its own tool calls, read-only), starts a
//! command with `Monitor`, and reads the command's output on its next turn.
//!
//! Runs offline on a scripted model: `cargo run -p dive-examples --example subagents`.
#![allow(clippy::print_stdout)]

use std::sync::Arc;

use dive::subagent::{AgentTool, DefaultFactory, Discovery, Orchestration};
use dive::{Agent, FunctionTool, Message, ModelResponse, RunOptions, Tool, ToolError, ToolUse};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A project with one agent file (a temporary directory stands in for it).
    let project = tempfile::tempdir()?;
    std::fs::create_dir_all(project.path().join(".dive/agents"))?;
    std::fs::write(
        project.path().join(".dive/agents/reviewer.md"),
        "---\ndescription: Reviews a diff. Use after a change.\ntools: Read, Grep\nmaxTurns: 5\n---\n\
         You review code and report problems by file and line.\n",
    )?;
    // Project agents load only because we say the workspace is trusted.
    let catalog = Discovery::new().project(project.path(), true).with_builtins().discover();
    for diagnostic in catalog.diagnostics() {
        println!("{diagnostic}");
    }
    println!("subagent types:\n{}", catalog.describe());

    // The parent's tools: subagents inherit them as their definitions allow.
    let grep: Arc<dyn Tool> =
        Arc::new(FunctionTool::new("Grep", "Searches the code.", |_: Value, _ctx| async {
            Ok::<_, ToolError>("src/config.rs:3: pub fn load_config()")
        }));
    let write: Arc<dyn Tool> =
        Arc::new(FunctionTool::new("Write", "Writes a file.", |_: Value, _ctx| async {
            Ok::<_, ToolError>("written")
        }));
    let parent_tools = vec![grep, write];

    let todos = json!({"todos": [
        {"content": "Find the config loader", "status": "in_progress", "activeForm": "Finding the config loader"},
        {"content": "Run the build", "status": "pending", "activeForm": "Running the build"}
    ]});
    let model = ScriptedModel::new([
        // Turn 1: the parent plans, delegates and starts a build.
        ModelResponse::tool_calls(vec![ToolUse::new("t1", "TodoWrite", todos)]),
        ModelResponse::tool_calls(vec![ToolUse::new(
            "a1",
            "Agent",
            json!({"description": "find config loader", "prompt": "Where is the config loaded?",
                   "subagent_type": "Explore"}),
        )]),
        // The Explore subagent, on the same model: one search, then its answer.
        ModelResponse::tool_calls(vec![ToolUse::new("e1", "Grep", json!({"pattern": "load_config"}))]),
        ModelResponse::text("load_config is defined in src/config.rs, line 3."),
        ModelResponse::tool_calls(vec![ToolUse::new(
            "m1",
            "Monitor",
            json!({"command": "echo compiling; echo finished", "description": "the build"}),
        )]),
        ModelResponse::text("Explore found it in src/config.rs; the build is running."),
        // Turn 2: the build's output arrives with the next call.
        ModelResponse::text("The build finished."),
    ]);

    let agent_tool =
        AgentTool::new(catalog, DefaultFactory::new(model.clone())).with_parent_tools(parent_tools.clone());
    let orchestration = Orchestration::new(agent_tool);
    let parent = Agent::builder()
        .model(model.clone())
        .system_prompt("You lead the work and delegate searches.")
        .tools(parent_tools)
        .extension(orchestration.clone())
        .build()?;

    let first = parent.run(RunOptions::text("Find the config loader and run the build.")).await?;
    println!("parent: {}", first.output_text());
    for todo in orchestration.todos().todos() {
        println!("todo: [{:?}] {}", todo.status, todo.content);
    }
    let explore_tools: Vec<String> = model.requests().all()[2].tools.iter().map(|t| t.name.clone()).collect();
    println!("Explore had the tools {explore_tools:?} (no Write, no Agent)");

    // Wait for the build, then let the parent read its output on its next call.
    orchestration.runs().wait("monitor-2").await;
    let history = vec![
        Message::user("Find the config loader and run the build."),
        Message::assistant(first.output_text()),
        Message::user("How did the build go?"),
    ];
    let second = parent.run(RunOptions::messages(history)).await?;
    println!("parent: {}", second.output_text());
    let last = model.requests().last().ok_or("no request was made")?;
    let delivered = last.messages.iter().flat_map(|m| &m.content).filter_map(dive::Content::as_reminder);
    for note in delivered.filter(|r| r.name == dive::subagent::NOTIFICATION_REMINDER) {
        println!("delivered to the model:\n{}", note.content);
    }
    for run in orchestration.runs().list() {
        println!("run {}: {} ({})", run.id, run.description, run.status.as_str());
    }
    println!("subagent tokens: {}", orchestration.runs().usage().total_tokens());
    Ok(())
}
