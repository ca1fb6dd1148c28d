//! Quickstart: an agent with two real file tools over a temporary workspace.
//!
//! Offline (the default, no key needed) it runs on `TestModel`, which calls each tool once and
//! summarises the results, so you can see the whole loop without a network. With a provider
//! compiled in (this example enables `anthropic`) and its key set, the same agent runs on that
//! provider, chosen through the registry (`dive::model`).
//!
//! Run with `cargo run -p dive-examples --example quickstart`.

#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use dive::{Agent, IntoTool, ResponseItem, RunOptions, ToolContext, ToolError, ToolResult, TypedTool};
use dive_test::TestModel;

/// Lists the files of the workspace.
struct ListFiles {
    root: PathBuf,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ListFilesInput {}

impl TypedTool for ListFiles {
    type Input = ListFilesInput;
    fn name(&self) -> &str {
        "list_files"
    }
    fn description(&self) -> &str {
        "Lists the files in the workspace."
    }
    async fn call(&self, _input: ListFilesInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.root)? {
            names.push(entry?.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(ToolResult::text(names.join("\n")))
    }
}

/// Reads one file of the workspace.
struct ReadFile {
    root: PathBuf,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ReadFileInput {
    /// A file name inside the workspace.
    #[schemars(extend("examples" = ["notes.md"]))]
    path: String,
}

impl TypedTool for ReadFile {
    type Input = ReadFileInput;
    fn name(&self) -> &str {
        "read_file"
    }
    fn description(&self) -> &str {
        "Reads a file in the workspace."
    }
    async fn call(&self, input: ReadFileInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let path = Path::new(&input.path);
        if path.is_absolute() || path.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
            return Ok(ToolResult::error(format!("{} is outside the workspace", input.path)));
        }
        Ok(ToolResult::text(std::fs::read_to_string(self.root.join(path))?))
    }
}

/// The first compiled-in provider whose API key is set, through the registry.
fn online_model() -> Option<Arc<dyn dive::Llm>> {
    let vendor = dive::vendors().into_iter().find(|v| {
        v.compiled_in && v.key_env.is_some_and(|k| std::env::var(k).is_ok_and(|v| !v.is_empty()))
    })?;
    match dive::model(&format!("{}/", vendor.name)) {
        Ok(model) => {
            println!("Running online on {}/{}.\n", model.provider(), model.model());
            Some(model)
        }
        Err(e) => {
            println!("{} is not usable ({e}); falling back to the test model.", vendor.name);
            None
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let workspace = tempfile::tempdir()?;
    std::fs::write(workspace.path().join("notes.md"), "# Notes\nShip the quickstart on Friday.\n")?;
    std::fs::write(workspace.path().join("todo.txt"), "write docs\n")?;

    let model = online_model().unwrap_or_else(|| {
        println!("Running offline on the test model (no API key found).");
        println!("To go online, set a provider key such as ANTHROPIC_API_KEY; see docs/guides/agents.md.\n");
        Arc::new(TestModel::new())
    });
    let agent = Agent::builder()
        .name("quickstart")
        .system_prompt("You are a helpful assistant working in a small workspace.")
        .model(model)
        .tool(ListFiles { root: workspace.path().to_owned() }.into_tool())
        .tool(ReadFile { root: workspace.path().to_owned() }.into_tool())
        .build()?;

    let options = RunOptions::text("What is in my notes?").on_event(|item| {
        match item {
            ResponseItem::ToolCall { call, .. } => println!("→ {} {}", call.name, call.input),
            ResponseItem::ToolCallResult { result } => {
                let text = result.output.as_ref().map(|o| o.text_content()).unwrap_or_default();
                println!("← {}: {}", result.name, text.lines().next().unwrap_or_default());
            }
            _ => {}
        }
        Ok(())
    });
    let response = agent.run(options).await?;
    println!("\n{}", response.output_text());
    println!("\n{} model calls, {} tokens", response.model_calls.len(), response.usage.total_tokens());
    Ok(())
}
