//! A coding agent's tool loop, offline: the toolkit confined to a temp workspace, a
//! permission hook (rules + a scripted dialog) in front of every call, and a `ScriptedModel`
//! playing the model. Calls the rules deny never run; the model reads why.
//!
//! The engine crate (`dive-agent`) runs this loop for you; until the facade ships it, the
//! loop is written out here. Run with
//! `cargo run -p dive-examples --example coding_agent`.

use std::sync::Arc;

use dive::permission::{
    DialogAnswer, FnDialog, MemoryAudit, PermissionConfig, PermissionHook, PermissionManager, PermissionMode,
    PermissionRequest, Rules,
};
use dive::toolkit::{Toolkit, Workspace};
use dive::{
    Llm, Message, ModelRequest, ModelResponse, PreToolUseHook, RunInfo, ToolContext, ToolResult,
    ToolResultContent, ToolUse, ToolUseContext, Verdict,
};
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

    let definitions = tools.iter().map(|t| t.definition()).collect::<Vec<_>>();
    let mut history = vec![Message::user("Fix the add function.")];
    loop {
        let response =
            model.generate(ModelRequest::new(history.clone()).with_tools(definitions.clone())).await?;
        let calls: Vec<ToolUse> = response.tool_uses().cloned().collect();
        history.push(response.into_message());
        if calls.is_empty() {
            break;
        }
        let mut results = Vec::new();
        for use_ in calls {
            let tool = tools.iter().find(|t| t.name() == use_.name).ok_or("unknown tool")?;
            let ctx = ToolUseContext::new(RunInfo::detached(), 0, use_.clone(), tool.annotations().clone())
                .with_preview(tool.preview(&use_.input));
            let block = match hook.pre_tool_use(ctx).await?.verdict {
                Verdict::Deny(reason) => ToolResultContent::error(use_.id.clone(), reason),
                _ => match tool.call(use_.input.clone(), ToolContext::detached(&use_.name)).await? {
                    ToolResult::Output(out) => {
                        let mut block = ToolResultContent::new(use_.id.clone(), out.content);
                        block.is_error = out.is_error;
                        block
                    }
                    _ => ToolResultContent::error(use_.id.clone(), "unexpected result kind"),
                },
            };
            eprintln!("{} {} →\n{}\n", use_.name, use_.input, block.text_content());
            results.push(block);
        }
        history.push(Message::tool_results(results));
    }
    eprintln!("model: {}", history.last().map(Message::text).unwrap_or_default());
    eprintln!("session grants: {:?}", manager.session_grants());
    for entry in audit.entries() {
        eprintln!("audit: {} {:?} by {}", entry.tool, entry.outcome, entry.source);
    }
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs"))?;
    assert!(fixed.contains("a + b") && dir.path().join("src").exists());
    Ok(())
}
