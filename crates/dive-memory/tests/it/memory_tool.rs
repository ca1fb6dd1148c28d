//! The memory tool on a real directory: every command, paths confined to /memories
//! (traversal and symlink escapes refused), and a model using it through an agent.
#![allow(clippy::unwrap_used)]

use dive_agent::{Agent, RunOptions};
use dive_core::{ModelResponse, Tool, ToolUse};
use dive_memory::{MemoryTool, MemoryToolError};
use dive_test::ScriptedModel;
use serde_json::json;

#[test]
fn every_command_on_a_real_directory() {
    let dir = tempfile::tempdir().unwrap();
    let tool = MemoryTool::new(dir.path().join("mem")).unwrap();
    let run = |input: serde_json::Value| tool.run(&input);

    run(json!({"command": "create", "path": "/memories/notes/user.md", "file_text": "name: Ada\nlikes: tea\n"})).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mem/notes/user.md")).unwrap(),
        "name: Ada\nlikes: tea\n"
    );
    assert!(matches!(
        run(json!({"command": "create", "path": "/memories/notes/user.md", "file_text": "x"})),
        Err(MemoryToolError::Exists(_))
    ));

    let listing = run(json!({"command": "view", "path": "/memories"})).unwrap();
    assert!(listing.contains("/memories/notes/") && listing.contains("/memories/notes/user.md"), "{listing}");
    let view =
        run(json!({"command": "view", "path": "/memories/notes/user.md", "view_range": [2, 2]})).unwrap();
    assert!(view.ends_with("     2\tlikes: tea\n") && !view.contains("Ada"), "{view}");

    run(json!({"command": "str_replace", "path": "/memories/notes/user.md", "old_str": "tea", "new_str": "coffee"})).unwrap();
    let err = run(
        json!({"command": "str_replace", "path": "/memories/notes/user.md", "old_str": "tea", "new_str": "x"}),
    );
    assert!(err.unwrap_err().to_string().contains("not found"));
    run(json!({"command": "insert", "path": "/memories/notes/user.md", "insert_line": 0, "insert_text": "# User"})).unwrap();
    run(json!({"command": "insert", "path": "/memories/notes/user.md", "insert_line": 3, "insert_text": "city: Porto\n"})).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mem/notes/user.md")).unwrap(),
        "# User\nname: Ada\nlikes: coffee\ncity: Porto\n"
    );
    assert!(matches!(
        run(
            json!({"command": "insert", "path": "/memories/notes/user.md", "insert_line": 99, "insert_text": "x"})
        ),
        Err(MemoryToolError::Line(_))
    ));

    run(json!({"command": "rename", "old_path": "/memories/notes/user.md", "new_path": "/memories/people/ada.md"})).unwrap();
    assert!(dir.path().join("mem/people/ada.md").is_file() && !dir.path().join("mem/notes/user.md").exists());
    run(json!({"command": "delete", "path": "/memories/people"})).unwrap();
    assert!(!dir.path().join("mem/people").exists());
    assert!(matches!(
        run(json!({"command": "delete", "path": "/memories/people"})),
        Err(MemoryToolError::NotFound(_))
    ));
}

#[test]
fn paths_outside_memories_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("secret.txt"), "top secret").unwrap();
    let tool = MemoryTool::new(dir.path().join("mem")).unwrap();
    for path in [
        "/memories/../secret.txt",
        "/etc/passwd",
        "/memoriesX/a",
        "memories/a",
        "/memories/a/../../secret.txt",
    ] {
        let err = tool.run(&json!({"command": "view", "path": path})).unwrap_err();
        assert!(matches!(err, MemoryToolError::OutsideRoot(_)), "{path}: {err}");
        assert!(err.to_string().contains("outside /memories"), "a clear error: {err}");
    }
    let err = tool
        .run(&json!({"command": "create", "path": "/memories/../escape.txt", "file_text": "x"}))
        .unwrap_err();
    assert!(matches!(err, MemoryToolError::OutsideRoot(_)));
    assert!(!dir.path().join("escape.txt").exists());
    let err = tool
        .run(&json!({"command": "rename", "old_path": "/memories", "new_path": "/memories/x"}))
        .unwrap_err();
    assert!(matches!(err, MemoryToolError::OutsideRoot(_)), "the root itself cannot be moved");
    assert!(matches!(
        tool.run(&json!({"command": "delete", "path": "/memories"})),
        Err(MemoryToolError::OutsideRoot(_))
    ));
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("outside")).unwrap();
    std::fs::write(dir.path().join("outside/secret.txt"), "top secret").unwrap();
    let tool = MemoryTool::new(dir.path().join("mem")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside"), dir.path().join("mem/link")).unwrap();
    let err = tool.run(&json!({"command": "view", "path": "/memories/link/secret.txt"})).unwrap_err();
    assert!(matches!(err, MemoryToolError::OutsideRoot(_)), "{err}");
    let err = tool
        .run(&json!({"command": "create", "path": "/memories/link/new.txt", "file_text": "x"}))
        .unwrap_err();
    assert!(matches!(err, MemoryToolError::OutsideRoot(_)), "{err}");
    assert!(!dir.path().join("outside/new.txt").exists());
}

#[tokio::test]
async fn a_model_keeps_notes_through_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    let tool = MemoryTool::new(dir.path()).unwrap();
    assert_eq!(tool.input_schema()["properties"]["command"]["enum"].as_array().unwrap().len(), 6);
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![ToolUse::new(
            "c1",
            "memory",
            json!({"command": "view", "path": "/memories"}),
        )]),
        ModelResponse::tool_calls(vec![
            ToolUse::new(
                "c2",
                "memory",
                json!({"command": "create", "path": "/memories/progress.md", "file_text": "step 1 done\n"}),
            ),
            ToolUse::new("c3", "memory", json!({"command": "view", "path": "/memories/../../etc/passwd"})),
        ]),
        ModelResponse::text("Saved my progress."),
    ]);
    let agent = Agent::builder().model(model.clone()).tool(tool).build().unwrap();
    let response = agent.run(RunOptions::text("Work on the task and keep notes.")).await.unwrap();
    assert_eq!(response.output_text(), "Saved my progress.");
    assert_eq!(std::fs::read_to_string(dir.path().join("progress.md")).unwrap(), "step 1 done\n");
    let escape = response.tool_call_results().find(|r| r.id == "c3").unwrap();
    let text = escape.output.as_ref().map(|o| o.text_content()).unwrap();
    assert!(text.starts_with("Error: the path /memories/../../etc/passwd is outside /memories"), "{text}");
}
