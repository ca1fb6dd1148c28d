//! Bash on real processes: output, exit codes, confinement, and timeouts that kill the tree.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::call;
use dive_core::IntoTool;
use dive_toolkit::{BashTool, Workspace};
use serde_json::json;

fn setup() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let ws = Workspace::new(dir.path()).unwrap();
    (dir, ws)
}

use dive_test::process::{gone_within, is_gone as is_dead};

#[tokio::test]
async fn merges_output_and_reports_exit_codes() {
    let (_dir, ws) = setup();
    let bash = BashTool::new(ws).into_tool();
    let out = call(&bash, json!({"command": "echo out; echo err >&2"})).await;
    assert!(!out.is_error);
    let text = out.text_content();
    assert!(text.contains("out\n") && text.contains("err\n"), "{text}");
    let out = call(&bash, json!({"command": "echo nope; exit 3"})).await;
    assert!(out.is_error);
    assert_eq!(out.text_content(), "<error>Exit code 3\nnope\n</error>");
}

#[tokio::test]
async fn runs_in_a_confined_working_directory() {
    let (dir, ws) = setup();
    let bash = BashTool::new(ws).into_tool();
    let out = call(&bash, json!({"command": "pwd", "working_directory": "sub"})).await;
    let real = dir.path().join("sub").canonicalize().unwrap();
    assert_eq!(out.text_content().trim(), real.display().to_string());
    let out = call(&bash, json!({"command": "pwd", "working_directory": ".."})).await;
    assert!(out.is_error && out.text_content().contains("outside the workspace"));
}

#[tokio::test]
async fn caps_output_and_says_so() {
    let (_dir, ws) = setup();
    let bash = BashTool::new(ws).into_tool();
    let out = call(&bash, json!({"command": "head -c 100000 /dev/zero | tr '\\0' 'a'"})).await;
    let text = out.text_content();
    assert!(
        text.contains("[output truncated: showing the first 30000 of about 100000 characters]"),
        "{}",
        &text[30000..]
    );
}

#[tokio::test]
async fn timeout_kills_children_and_grandchildren() {
    let (dir, ws) = setup();
    let bash = BashTool::new(ws).into_tool();
    // The shell starts a child shell that starts a grandchild `sleep`, records both pids, waits.
    let command = "bash -c 'sleep 300 & echo $! > grandchild.pid; wait' & echo $! > child.pid; wait";
    let started = Instant::now();
    let out = call(&bash, json!({"command": command, "timeout": 500})).await;
    assert!(started.elapsed() < Duration::from_secs(20), "returned promptly after the timeout");
    assert!(out.is_error && out.text_content().contains("timed out after 500 ms"), "{}", out.text_content());
    for name in ["child.pid", "grandchild.pid"] {
        let pid: i32 = std::fs::read_to_string(dir.path().join(name)).unwrap().trim().parse().unwrap();
        assert!(gone_within(pid, Duration::from_secs(10)), "{name} {pid} survived the timeout");
    }
}

#[tokio::test]
async fn background_leftovers_are_killed_when_the_command_returns() {
    let (dir, ws) = setup();
    let bash = BashTool::new(ws).into_tool();
    let started = Instant::now();
    let out = call(&bash, json!({"command": "sleep 300 & echo $! > bg.pid; echo started"})).await;
    assert_eq!(out.text_content(), "started\n");
    assert!(started.elapsed() < Duration::from_secs(20), "did not wait for the background sleep");
    let pid: i32 = std::fs::read_to_string(dir.path().join("bg.pid")).unwrap().trim().parse().unwrap();
    assert!(gone_within(pid, Duration::from_secs(10)), "the background sleep outlived the command");
}

#[tokio::test]
async fn dropping_the_call_kills_the_tree() {
    let (dir, ws) = setup();
    let bash = BashTool::new(ws).into_tool();
    let pid_file = dir.path().join("gc.pid");
    let task = tokio::spawn(async move {
        let input = json!({"command": "bash -c 'sleep 300 & echo $! > gc.pid; wait'"});
        bash.call(input, dive_core::ToolContext::detached("Bash")).await.map(|_| ())
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    let pid: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file).ok().and_then(|s| s.trim().parse().ok()) {
            break pid;
        }
        assert!(Instant::now() < deadline, "the command never started");
        tokio::task::yield_now().await;
    };
    assert!(!is_dead(pid));
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    assert!(gone_within(pid, Duration::from_secs(10)), "the grandchild outlived the dropped call");
}
