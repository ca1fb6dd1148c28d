//! With dive-toolkit's real file tools: a user skill outside the project, its directory given
//! to the workspace as a read-only root, is readable while its `allowed-tools` refuse the rest.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_agent::{Agent, RunOptions};
use dive_core::{ModelResponse, ToolCallErrorKind, ToolUse};
use dive_skill::{Discovery, SkillExtension};
use dive_test::ScriptedModel;
use dive_toolkit::{ReadTool, Workspace, WriteTool};
use serde_json::json;

#[tokio::test]
async fn a_bundled_file_is_read_with_the_real_read_tool_while_other_tools_are_refused() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let dir = home.path().join(".claude/skills/audit");
    std::fs::create_dir_all(dir.join("references")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        "---\nname: audit\ndescription: Audits.\nallowed-tools: Grep\n---\nRead references/rules.md.\n",
    )
    .unwrap();
    std::fs::write(dir.join("references/rules.md"), "RULE-42\n").unwrap();
    std::fs::write(project.path().join("notes.txt"), "private\n").unwrap();

    let extension =
        SkillExtension::new(Discovery::new().project(project.path(), true).home(home.path()).discover());
    let mut workspace = Workspace::new(project.path()).unwrap();
    for skill_dir in extension.skill_dirs() {
        workspace = workspace.with_read_only_root(&skill_dir).unwrap();
    }
    let rules = dir.canonicalize().unwrap().join("references/rules.md").display().to_string();
    let notes = project.path().join("notes.txt").display().to_string();
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![ToolUse::new("s", "Skill", json!({"skill": "audit"}))]),
        ModelResponse::tool_calls(vec![
            ToolUse::new("r1", "Read", json!({"file_path": rules})),
            ToolUse::new("r2", "Read", json!({"file_path": notes})),
            ToolUse::new("w1", "Write", json!({"file_path": notes, "content": "gone"})),
        ]),
        ModelResponse::text("done"),
    ]);
    let agent = Agent::builder()
        .model(model)
        .typed_tool(ReadTool::new(workspace.clone()))
        .typed_tool(WriteTool::new(workspace))
        .extension(extension)
        .build()
        .unwrap();
    let response = agent.run(RunOptions::text("audit")).await.unwrap();
    let results: Vec<_> = response.tool_call_results().collect();
    let by_id = |id: &str| results.iter().find(|r| r.id == id).unwrap();

    let read = by_id("r1");
    assert!(read.error.is_none(), "{read:?}");
    assert!(read.output.as_ref().unwrap().text_content().contains("RULE-42"));
    for id in ["r2", "w1"] {
        assert_eq!(by_id(id).error.as_ref().map(|e| e.kind), Some(ToolCallErrorKind::Denied), "{id}");
    }
    assert_eq!(std::fs::read_to_string(project.path().join("notes.txt")).unwrap(), "private\n");
}
