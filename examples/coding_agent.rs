//! A coding agent, offline: an `Agent` with the toolkit confined to a temp workspace, the
//! permission hook (rules + a scripted dialog) in front of every call, and a `ScriptedModel`
//! playing the model. Calls the rules deny never run; the model reads why.
//!
//! Run with `cargo run -p dive-examples --example coding_agent`.

use std::sync::Arc;

use dive::permission::{
    DialogAnswer, FnDialog, MemoryAudit, PermissionConfig, PermissionHook, PermissionManager, PermissionMode,
    PermissionRequest, Rules,
};
use dive::toolkit::{Toolkit, Workspace};
use dive::{Agent, Hooks, ModelResponse, ResponseItem, RunOptions, ToolUse};
use dive_test::ScriptedModel;
use serde_json::json;

fn call(id: &str, name: &str, input: serde_json::Value) -> ToolUse {
    ToolUse::new(id, name, input)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let workspace = Workspace::new(dir.path())?;
    let tools = Toolkit::new(workspace.clone()).tools();

    // Edits are accepted, tests may run, nothing may delete; anything else asks the dialog.
    let rules = Rules::parse(
        &["Bash(cargo test:*)", "Bash(ls:*)", "Bash(cat:*)"],
        &[],
        &["Bash(rm:*)", "Read(.env)"],
    )?;
    let config =
        PermissionConfig::new(rules).with_mode(PermissionMode::AcceptEdits).with_root(workspace.root());
    let manager = Arc::new(PermissionManager::new(config));
    // A scripted person: approves `wc` for the session, refuses everything else.
    let dialog = FnDialog(|r: &PermissionRequest| {
        eprintln!("  [dialog] {} asks: {}", r.tool, r.input);
        if r.input["command"].as_str().is_some_and(|c| c.contains("wc -l")) {
            DialogAnswer::AllowForSession
        } else {
            DialogAnswer::Deny(Some("not in this demo".into()))
        }
    });
    let audit = Arc::new(MemoryAudit::new());
    let hook = PermissionHook::new(manager.clone()).with_dialog(Arc::new(dialog)).with_audit(audit.clone());

    // The model's side of the conversation, scripted.
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![call(
            "c1",
            "Write",
            json!({"file_path": "src/lib.rs", "content": "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"}),
        )]),
        ModelResponse::tool_calls(vec![call(
            "c2",
            "Edit",
            json!({"file_path": "src/lib.rs", "old_string": "a - b", "new_string": "a + b"}),
        )]),
        ModelResponse::tool_calls(vec![
            call("c3", "Grep", json!({"pattern": "fn add", "output_mode": "content"})),
            call("c4", "Bash", json!({"command": "ls src && wc -l src/lib.rs"})),
            call("c5", "Bash", json!({"command": "ls && rm -rf src"})),
            call("c6", "Read", json!({"file_path": "../../etc/passwd"})),
        ]),
        ModelResponse::text("Fixed `add` in src/lib.rs; I was not allowed to delete anything."),
    ]);

    let agent = Agent::builder()
        .name("coder")
        .system_prompt("You are a careful coding agent.")
        .model(model)
        .tools(tools)
        .hooks(Hooks::new().on_pre_tool_use(hook))
        .build()?;
    let options = RunOptions::text("Fix the add function.").on_event(|item| {
        if let ResponseItem::ToolCallResult { result } = item {
            let text = result.output.as_ref().map(|o| o.text_content()).unwrap_or_default();
            eprintln!("{} {} →\n{}\n", result.name, result.input, text);
        }
        Ok(())
    });
    let response = agent.run(options).await?;
    eprintln!("model: {}", response.output_text());
    eprintln!("session grants: {:?}", manager.session_grants());
    for entry in audit.entries() {
        eprintln!("audit: {} {:?} by {}", entry.tool, entry.outcome, entry.source);
    }
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs"))?;
    assert!(fixed.contains("a + b") && dir.path().join("src").exists());
    Ok(())
}
