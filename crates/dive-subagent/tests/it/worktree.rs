//! `isolation: worktree` on a real git repository in a temporary directory: the subagent's
//! tools work in a fresh worktree holding the repository's files, and the worktree is gone
//! afterwards, leaving the repository as it was.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use dive_agent::{Agent, RunOptions};
use dive_core::{FunctionTool, ModelResponse, Tool, ToolError, ToolUse};
use dive_subagent::{AgentTool, Catalog, DefaultFactory, Definition, Isolation, Orchestration};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test]
async fn an_isolated_subagent_works_in_a_temporary_worktree_that_is_removed_afterwards() {
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q"]);
    std::fs::write(repo.path().join("README.md"), "hello\n").unwrap();
    git(repo.path(), &["add", "README.md"]);
    git(repo.path(), &["commit", "-q", "-m", "first"]);

    let seen: Arc<Mutex<Vec<(PathBuf, String)>>> = Arc::new(Mutex::new(Vec::new()));
    let factory_model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![ToolUse::new("s1", "Write", json!({"text": "scratch"}))]),
        ModelResponse::text("Wrote scratch.txt in my worktree."),
    ]);
    let seen_for = seen.clone();
    let factory = DefaultFactory::new(factory_model.clone()).with_tools_for(move |dir, _parent| {
        let dir = dir.to_owned();
        let seen = seen_for.clone();
        let write: Arc<dyn Tool> =
            Arc::new(FunctionTool::new("Write", "Writes scratch.txt.", move |input: Value, _ctx| {
                let (dir, seen) = (dir.clone(), seen.clone());
                async move {
                    std::fs::write(dir.join("scratch.txt"), input["text"].as_str().unwrap()).unwrap();
                    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
                    seen.lock().unwrap().push((dir.clone(), readme));
                    Ok::<_, ToolError>("written")
                }
            }));
        vec![write]
    });
    let catalog = Catalog::new()
        .with(Definition::new("scratcher", "Writes scratch files.").with_isolation(Isolation::Worktree));
    let agent_tool = AgentTool::new(catalog, factory).with_repo(repo.path());
    let parent_model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![ToolUse::new(
            "p1",
            "Agent",
            json!({"description": "scratch", "prompt": "Write a scratch file.", "subagent_type": "scratcher"}),
        )]),
        ModelResponse::text("Done."),
    ]);
    let parent = Agent::builder()
        .model(parent_model.clone())
        .extension(Orchestration::new(agent_tool))
        .build()
        .unwrap();
    parent.run(RunOptions::text("go")).await.unwrap();

    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "the subagent's tool ran once");
    let (dir, readme) = &seen[0];
    assert_ne!(dir, repo.path());
    assert_eq!(readme, "hello\n", "the worktree holds the repository's files");
    assert!(!dir.exists(), "the worktree {} is removed", dir.display());
    assert!(!repo.path().join("scratch.txt").exists(), "the repository is untouched");
    let worktrees = git(repo.path(), &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
    let answer = parent_model.requests().last().unwrap().messages.last().unwrap().content[0].clone();
    assert!(format!("{answer:?}").contains("Wrote scratch.txt in my worktree."));
}

#[tokio::test]
async fn isolation_outside_a_repository_is_a_stop_with_the_reason() {
    let not_a_repo = tempfile::tempdir().unwrap();
    let catalog =
        Catalog::new().with(Definition::new("iso", "Isolated.").with_isolation(Isolation::Worktree));
    let tool =
        AgentTool::new(catalog, DefaultFactory::new(ScriptedModel::new([]))).with_repo(not_a_repo.path());
    let input = json!({"description": "d", "prompt": "p", "subagent_type": "iso"});
    let result = tool.call(input, dive_core::ToolContext::detached("Agent")).await.unwrap();
    let dive_core::ToolResult::Output(output) = result else { panic!("an output") };
    assert!(output.is_error);
    let text = output.text_content();
    assert!(
        text.starts_with("The subagent stopped early (worktree isolation failed: git worktree add"),
        "{text}"
    );
}
