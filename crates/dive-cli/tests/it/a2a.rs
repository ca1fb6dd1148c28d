//! The real `dive` binary and A2A: `dive a2a serve` exposes the agent (on the mock model) and
//! `dive a2a call` — another real process — asks it, with the bearer token both sides read from
//! `DIVE_A2A_TOKEN`; a call without the token is refused.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{Lines, MockApi, Reply, dirs, request_text, stderr_of, stdout_of};

/// A port free right now on 127.0.0.1.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `dive a2a serve` on a free port, started and ready (with `token` as `DIVE_A2A_TOKEN`);
/// returns it and its URL.
fn serve(api: &MockApi, sessions: &Path, workspace: &Path, token: Option<&str>) -> (Served, String) {
    let port = free_port();
    let mut command = api.dive(sessions, workspace);
    command.args(["a2a", "serve", "--addr", &format!("127.0.0.1:{port}")]).stderr(Stdio::piped());
    if let Some(token) = token {
        command.env("DIVE_A2A_TOKEN", token);
    }
    let mut child = command.spawn().unwrap();
    let mut lines = Lines::read(child.stderr.take().unwrap());
    let served = Served(child);
    lines.wait_for("serving A2A at", Duration::from_secs(60));
    (served, format!("http://127.0.0.1:{port}/"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a2a_call_asks_the_agent_a2a_serve_exposes() {
    let api = MockApi::start(vec![Reply::Text("Served over A2A.")]).await;
    let (sessions, workspace) = dirs();
    let (_served, url) = serve(&api, sessions.path(), workspace.path(), Some("a2a-secret-token"));

    let refused =
        api.dive(sessions.path(), workspace.path()).args(["a2a", "call", &url, "hello"]).output().unwrap();
    assert!(!refused.status.success(), "a call without the token was served");

    let started = Instant::now();
    let out = api
        .dive(sessions.path(), workspace.path())
        .args(["a2a", "call", &url, "hello from the caller"])
        .env("DIVE_A2A_TOKEN", "a2a-secret-token")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "Served over A2A.\n");
    assert!(started.elapsed() < Duration::from_secs(60));
    assert!(request_text(&api.bodies()[0]).contains("hello from the caller"), "the prompt reached the model");
    assert!(!stderr_of(&out).contains("a2a-secret-token"), "the token is never printed");
    assert!(sessions.path().join("a2a-tasks.db").exists(), "tasks are kept in the session directory");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_delegates_to_a_remote_a2a_agent_as_a_subagent_type() {
    let remote_api = MockApi::start(vec![Reply::Text("The remote agent says 42.")]).await;
    let (remote_sessions, remote_workspace) = dirs();
    let (_served, url) = serve(&remote_api, remote_sessions.path(), remote_workspace.path(), None);

    let api = MockApi::start(vec![
        Reply::Tool {
            id: "toolu_1",
            name: "Agent",
            input: serde_json::json!({"description": "ask the helper", "prompt": "What is the answer? (MARKER-2240)", "subagent_type": "helper"}),
        },
        Reply::Text("The helper said 42."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    let out = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "ask the helper", "--a2a-agent", &format!("helper={url}")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "The helper said 42.\n");
    let bodies = api.bodies();
    let agent_tool = bodies[0]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "Agent").unwrap();
    assert!(agent_tool["input_schema"].to_string().contains("helper"), "the remote type is offered");
    assert!(
        request_text(&remote_api.bodies()[0]).contains("MARKER-2240"),
        "the task reached the remote agent"
    );
    assert!(request_text(&bodies[1]).contains("The remote agent says 42."), "its answer reached the parent");

    let bad = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "hi", "--a2a-agent", "no-url"])
        .output()
        .unwrap();
    assert!(!bad.status.success() && stderr_of(&bad).contains("NAME=URL"), "{}", stderr_of(&bad));
}
