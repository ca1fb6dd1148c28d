//! The real `dive` binary with skills, commands and subagents, against the mock Anthropic
//! API: the model loads a project skill and its body reaches the next request (only once the
//! workspace is trusted), a `.claude/commands` file runs as a slash command, the model
//! delegates to the `Explore` subagent whose own tool calls run against the same mock, and
//! `TaskStop` stops a running `Monitor` command with the process it started.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{MockApi, Reply, dirs, request_text, stderr_of, stdout_of, trust};
use dive_test::process::gone_within;
use serde_json::{Value, json};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_project_skill_loads_only_in_a_trusted_workspace_and_its_body_reaches_the_model() {
    let api = MockApi::start(vec![
        Reply::Text("untrusted answer"),
        Reply::Tool { id: "toolu_1", name: "Skill", input: json!({"skill": "greet"}) },
        Reply::Text("Qapla'!"),
    ])
    .await;
    let (sessions, workspace) = dirs();
    write(
        &workspace.path().join(".claude/skills/greet/SKILL.md"),
        "---\nname: greet\ndescription: Greets in Klingon. Use when asked to greet.\n---\nSay hello in Klingon. MARKER-7731\n",
    );

    let untrusted = api.dive(sessions.path(), workspace.path()).args(["-p", "greet me"]).output().unwrap();
    assert!(untrusted.status.success(), "{}", stderr_of(&untrusted));
    assert!(stderr_of(&untrusted).contains("not trusted"), "{}", stderr_of(&untrusted));
    assert!(
        !api.bodies()[0].to_string().contains("Greets in Klingon"),
        "an untrusted project's skill reached the model"
    );

    trust(&api, sessions.path(), workspace.path());
    let out = api.dive(sessions.path(), workspace.path()).args(["-p", "greet me"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "Qapla'!\n");
    let bodies = api.bodies();
    let skill = bodies[1]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "Skill").unwrap();
    assert_eq!(skill["input_schema"]["properties"]["skill"]["enum"], json!(["greet"]));
    assert!(request_text(&bodies[1]).contains("Greets in Klingon"), "the catalog reaches the model");
    let next = request_text(&bodies[2]);
    assert!(next.contains("<skill_content name=\\\"greet\\\"") && next.contains("MARKER-7731"), "{next}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_file_runs_as_a_slash_command_with_its_arguments() {
    let api = MockApi::start(vec![Reply::Text("Reviewed.")]).await;
    let (sessions, workspace) = dirs();
    write(
        &workspace.path().join(".claude/commands/review.md"),
        "---\ndescription: Reviews a file.\nargument-hint: [file]\n---\nReview $ARGUMENTS for bugs. MARKER-5150\n",
    );
    trust(&api, sessions.path(), workspace.path());
    let out =
        api.dive(sessions.path(), workspace.path()).args(["-p", "/review src/lib.rs"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let sent = request_text(&api.bodies()[0]);
    assert!(sent.contains("Review src/lib.rs for bugs. MARKER-5150"), "{sent}");
    assert!(!sent.contains("$ARGUMENTS"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_delegates_to_explore_which_runs_its_own_tool_calls() {
    let api = MockApi::start(vec![
        // The parent delegates…
        Reply::Tool {
            id: "toolu_1",
            name: "Agent",
            input: json!({"description": "find the answer", "prompt": "What does notes.txt say?", "subagent_type": "Explore"}),
        },
        // …the subagent reads a file with its own tool…
        Reply::Tool { id: "toolu_2", name: "Read", input: json!({"file_path": "notes.txt"}) },
        // …and answers…
        Reply::Text("notes.txt says the answer is 42."),
        // …which the parent reads.
        Reply::Text("The answer is 42."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    write(&workspace.path().join("notes.txt"), "the answer is 42 (MARKER-9071)\n");
    let out =
        api.dive(sessions.path(), workspace.path()).args(["-p", "what is the answer?"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "The answer is 42.\n");
    let bodies = api.bodies();
    assert_eq!(bodies.len(), 4, "{bodies:#?}");
    let parent_tools = tool_names(&bodies[0]);
    for tool in ["Agent", "TaskStop", "Monitor", "TodoWrite"] {
        assert!(parent_tools.iter().any(|t| t == tool), "{tool} missing from {parent_tools:?}");
    }
    let sub_tools = tool_names(&bodies[1]);
    assert!(sub_tools.iter().any(|t| t == "Read"), "{sub_tools:?}");
    for absent in ["Agent", "Write", "Edit", "Bash"] {
        assert!(!sub_tools.iter().any(|t| t == absent), "Explore got {absent}: {sub_tools:?}");
    }
    assert!(request_text(&bodies[1]).contains("What does notes.txt say?"));
    assert!(request_text(&bodies[2]).contains("MARKER-9071"), "the subagent's Read ran");
    assert!(
        request_text(&bodies[3]).contains("notes.txt says the answer is 42."),
        "the answer reached the parent"
    );
}

/// The model starting `command` with `Monitor`.
fn monitor_call(command: &str) -> Reply {
    Reply::Tool { id: "toolu_1", name: "Monitor", input: json!({"command": command, "description": "sleep"}) }
}

/// `dive -p prompt` with every tool call allowed (Monitor would ask).
fn run_unattended(api: &MockApi, sessions: &Path, workspace: &Path, prompt: &str) -> std::process::Output {
    api.dive(sessions, workspace)
        .args(["-p", prompt, "--permission-mode", "bypassPermissions"])
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn task_stop_kills_a_running_monitor_and_the_processes_it_started() {
    let (sessions, workspace) = dirs();
    let pidfile = workspace.path().join("grandchild.pid");
    let command = format!("sleep 300 & echo $! > '{}'; echo started; wait", pidfile.display());
    let grandchild_gone = Arc::new(AtomicBool::new(false));
    let (watched, gone) = (pidfile.clone(), Arc::clone(&grandchild_gone));
    let read_pid = move || std::fs::read_to_string(&watched).ok().and_then(|t| t.trim().parse::<i32>().ok());
    let hook = move |request: usize| {
        let deadline = Instant::now() + Duration::from_secs(20);
        match request {
            // Before the model asks to stop it, the command has started its grandchild.
            1 => {
                while read_pid().is_none() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            // After TaskStop, the grandchild is gone (while dive still runs).
            2 => {
                let pid = read_pid().expect("the grandchild's pid");
                gone.store(gone_within(pid, Duration::from_secs(20)), Ordering::SeqCst);
            }
            _ => {}
        }
    };
    let api = MockApi::start_with_hook(
        vec![
            monitor_call(&command),
            Reply::Tool { id: "toolu_2", name: "TaskStop", input: json!({"task_id": "monitor-1"}) },
            Reply::Text("Stopped it."),
        ],
        Some(Box::new(hook)),
    )
    .await;
    let out = run_unattended(&api, sessions.path(), workspace.path(), "watch then stop");
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "Stopped it.\n");
    assert!(grandchild_gone.load(Ordering::SeqCst), "TaskStop left the Monitor's grandchild running");
    let bodies = api.bodies();
    assert!(request_text(&bodies[1]).contains("monitor-1"), "the model was told the task id");
    assert!(!request_text(&bodies[2]).contains("is_error\":true"), "{}", request_text(&bodies[2]));
}

#[tokio::test(flavor = "multi_thread")]
async fn background_commands_do_not_outlive_dive() {
    let (sessions, workspace) = dirs();
    let pidfile = workspace.path().join("left.pid");
    let command = format!("sleep 300 & echo $! > '{}'; wait", pidfile.display());
    let watched = pidfile.clone();
    let hook = move |request: usize| {
        let deadline = Instant::now() + Duration::from_secs(20);
        while request == 1 && !watched.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let api = MockApi::start_with_hook(
        vec![monitor_call(&command), Reply::Text("Left it running.")],
        Some(Box::new(hook)),
    )
    .await;
    let out = run_unattended(&api, sessions.path(), workspace.path(), "start it");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    assert!(gone_within(pid, Duration::from_secs(10)), "a background command outlived dive");
}

#[tokio::test(flavor = "multi_thread")]
async fn interactive_mode_asks_for_trust_lists_commands_and_shows_the_checklist() {
    let todos = json!({"todos": [
        {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
        {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
        {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"}
    ]});
    let api = MockApi::start(vec![
        Reply::Tool { id: "toolu_1", name: "TodoWrite", input: todos },
        Reply::Text("Planned."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    write(
        &workspace.path().join(".claude/commands/plan.md"),
        "---\ndescription: Plans the work.\nargument-hint: [goal]\n---\nPlan $ARGUMENTS with a todo list. MARKER-3301\n",
    );
    let tmux = common::tmux::Tmux::new();
    let line = common::tmux::dive_line(
        &api,
        sessions.path(),
        workspace.path(),
        &["TERM=xterm-256color", "NO_COLOR=1"],
    );
    tmux.run(&["new-session", "-d", "-s", "t", "-x", "160", "-y", "50", &line]);
    tmux.wait_for("Trust this workspace");
    tmux.run(&["send-keys", "-t", "t", "y", "Enter"]);
    tmux.wait_for("/help for commands");
    tmux.run(&["send-keys", "-t", "t", "/help", "Enter"]);
    tmux.wait_for("/plan [goal]");
    tmux.run(&["send-keys", "-t", "t", "/plan the release", "Enter"]);
    let screen = tmux.wait_for("Planned.");
    assert!(screen.contains("☑ Read the code") && screen.contains("◐ Fixing the bug"), "{screen}");
    assert!(screen.contains("☐ Run the tests"), "{screen}");
    assert!(request_text(&api.bodies()[0]).contains("Plan the release with a todo list. MARKER-3301"));
    tmux.run(&["send-keys", "-t", "t", "/quit", "Enter"]);
    tmux.wait_for("EXITED-0");
    // The answer was saved: the next launch does not ask again.
    let trusted = std::fs::read_to_string(sessions.path().join("trusted-workspaces.json")).unwrap();
    assert!(trusted.contains(&*workspace.path().canonicalize().unwrap().to_string_lossy()), "{trusted}");
}
