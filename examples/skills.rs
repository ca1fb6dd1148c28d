//! Skills: one embedded in the binary, one registered from code, one discovered in a
//! project's `.dive/skills` directory; the model loads one with the `Skill` tool, its
//! instructions reach the next request, and its `allowed-tools` refuse another tool.
//!
//! Runs offline on a scripted model: `cargo run -p dive-examples --example skills`.
#![allow(clippy::print_stdout)]

use dive::{Agent, FunctionTool, ModelResponse, RunOptions, ToolError, ToolUse};
use dive_skill::{Discovery, Skill, SkillExtension};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

/// A skill shipped inside the binary: no file system needed at run time.
const RELEASE_NOTES: &str = "---\nname: release-notes\ndescription: Writes release notes. Use when asked for a changelog.\n\
allowed-tools: Read\n---\nList the changes in $ARGUMENTS, one line each, newest first.\n";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A project with one skill on disk (a temporary directory stands in for it).
    let project = tempfile::tempdir()?;
    let dir = project.path().join(".dive/skills/review");
    std::fs::create_dir_all(dir.join("scripts"))?;
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: review\ndescription: Reviews a change.\n---\nRun scripts/check.sh.\n",
    )?;
    std::fs::write(dir.join("scripts/check.sh"), "cargo test\n")?;

    // Project skills load only because we say the workspace is trusted.
    let mut skills = Discovery::new().project(project.path(), true).discover();
    for diagnostic in skills.diagnostics() {
        println!("{diagnostic}");
    }
    skills.insert(Skill::embedded("skills/release-notes/SKILL.md", RELEASE_NOTES)?);
    skills.insert(
        Skill::new("haiku", "Writes a haiku. Use when asked for a poem.").with_body("5, 7, 5 syllables."),
    );
    let extension = SkillExtension::new(skills);
    println!("catalog:\n{}\n", extension.catalog().unwrap_or_default());

    let shell = FunctionTool::new("Bash", "Runs a command.", |input: Value, _ctx| async move {
        Ok::<_, ToolError>(format!("ran {}", input["command"]))
    });
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![ToolUse::new(
            "c1",
            "Skill",
            json!({"skill": "release-notes", "args": "v0.1.0..v0.2.0"}),
        )]),
        ModelResponse::tool_calls(vec![ToolUse::new("c2", "Bash", json!({"command": "git log"}))]),
        ModelResponse::text("v0.2.0: skills."),
    ]);
    let agent = Agent::builder().model(model.clone()).tool(shell).extension(extension).build()?;
    let response = agent.run(RunOptions::text("Write the release notes for v0.2.0.")).await?;

    for result in response.tool_call_results() {
        let text = result.output.as_ref().map(|o| o.text_content()).unwrap_or_default();
        println!("{} → {text}", result.name);
    }
    let second = model.requests().all().get(1).and_then(|r| r.messages.last().cloned());
    let delivered = second.map(|m| m.text()).unwrap_or_default();
    println!("\ndelivered to the model:\n{delivered}\n");
    assert!(delivered.contains("List the changes in v0.1.0..v0.2.0"), "the skill's body reaches the model");
    println!("{}", response.output_text());
    Ok(())
}
