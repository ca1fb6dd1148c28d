//! The real `dive` binary in print mode (no dialog) with only `Bash(echo:*)` allowed: a
//! command that writes a file through output redirection outside the workspace is refused and
//! never runs, while a plain `echo` and `echo … > /dev/null` still run without asking.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{MockApi, Reply, request_text};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_refuses_a_redirect_past_a_bash_allow_rule() {
    let (sessions, workspace, outside) =
        (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::create_dir_all(workspace.path().join(".dive")).unwrap();
    std::fs::write(
        workspace.path().join(".dive/settings.json"),
        json!({"permissions": {"allow": ["Bash(echo:*)"]}}).to_string(),
    )
    .unwrap();
    let target = outside.path().join("pwned.txt");
    let api = MockApi::start(vec![
        Reply::Tool { id: "toolu_1", name: "Bash", input: json!({"command": "echo plain-echo-ran"}) },
        Reply::Tool { id: "toolu_2", name: "Bash", input: json!({"command": "echo quiet > /dev/null 2>&1"}) },
        Reply::Tool {
            id: "toolu_3",
            name: "Bash",
            input: json!({"command": format!("echo text > {}", target.display())}),
        },
        Reply::Text("done"),
    ])
    .await;
    // The project's allow rule applies only once the workspace is trusted.
    common::trust(&api, sessions.path(), workspace.path());
    let output = api.dive(sessions.path(), workspace.path()).args(["-p", "go"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!target.exists(), "the redirect out of the workspace never ran");
    let bodies = api.bodies();
    assert_eq!(bodies.len(), 4, "three tool calls and the final answer: {stderr}");
    let after_plain = request_text(&bodies[1]);
    assert!(after_plain.contains("plain-echo-ran"), "a plain echo runs: {after_plain}");
    let after_null = request_text(&bodies[2]);
    assert!(!after_null.contains("denied"), "> /dev/null keeps matching: {after_null}");
    let after_redirect = request_text(&bodies[3]);
    assert!(after_redirect.contains("denied"), "the model is told the call was refused: {after_redirect}");
}
