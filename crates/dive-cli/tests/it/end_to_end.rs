//! The real `dive` binary against a local mock of the Anthropic API: print mode in all three
//! formats, a tool call that edits a real file, a permission prompt answered on stdin, resuming
//! a saved session, Ctrl-C during a tool, the offline notice.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{MockApi, Reply, dirs, request_text, stderr_of, stdout_of};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_in_all_three_formats() {
    let api = MockApi::start(vec![Reply::Text("Hello from the mock."); 3]).await;
    let (sessions, workspace) = dirs();
    let text = api.dive(sessions.path(), workspace.path()).args(["-p", "hi"]).output().unwrap();
    assert!(text.status.success(), "{}", stderr_of(&text));
    assert_eq!(stdout_of(&text), "Hello from the mock.\n");

    let json = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "hi", "--output-format", "json"])
        .output()
        .unwrap();
    let value: Value = serde_json::from_str(&stdout_of(&json)).unwrap();
    assert_eq!(
        (value["status"].as_str(), value["text"].as_str()),
        (Some("completed"), Some("Hello from the mock."))
    );
    assert_eq!(value["turn"]["persistence"], Value::Null, "persistence is runtime-only");
    assert_eq!(value["model_calls"][0]["stop_reason"], "end_turn");

    let stream = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "hi", "--output-format", "stream-json"])
        .output()
        .unwrap();
    let lines: Vec<Value> = stdout_of(&stream).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.iter().any(|l| l["type"] == "model_event"));
    assert!(lines.iter().any(|l| l["type"] == "message"));
    assert_eq!(lines.last().unwrap()["type"], "result");
    assert_eq!(lines.last().unwrap()["text"], "Hello from the mock.");
    // The key went to the server as a header, never to the output.
    assert!(
        !stdout_of(&stream).contains("sk-ant-test-key") && !stderr_of(&stream).contains("sk-ant-test-key")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_from_stdin_and_a_clear_error_on_failure() {
    let api = MockApi::start(vec![Reply::Text("Read it.")]).await;
    let (sessions, workspace) = dirs();
    let mut child = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"summarise this diff").unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    assert!(request_text(&api.bodies()[0]).contains("summarise this diff"));

    let bad = api
        .dive(sessions.path(), workspace.path())
        .args(["-m", "openai/gpt-5.5", "-p", "hi"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let err = stderr_of(&bad);
    assert!(err.contains("not compiled in") || err.contains("OPENAI_API_KEY"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_call_edits_a_real_file() {
    let api = MockApi::start(vec![
        Reply::Tool {
            id: "toolu_1",
            name: "Edit",
            input: json!({"file_path": "calc.rs", "old_string": "a - b", "new_string": "a + b"}),
        },
        Reply::Text("Fixed the sign in calc.rs."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    std::fs::write(workspace.path().join("calc.rs"), "fn add(a: i32, b: i32) -> i32 { a - b }\n").unwrap();
    let output = api
        .dive(sessions.path(), workspace.path())
        .args(["--permission-mode", "accept-edits", "-p", "fix add"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert_eq!(stdout_of(&output), "Fixed the sign in calc.rs.\n");
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("calc.rs")).unwrap(),
        "fn add(a: i32, b: i32) -> i32 { a + b }\n"
    );
    let second = request_text(&api.bodies()[1]);
    assert!(second.contains("tool_result") && second.contains("toolu_1"), "{second}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_permission_prompt_is_answered_on_stdin() {
    let api = MockApi::start(vec![
        Reply::Tool {
            id: "toolu_1",
            name: "Write",
            input: json!({"file_path": "notes.md", "content": "approved\n"}),
        },
        Reply::Text("Wrote notes.md."),
        Reply::Tool {
            id: "toolu_2",
            name: "Write",
            input: json!({"file_path": "other.md", "content": "no\n"}),
        },
        Reply::Text("It was refused."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    let mut child = api
        .dive(sessions.path(), workspace.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"write the notes\ny\nwrite another\nn\n/usage\n/quit\n").unwrap();
    let output = child.wait_with_output().unwrap();
    let (out, err) = (stdout_of(&output), stderr_of(&output));
    assert!(output.status.success(), "{err}");
    assert!(err.contains("Permission needed: Write"), "{err}");
    assert_eq!(std::fs::read_to_string(workspace.path().join("notes.md")).unwrap(), "approved\n");
    assert!(!workspace.path().join("other.md").exists(), "the refused write never ran");
    assert!(out.contains("Wrote notes.md.") && out.contains("It was refused."), "{out}");
    assert!(err.contains("in ·") && err.contains("out tokens"), "/usage printed: {err}");
    let fourth = request_text(&api.bodies()[3]);
    assert!(fourth.contains("refused"), "the model read the denial: {fourth}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_saved_session_is_resumed_in_a_second_run() {
    let api = MockApi::start(vec![Reply::Text("Noted: 42."), Reply::Text("You said 42.")]).await;
    let (sessions, workspace) = dirs();
    let first =
        api.dive(sessions.path(), workspace.path()).args(["-p", "remember the number 42"]).output().unwrap();
    assert!(first.status.success(), "{}", stderr_of(&first));
    let list = api.dive(sessions.path(), workspace.path()).args(["sessions", "list"]).output().unwrap();
    let id = stdout_of(&list).split_whitespace().next().unwrap().to_owned();
    assert!(id.starts_with("session_"), "{}", stdout_of(&list));

    let second = api
        .dive(sessions.path(), workspace.path())
        .args(["--resume", &id, "-p", "which number?"])
        .output()
        .unwrap();
    assert!(second.status.success(), "{}", stderr_of(&second));
    let sent = request_text(&api.bodies()[1]);
    assert!(sent.contains("remember the number 42") && sent.contains("Noted: 42."), "{sent}");

    let show = api.dive(sessions.path(), workspace.path()).args(["sessions", "show", &id]).output().unwrap();
    let shown = stdout_of(&show);
    assert!(shown.contains("you: which number?") && shown.contains("dive: You said 42."), "{shown}");
    let export =
        api.dive(sessions.path(), workspace.path()).args(["sessions", "export", &id]).output().unwrap();
    let document: Value = serde_json::from_str(&stdout_of(&export)).unwrap();
    assert_eq!(document["format"], "dive.session");
    let delete =
        api.dive(sessions.path(), workspace.path()).args(["sessions", "delete", &id]).output().unwrap();
    assert!(delete.status.success());
    let missing =
        api.dive(sessions.path(), workspace.path()).args(["--resume", &id, "-p", "x"]).output().unwrap();
    assert!(!missing.status.success() && stderr_of(&missing).contains("no saved session"));
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_during_a_tool_saves_the_turn_as_incomplete() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let api = MockApi::start(vec![Reply::Tool {
        id: "toolu_1",
        name: "Bash",
        input: json!({"command": "sleep 30"}),
    }])
    .await;
    let (sessions, workspace) = dirs();
    let started = Instant::now();
    let child = api
        .dive(sessions.path(), workspace.path())
        .args(["--dangerously-skip-permissions", "-p", "wait a bit"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap());
    while api.bodies().is_empty() {
        assert!(started.elapsed() < Duration::from_secs(30), "dive never called the model");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    kill(pid, Signal::SIGINT).unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    kill(pid, Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(20), "the second Ctrl-C stopped the tool");
    assert!(!output.status.success());
    assert!(stderr_of(&output).contains("cancelled"), "{}", stderr_of(&output));
    let list = api.dive(sessions.path(), workspace.path()).args(["sessions", "list"]).output().unwrap();
    let id = stdout_of(&list).split_whitespace().next().unwrap().to_owned();
    let show = api.dive(sessions.path(), workspace.path()).args(["sessions", "show", &id]).output().unwrap();
    let shown = stdout_of(&show);
    assert!(
        shown.contains("Unknown result") && shown.contains("open turn") && shown.contains("incomplete"),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_key_it_says_it_runs_offline() {
    let (sessions, workspace) = dirs();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_dive"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", sessions.path())
        .args(["--session-dir"])
        .arg(sessions.path())
        .arg("--workspace")
        .arg(workspace.path())
        .args(["-p", "hello"])
        .current_dir(workspace.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr_of(&output));
    assert!(stderr_of(&output).contains("running offline on the test model"));
    assert!(stdout_of(&output).contains("Called"), "{}", stdout_of(&output));
}
