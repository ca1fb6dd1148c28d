//! `Monitor` and `TaskStop` on real child processes: the model starts a command whose
//! grandchild sleeps, reads the grandchild's pid from the notification on its next call, and
//! stops the command with `TaskStop`, after which the grandchild is gone; long lines are cut;
//! a timeout kills the whole tree.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dive_agent::{Agent, RunOptions};
use dive_core::{Content, Message, ModelResponse, ToolUse};
use dive_subagent::{
    AgentTool, Catalog, DefaultFactory, MAX_LINE_BYTES, MonitorTool, NOTIFICATION_REMINDER, Orchestration,
    RunStatus, Runs,
};
use dive_test::ScriptedModel;
use serde_json::json;

use dive_test::process::is_gone;

/// A command whose grandchild (`sleep`, started by the shell's subshell) prints its pid.
const SLEEPER: &str = "(sleep 300 & echo \"pid $!\"; wait) ; echo never";

/// Whether the process is gone within 10 s: a SIGKILL sent to a process group is delivered
/// asynchronously, so on a loaded machine the process may still be on its way out when the
/// kill call returns. A process that was never killed stays and fails this.
async fn gone(pid: i32) -> bool {
    for _ in 0..1_000 {
        if is_gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

fn pid_in(text: &str) -> i32 {
    let at = text.find("pid ").expect("the pid line") + 4;
    text[at..].split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn task_stop_kills_a_running_monitor_and_its_grandchildren() {
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![ToolUse::new(
            "m1",
            "Monitor",
            json!({"command": SLEEPER, "description": "sleep a long time"}),
        )]),
        ModelResponse::text("Watching."),
        ModelResponse::tool_calls(vec![ToolUse::new("t1", "TaskStop", json!({"task_id": "monitor-1"}))]),
        ModelResponse::text("Stopped."),
    ]);
    let orchestration =
        Orchestration::new(AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(model.clone())));
    let parent = Agent::builder().model(model.clone()).extension(orchestration.clone()).build().unwrap();
    parent.run(RunOptions::text("Start the sleeper.")).await.unwrap();
    let runs = orchestration.runs();
    runs.wait_until("monitor-1", |s| s.lines >= 1).await.unwrap();

    let messages =
        vec![Message::user("Start the sleeper."), Message::assistant("Watching."), Message::user("Stop it.")];
    let response = parent.run(RunOptions::messages(messages)).await.unwrap();
    assert_eq!(response.output_text(), "Stopped.");
    let requests = model.requests().all();
    let notification = requests[2]
        .messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(Content::as_reminder)
        .find(|r| r.name == NOTIFICATION_REMINDER)
        .expect("the output line reaches the next call");
    assert!(notification.content.contains("<status>running</status>"), "{}", notification.content);
    let pid = pid_in(&notification.content);
    let stopped = requests[3].messages.last().unwrap().content.iter().find_map(|c| match c {
        Content::ToolResult(r) => Some(r.text_content()),
        _ => None,
    });
    assert_eq!(stopped.as_deref(), Some("Stopped task monitor-1 (stopped)."));
    assert_eq!(runs.get("monitor-1").unwrap().status, RunStatus::Stopped);
    assert!(gone(pid).await, "the grandchild {pid} was killed with its process group");
    let again = runs.stop("monitor-1").unwrap_err();
    assert_eq!(again.to_string(), "the background task \"monitor-1\" has already finished");
}

#[tokio::test]
async fn a_timeout_kills_the_whole_tree() {
    let runs = Runs::new();
    let run = MonitorTool::new(runs.clone()).start(SLEEPER, "sleeper", Duration::from_secs(2)).unwrap();
    let running = runs.wait_until(run.id(), |s| s.lines >= 1).await.unwrap();
    assert_eq!(running.status, RunStatus::Running, "the pid line arrives before the timeout");
    let done = runs.wait(run.id()).await.unwrap();
    assert_eq!(done.status, RunStatus::Failed);
    assert_eq!(done.result.as_deref(), Some("timed out after 2000 ms and was killed"));
    let notes = runs.take_notifications().join("\n");
    assert!(gone(pid_in(&notes)).await, "{notes}");
    assert!(!notes.contains("never"), "the shell was killed before its next command");
}

#[tokio::test]
async fn long_lines_are_cut_and_every_line_arrives() {
    let runs = Runs::new();
    let command =
        format!("echo first; head -c {} /dev/zero | tr '\\0' x; echo; echo last >&2", MAX_LINE_BYTES + 10);
    let run = MonitorTool::new(runs.clone()).start(&command, "long", Duration::from_secs(60)).unwrap();
    let done = runs.wait(run.id()).await.unwrap();
    assert_eq!((done.status, done.lines), (RunStatus::Completed, 3));
    let notes = runs.take_notifications().join("\n");
    let long = notes.lines().find(|l| l.starts_with("xxx")).unwrap();
    assert_eq!(long.len(), MAX_LINE_BYTES + " [line truncated]".len());
    assert!(long.ends_with("x [line truncated]"));
    assert!(notes.contains("first") && notes.contains("last"));
    assert!(notes.contains("<status>completed</status>\n<result>\nexited with code 0\n</result>"), "{notes}");
}
