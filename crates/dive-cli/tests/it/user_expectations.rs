//! The real `dive` binary does what a user expects (against the local mock of the Anthropic
//! API): offline answers shown in interactive mode, non-UTF-8 stdin, tool lines that show what
//! runs, no colour off a terminal, JSON with the session id and an error object, errors in the
//! user's words, workspace-aware sessions, Claude Code's mode spellings, the web and question
//! tools, user settings, visible retries, a stalled stream cut by the idle timeout, answers
//! without streaming, and Ctrl-C stopping a stream at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::stall::{PARTIAL, StallingApi};
use common::{Lines, MockApi, Reply, dirs, first_session, request_text, stderr_of as err, stdout_of as out};
use serde_json::{Value, json};

/// Runs `cmd` with `stdin` piped in, and waits.
fn with_stdin(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// A `dive` command with no key at all (offline).
fn offline_dive(sessions: &std::path::Path, workspace: &std::path::Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_dive"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", sessions)
        .arg("--session-dir")
        .arg(sessions)
        .arg("--workspace")
        .arg(workspace)
        .current_dir(workspace);
    cmd
}

/// A child's output read as it comes (text without a newline included).
struct Chunks {
    rx: std::sync::mpsc::Receiver<Vec<u8>>,
}

impl Chunks {
    fn read(mut stream: impl std::io::Read + Send + 'static) -> Self {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stream.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Self { rx }
    }

    fn wait_for(&self, needle: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        while !String::from_utf8_lossy(&seen).contains(needle) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(chunk) => seen.extend(chunk),
                Err(_) => panic!("no {needle:?} within {timeout:?}: {:?}", String::from_utf8_lossy(&seen)),
            }
        }
    }
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn offline_interactive_mode_shows_the_answer() {
    let (sessions, workspace) = dirs();
    std::fs::write(workspace.path().join("README.md"), "hello\n").unwrap();
    let output = with_stdin(&mut offline_dive(sessions.path(), workspace.path()), b"hello\n/quit\n");
    assert!(output.status.success(), "{}", err(&output));
    assert!(err(&output).contains("running offline"), "{}", err(&output));
    assert!(out(&output).contains("Called"), "the test model's answer is printed: {}", out(&output));
}

#[tokio::test(flavor = "multi_thread")]
async fn non_utf8_stdin_is_decoded_lossily_with_a_note() {
    let api = MockApi::start(vec![Reply::Text("Reviewed."), Reply::Text("Noted.")]).await;
    let (sessions, workspace) = dirs();
    let diff = b"diff --git a/n.txt b/n.txt\n+caf\xe9 au lait\n+\xff\xfe binary\n";
    let output = with_stdin(api.dive(sessions.path(), workspace.path()).args(["-p", "review this"]), diff);
    assert!(output.status.success(), "{}", err(&output));
    assert_eq!(out(&output), "Reviewed.\n");
    assert!(err(&output).contains("not valid UTF-8"), "{}", err(&output));
    let sent = request_text(&api.bodies()[0]);
    assert!(sent.contains("review this") && sent.contains("caf\u{FFFD} au lait"), "{sent}");

    // A line that is not UTF-8 in interactive mode is decoded too, not taken for the end.
    let output = with_stdin(&mut api.dive(sessions.path(), workspace.path()), b"caf\xe9 noir\n/quit\n");
    assert!(output.status.success(), "{}", err(&output));
    let sent = request_text(&api.bodies()[1]);
    assert!(sent.contains("caf\u{FFFD} noir"), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_lines_show_the_command_and_no_colour_reaches_a_pipe() {
    let api = MockApi::start(vec![
        Reply::Tool {
            id: "toolu_1",
            name: "Bash",
            input: json!({"command": "echo from-bash", "description": "Say hello politely"}),
        },
        Reply::Tool {
            id: "toolu_2",
            name: "Write",
            input: json!({"file_path": "notes.md", "content": "first line\nsecond line\n"}),
        },
        Reply::Tool {
            id: "toolu_3",
            name: "Edit",
            input: json!({"file_path": "long.txt", "old_string": "line 20\n", "new_string": "line twenty\n"}),
        },
        Reply::Text("Done."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    let long: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    std::fs::write(workspace.path().join("long.txt"), long).unwrap();
    let mut cmd = api.dive(sessions.path(), workspace.path());
    cmd.env("TERM", "xterm-256color").arg("--dangerously-skip-permissions");
    let output = with_stdin(&mut cmd, b"run it\n/quit\n");
    assert!(output.status.success(), "{}", err(&output));
    let (stdout, stderr) = (out(&output), err(&output));
    assert!(stdout.contains("⏺ Bash(echo from-bash)"), "{stdout}");
    assert!(!stdout.contains("Say hello politely"), "the description is not the tool line: {stdout}");
    assert!(stdout.contains("⏺ Write notes.md") && stdout.contains("first line"), "{stdout}");
    assert!(
        stdout.contains("⏺ Edit long.txt") && stdout.contains("@@ -18,5 +18,5 @@"),
        "file line numbers: {stdout}"
    );
    assert!(stdout.contains("-line 20") && stdout.contains("+line twenty"), "{stdout}");
    assert!(
        !stdout.contains('\u{1b}') && !stderr.contains('\u{1b}'),
        "no escapes off a terminal:\n{stdout:?}\n{stderr:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn json_output_has_the_session_id_and_an_error_object_on_failure() {
    let api = MockApi::start(vec![
        Reply::Text("Hi."),
        Reply::Status {
            status: 401,
            body: r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            retry_after: None,
        },
    ])
    .await;
    let (sessions, workspace) = dirs();
    let ok = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "hi", "--output-format", "json"])
        .output()
        .unwrap();
    let value: Value = serde_json::from_str(&out(&ok)).unwrap();
    assert_eq!(
        value["session_id"].as_str(),
        Some(first_session(&api, sessions.path(), workspace.path()).as_str())
    );
    assert!(value.get("error").is_none());

    let failed = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "hi", "--output-format", "json"])
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(1));
    let value: Value = serde_json::from_str(&out(&failed)).unwrap();
    assert!(value["session_id"].as_str().unwrap().starts_with("session_"), "{value}");
    assert_eq!(value["error"]["kind"], "authentication", "{value}");
    let message = value["error"]["message"].as_str().unwrap();
    assert!(message.contains("ANTHROPIC_API_KEY") && message.contains("invalid x-api-key"), "{message}");
    assert!(err(&failed).contains("check ANTHROPIC_API_KEY"), "{}", err(&failed));
}

#[test]
fn a_missing_key_says_which_variable_to_set() {
    let (sessions, workspace) = dirs();
    let output = offline_dive(sessions.path(), workspace.path())
        .args(["-m", "anthropic/claude-sonnet-5-5", "-p", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = err(&output);
    assert!(stderr.contains("no API key for anthropic: set ANTHROPIC_API_KEY"), "{stderr}");
    assert!(!stderr.contains("Builder"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn continue_prefers_this_workspace_and_resume_shows_the_last_exchanges() {
    let api = MockApi::start(vec![
        Reply::Text("Noted for A."),
        Reply::Text("Noted for B."),
        Reply::Text("Back in A."),
        Reply::Text("More for B."),
    ])
    .await;
    let sessions = tempfile::tempdir().unwrap();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    assert!(api.dive(sessions.path(), a.path()).args(["-p", "work in A"]).output().unwrap().status.success());
    assert!(api.dive(sessions.path(), b.path()).args(["-p", "work in B"]).output().unwrap().status.success());
    let next = api.dive(sessions.path(), a.path()).args(["-c", "-p", "go on"]).output().unwrap();
    assert!(next.status.success(), "{}", err(&next));
    let sent = request_text(&api.bodies()[2]);
    assert!(sent.contains("work in A") && !sent.contains("work in B"), "-c took A's session: {sent}");

    // B is the most recent now; the picker still lists A's session first and says where each ran.
    assert!(
        api.dive(sessions.path(), b.path())
            .args(["-c", "-p", "more in B"])
            .output()
            .unwrap()
            .status
            .success()
    );
    let picked = with_stdin(api.dive(sessions.path(), a.path()).arg("--resume"), b"1\n/quit\n");
    let shown = err(&picked);
    let listed: Vec<&str> =
        shown.lines().filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit())).collect();
    assert_eq!(listed.len(), 2, "{shown}");
    assert!(listed[0].contains(", here)") && !listed[1].contains(", here)"), "{shown}");
    assert!(shown.contains("you: go on"), "the first pick resumed A's session: {shown}");

    let list = api.dive(sessions.path(), a.path()).args(["sessions", "list"]).output().unwrap();
    let canonical_a = std::fs::canonicalize(a.path()).unwrap();
    assert!(out(&list).contains(&format!("[{}]", canonical_a.display())), "{}", out(&list));

    let id = out(&list)
        .lines()
        .find(|l| l.contains(&canonical_a.display().to_string()))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_owned();
    let resumed = with_stdin(api.dive(sessions.path(), a.path()).args(["--resume", &id]), b"/quit\n");
    let stderr = err(&resumed);
    assert!(
        stderr.contains("last exchanges")
            && stderr.contains("you: go on")
            && stderr.contains("dive: Back in A."),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sessions_show_keeps_the_turns_before_a_compaction() {
    let api =
        MockApi::start(vec![Reply::Text("Noted: the secret is 7."), Reply::Compaction("SUMMARY: secret 7")])
            .await;
    let (sessions, workspace) = dirs();
    let output =
        with_stdin(&mut api.dive(sessions.path(), workspace.path()), b"the secret is 7\n/compact\n/quit\n");
    assert!(err(&output).contains("compacted"), "{}", err(&output));
    let id = first_session(&api, sessions.path(), workspace.path());
    let show = api.dive(sessions.path(), workspace.path()).args(["sessions", "show", &id]).output().unwrap();
    let shown = out(&show);
    assert!(
        shown.contains("you: the secret is 7") && shown.contains("dive: Noted: the secret is 7."),
        "{shown}"
    );
    assert!(shown.contains("compacted") && shown.contains("SUMMARY: secret 7"), "{shown}");
}

/// A session that notes a number, `/compact keep every number`, then asks for it: the bodies
/// the server received (the compaction reported on the terminal).
fn compact_with_instructions(api: &MockApi) -> Vec<Value> {
    let (sessions, workspace) = dirs();
    let output = with_stdin(
        &mut api.dive(sessions.path(), workspace.path()),
        b"the secret is 7\n/compact keep every number\nwhat was it?\n/quit\n",
    );
    assert!(err(&output).contains("compacted 2 messages"), "{}", err(&output));
    api.bodies()
}

#[tokio::test(flavor = "multi_thread")]
async fn compact_passes_its_instructions_and_the_next_turn_starts_from_the_summary() {
    // Anthropic compacts natively: `/compact` sends the window with the `compaction` parameter
    // and its instructions, and the next turn replays the signed block first.
    let api = MockApi::start(vec![
        Reply::Text("Noted: the secret is 7."),
        Reply::Compaction("SUMMARY: the secret is 7"),
        Reply::Text("It is 7."),
    ])
    .await;
    let bodies = compact_with_instructions(&api);
    assert_eq!(bodies.len(), 3);
    assert_eq!(bodies[1]["compaction"], json!({"type": "summarize", "instructions": "keep every number"}));
    assert!(bodies[1]["messages"].to_string().contains("Noted: the secret is 7."));
    let next = &bodies[2]["messages"];
    assert_eq!(next[0]["content"][0]["type"], "compaction");
    assert_eq!(next[0]["content"][0]["content"], "SUMMARY: the secret is 7");
    assert_eq!(next[0]["content"][0]["signature"], "mock-signature");
    assert!(!next.to_string().contains("Noted: the secret is 7."), "{next}");
}

#[tokio::test(flavor = "multi_thread")]
async fn compact_falls_back_to_a_summary_when_the_server_cannot_compact() {
    // A server that answers the compaction request with an ordinary message (an endpoint
    // without the feature): the CLI summarises with an ordinary call instead.
    let api = MockApi::start(vec![
        Reply::Text("Noted: the secret is 7."),
        Reply::Text("not a compaction"),
        Reply::Text("SUMMARY: the secret is 7"),
        Reply::Text("It is 7."),
    ])
    .await;
    let bodies = compact_with_instructions(&api);
    assert_eq!(bodies.len(), 4);
    let summarising = bodies[2]["messages"].to_string();
    assert!(summarising.contains("Summarise this conversation"), "{summarising}");
    assert!(summarising.contains("Additional instructions: keep every number"), "{summarising}");
    let next = bodies[3]["messages"].to_string();
    assert!(
        next.contains("Summary of the conversation so far:") && next.contains("SUMMARY: the secret is 7")
    );
    assert!(!next.contains("Noted: the secret is 7."), "{next}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_context_overflow_is_compacted_automatically_and_the_turn_retried() {
    let api = MockApi::start(vec![
        Reply::Text("Noted: the secret is 7."),
        Reply::Status {
            status: 400,
            body: r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 201000 tokens > 200000 maximum"}}"#,
            retry_after: None,
        },
        Reply::Compaction("SUMMARY: the secret is 7"),
        Reply::Text("It is 7."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    let output = with_stdin(
        &mut api.dive(sessions.path(), workspace.path()),
        b"the secret is 7\nwhat was it?\n/quit\n",
    );
    assert!(out(&output).contains("It is 7."), "{}\n{}", out(&output), err(&output));
    let bodies = api.bodies();
    assert_eq!(bodies.len(), 4);
    assert_eq!(bodies[2]["compaction"]["type"], "summarize");
    let retried = bodies[3]["messages"].to_string();
    assert!(retried.contains("SUMMARY: the secret is 7") && retried.contains("what was it?"), "{retried}");
    assert!(!retried.contains("Noted: the secret is 7."), "{retried}");
    // The saved transcript still has the exchange the summary replaced.
    let id = first_session(&api, sessions.path(), workspace.path());
    let show = api.dive(sessions.path(), workspace.path()).args(["sessions", "show", &id]).output().unwrap();
    let shown = out(&show);
    assert!(shown.contains("dive: Noted: the secret is 7.") && shown.contains("compacted"), "{shown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_mode_spellings_are_accepted() {
    let api = MockApi::start(vec![
        Reply::Tool {
            id: "toolu_1",
            name: "Edit",
            input: json!({"file_path": "calc.rs", "old_string": "a - b", "new_string": "a + b"}),
        },
        Reply::Text("Fixed."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    std::fs::write(workspace.path().join("calc.rs"), "a - b\n").unwrap();
    let output = api
        .dive(sessions.path(), workspace.path())
        .args(["--permission-mode", "acceptEdits", "-p", "fix"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", err(&output));
    assert_eq!(std::fs::read_to_string(workspace.path().join("calc.rs")).unwrap(), "a + b\n");
    for mode in ["bypassPermissions", "dontAsk", "default", "plan"] {
        let check = api
            .dive(sessions.path(), workspace.path())
            .args(["--permission-mode", mode, "--help"])
            .output()
            .unwrap();
        assert!(check.status.success(), "{mode}: {}", err(&check));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn web_fetch_asks_per_domain_and_refuses_local_addresses() {
    let api = MockApi::start(vec![
        Reply::Tool { id: "toolu_1", name: "WebFetch", input: json!({"url": "http://127.0.0.1:9/a"}) },
        Reply::Tool { id: "toolu_2", name: "WebFetch", input: json!({"url": "http://127.0.0.1:9/b"}) },
        Reply::Tool { id: "toolu_3", name: "WebFetch", input: json!({"url": "http://localhost:9/c"}) },
        Reply::Text("Done fetching."),
        Reply::Text("printed"),
    ])
    .await;
    let (sessions, workspace) = dirs();
    // "a": always allow this domain for the session; the second domain asks again and is refused.
    let output = with_stdin(&mut api.dive(sessions.path(), workspace.path()), b"fetch them\na\nn\n/quit\n");
    let stderr = err(&output);
    assert!(output.status.success(), "{:?} {stderr}", output.status);
    assert_eq!(stderr.matches("Permission needed: WebFetch").count(), 2, "once per domain: {stderr}");
    let bodies = api.bodies();
    let tools = tool_names(&bodies[0]);
    assert!(
        tools.contains(&"WebFetch".to_owned()) && tools.contains(&"AskUserQuestion".to_owned()),
        "{tools:?}"
    );
    assert!(!tools.contains(&"WebSearch".to_owned()), "no search key, no WebSearch: {tools:?}");
    let first = request_text(&bodies[1]);
    assert!(first.contains("not a public address"), "allowed, then refused by the address guard: {first}");
    let second = request_text(&bodies[2]);
    assert!(second.contains("toolu_2") && second.matches("not a public address").count() == 2, "{second}");
    let third = request_text(&bodies[3]);
    assert!(third.contains("refused"), "the other domain was asked and refused: {third}");

    let mut print = api.dive(sessions.path(), workspace.path());
    print.env("BRAVE_SEARCH_API_KEY", "brave-test-key").args(["-p", "hi"]);
    assert!(print.output().unwrap().status.success());
    let tools = tool_names(&api.bodies()[4]);
    assert!(tools.contains(&"WebSearch".to_owned()), "a search key offers WebSearch: {tools:?}");
    assert!(!tools.contains(&"AskUserQuestion".to_owned()), "print mode cannot answer questions: {tools:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_user_question_is_answered_on_the_terminal_and_kept_out_of_history() {
    let api = MockApi::start(vec![
        Reply::Tool {
            id: "toolu_1",
            name: "AskUserQuestion",
            input: json!({"question": "Which colour?", "type": "select", "options": ["red", "blue"]}),
        },
        Reply::Text("Blue it is."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    let output = with_stdin(&mut api.dive(sessions.path(), workspace.path()), b"pick one\n2\n/quit\n");
    assert!(output.status.success(), "{}", err(&output));
    assert!(err(&output).contains("? Which colour?") && err(&output).contains("2. blue"), "{}", err(&output));
    let result = request_text(&api.bodies()[1]);
    assert!(result.contains(r#"\"selected\":[\"blue\"]"#), "{result}");
    assert!(out(&output).contains("Blue it is."));
}

#[tokio::test(flavor = "multi_thread")]
async fn user_settings_are_read_and_unknown_keys_warn() {
    let api = MockApi::start(vec![
        Reply::Tool {
            id: "toolu_1",
            name: "Edit",
            input: json!({"file_path": "calc.rs", "old_string": "a - b", "new_string": "a + b"}),
        },
        Reply::Text("Fixed."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    // The harness sets HOME to the session directory.
    let user = sessions.path().join(".dive/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, r#"{"permissions": {"defaultMode": "acceptEdits"}, "colour": "blue"}"#).unwrap();
    std::fs::write(workspace.path().join("calc.rs"), "a - b\n").unwrap();
    let output = api.dive(sessions.path(), workspace.path()).args(["-p", "fix"]).output().unwrap();
    assert!(output.status.success(), "{}", err(&output));
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("calc.rs")).unwrap(),
        "a + b\n",
        "acceptEdits came from ~/.dive"
    );
    let stderr = err(&output);
    assert!(
        stderr.contains("unknown setting \"colour\"") && stderr.contains(&user.display().to_string()),
        "{stderr}"
    );

    std::fs::write(&user, r#"{"permissions": {"defaultMode": "sometimes"}}"#).unwrap();
    let bad = api.dive(sessions.path(), workspace.path()).args(["-p", "fix"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        err(&bad).contains(&user.display().to_string()),
        "the error names ~/.dive/settings.json: {}",
        err(&bad)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn retries_are_shown() {
    let api = MockApi::start(vec![
        Reply::Status {
            status: 429,
            body: r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
            retry_after: Some("1"),
        },
        Reply::Text("Answer after the retry."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    let output = api.dive(sessions.path(), workspace.path()).args(["-p", "hi"]).output().unwrap();
    assert!(output.status.success(), "{}", err(&output));
    assert_eq!(out(&output), "Answer after the retry.\n");
    assert!(err(&output).contains("retrying in 1 s after 429 (rate limited)"), "{}", err(&output));
}

#[test]
fn a_stalled_stream_is_cut_after_the_idle_timeout() {
    let api = StallingApi::start();
    let (sessions, workspace) = dirs();
    let started = Instant::now();
    let output = offline_dive(sessions.path(), workspace.path())
        .env("ANTHROPIC_API_KEY", "sk-ant-test-key")
        .env("ANTHROPIC_BASE_URL", &api.uri)
        .args(["--stream-idle-timeout", "1", "-p", "hi"])
        .output()
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "cut long before the stall ends: {:?}",
        started.elapsed()
    );
    assert_eq!(output.status.code(), Some(1), "{}", err(&output));
    assert!(api.requests() >= 1);
    let stderr = err(&output);
    assert!(stderr.contains("anthropic") && stderr.contains("--stream-idle-timeout"), "{stderr}");

    // The same limit from the settings file.
    let settings = workspace.path().join(".dive/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, r#"{"streamIdleTimeout": 1}"#).unwrap();
    let started = Instant::now();
    let output = offline_dive(sessions.path(), workspace.path())
        .env("ANTHROPIC_API_KEY", "sk-ant-test-key")
        .env("ANTHROPIC_BASE_URL", &api.uri)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
    assert!(err(&output).contains("went silent"), "{}", err(&output));
}

#[tokio::test(flavor = "multi_thread")]
async fn no_stream_gets_the_answer_whole() {
    let api = MockApi::start(vec![Reply::Text("Whole answer."), Reply::Text("Whole again.")]).await;
    let (sessions, workspace) = dirs();
    let output =
        api.dive(sessions.path(), workspace.path()).args(["--no-stream", "-p", "hi"]).output().unwrap();
    assert!(output.status.success(), "{}", err(&output));
    assert_eq!(out(&output), "Whole answer.\n");
    assert_ne!(api.bodies()[0]["stream"], json!(true), "{}", api.bodies()[0]);

    let settings = workspace.path().join(".dive/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, r#"{"stream": false}"#).unwrap();
    let output = with_stdin(&mut api.dive(sessions.path(), workspace.path()), b"hi\n/quit\n");
    assert!(
        out(&output).contains("Whole again."),
        "interactive mode prints a whole answer: {}",
        out(&output)
    );
    assert_ne!(api.bodies()[1]["stream"], json!(true));
}

#[test]
fn ctrl_c_stops_a_stream_at_once_and_keeps_what_arrived() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let api = StallingApi::start();
    let (sessions, workspace) = dirs();
    let mut child = offline_dive(sessions.path(), workspace.path())
        .env("ANTHROPIC_API_KEY", "sk-ant-test-key")
        .env("ANTHROPIC_BASE_URL", &api.uri)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = Chunks::read(child.stdout.take().unwrap());
    let stderr = Lines::read(child.stderr.take().unwrap());
    stdin.write_all(b"tell me everything\n").unwrap();
    stdout.wait_for(PARTIAL, Duration::from_secs(30));
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap());
    let pressed = Instant::now();
    kill(pid, Signal::SIGINT).unwrap();
    stdin.write_all(b"/quit\n").unwrap();
    let status = child.wait().unwrap();
    assert!(
        pressed.elapsed() < Duration::from_secs(15),
        "one Ctrl-C stopped the stalled stream: {:?}",
        pressed.elapsed()
    );
    assert!(status.success());
    let stderr = stderr.rest();
    assert!(stderr.contains("(stopped)"), "{stderr}");
    let show = offline_dive(sessions.path(), workspace.path()).args(["sessions", "list"]).output().unwrap();
    let id = out(&show).split_whitespace().next().unwrap().to_owned();
    let shown =
        offline_dive(sessions.path(), workspace.path()).args(["sessions", "show", &id]).output().unwrap();
    assert!(
        out(&shown).contains(&format!("dive: {PARTIAL}")) && out(&shown).contains("incomplete"),
        "{}",
        out(&shown)
    );
}

#[test]
fn in_print_mode_one_ctrl_c_stops_a_stream_too() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let api = StallingApi::start();
    let (sessions, workspace) = dirs();
    let mut child = offline_dive(sessions.path(), workspace.path())
        .env("ANTHROPIC_API_KEY", "sk-ant-test-key")
        .env("ANTHROPIC_BASE_URL", &api.uri)
        .args(["--output-format", "stream-json", "-p", "tell me everything"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = Chunks::read(child.stdout.take().unwrap());
    stdout.wait_for(PARTIAL, Duration::from_secs(30));
    let pressed = Instant::now();
    kill(Pid::from_raw(i32::try_from(child.id()).unwrap()), Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(pressed.elapsed() < Duration::from_secs(15), "stopped at once: {:?}", pressed.elapsed());
    assert_eq!(output.status.code(), Some(1));
    assert!(err(&output).contains("cancelled"), "{}", err(&output));
}
