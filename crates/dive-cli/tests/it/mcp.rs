//! The real `dive` binary and MCP: `dive mcp serve` driven by an MCP client (dive-mcp's, on the
//! official Rust SDK) with the permission rules applied to every call, and `dive -p` using
//! the tools of an MCP server from `--mcp-config` — here another `dive mcp serve` — against
//! the mock model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use common::{MockApi, Reply, dirs, request_text, stderr_of, stdout_of, trust};
use dive::mcp::{ConnectOptions, McpClient, ServerConfig, StdioConfig};
use serde_json::{Value, json};

fn serve_config(workspace: &std::path::Path, sessions: &std::path::Path, extra: &[&str]) -> ServerConfig {
    let mut args = vec![
        "mcp",
        "serve",
        "--workspace",
        workspace.to_str().unwrap(),
        "--session-dir",
        sessions.to_str().unwrap(),
    ];
    args.extend(extra);
    ServerConfig::stdio(
        "dive",
        StdioConfig::new(env!("CARGO_BIN_EXE_dive"))
            .with_args(args)
            .with_env("HOME", sessions.to_str().unwrap()),
    )
}

fn object(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_serve_offers_the_workspace_tools_through_the_permission_rules() {
    let (sessions, workspace) = dirs();
    std::fs::write(workspace.path().join("notes.txt"), "served over MCP (MARKER-6620)\n").unwrap();
    let options = ConnectOptions::default().with_startup_timeout(Duration::from_secs(30));
    let client =
        McpClient::connect(&serve_config(workspace.path(), sessions.path(), &[]), &options).await.unwrap();
    let tools = client.tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    for tool in ["mcp__dive__Read", "mcp__dive__Write", "mcp__dive__Bash"] {
        assert!(names.contains(&tool), "{tool} missing from {names:?}");
    }
    let read = client.call_tool("Read", object(json!({"file_path": "notes.txt"}))).await.unwrap();
    assert!(!read.is_error && read.text_content().contains("MARKER-6620"), "{read:?}");
    // A write would ask in the default mode; nobody is there to answer, so it is refused.
    let write =
        client.call_tool("Write", object(json!({"file_path": "out.txt", "content": "x"}))).await.unwrap();
    assert!(write.is_error && write.text_content().contains("needs approval"), "{write:?}");
    assert!(!workspace.path().join("out.txt").exists());
    drop(client);

    let accept = serve_config(workspace.path(), sessions.path(), &["--permission-mode", "acceptEdits"]);
    let client = McpClient::connect(&accept, &options).await.unwrap();
    let write =
        client.call_tool("Write", object(json!({"file_path": "out.txt", "content": "x\n"}))).await.unwrap();
    assert!(!write.is_error, "{write:?}");
    assert_eq!(std::fs::read_to_string(workspace.path().join("out.txt")).unwrap(), "x\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_calls_a_tool_of_an_mcp_server_from_mcp_config() {
    let api = MockApi::start(vec![
        Reply::Tool { id: "toolu_1", name: "mcp__other__Read", input: json!({"file_path": "facts.txt"}) },
        Reply::Text("It says 7."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("facts.txt"), "seven (MARKER-1187)\n").unwrap();
    let config = json!({"mcpServers": {
        "other": {"command": env!("CARGO_BIN_EXE_dive"), "args": ["mcp", "serve", "--workspace", other.path(), "--session-dir", other.path()], "env": {"HOME": "${HOME}"}},
        "broken": {"command": "/nonexistent/mcp-server"}
    }});
    let out = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "what do the facts say?", "--mcp-config", &config.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "It says 7.\n");
    assert!(stderr_of(&out).contains("MCP server broken did not start"), "{}", stderr_of(&out));
    let bodies = api.bodies();
    let tools: Vec<&str> =
        bodies[0]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(tools.contains(&"mcp__other__Read"), "{tools:?}");
    assert!(request_text(&bodies[1]).contains("MARKER-1187"), "the MCP tool's result reached the model");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_project_mcp_json_starts_only_in_a_trusted_workspace_and_a_bad_one_is_a_clear_error() {
    let api = MockApi::start(vec![Reply::Text("ok"); 3]).await;
    let (sessions, workspace) = dirs();
    std::fs::write(
        workspace.path().join(".mcp.json"),
        json!({"mcpServers": {"proj": {"command": env!("CARGO_BIN_EXE_dive"), "args": ["mcp", "serve"]}}})
            .to_string(),
    )
    .unwrap();
    let untrusted = api.dive(sessions.path(), workspace.path()).args(["-p", "hi"]).output().unwrap();
    assert!(untrusted.status.success(), "{}", stderr_of(&untrusted));
    assert!(stderr_of(&untrusted).contains(".mcp.json are not started"), "{}", stderr_of(&untrusted));
    assert!(!api.bodies()[0].to_string().contains("mcp__proj__"));

    trust(&api, sessions.path(), workspace.path());
    let trusted = api.dive(sessions.path(), workspace.path()).args(["-p", "hi"]).output().unwrap();
    assert!(trusted.status.success(), "{}", stderr_of(&trusted));
    assert!(api.bodies()[1].to_string().contains("mcp__proj__Read"), "the trusted project's server started");

    let bad = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "hi", "--mcp-config", "{\"mcpServers\": 3}"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(stderr_of(&bad).contains("mcpServers"), "{}", stderr_of(&bad));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_prompt_runs_as_a_slash_command_rendered_by_its_server() {
    // The official Python SDK's server (its prompt `greet(name)`), shared with dive-mcp's tests.
    let Some(python) = dive_test::interop::python("mcp") else { return };
    let peer = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dive-mcp/tests/peers/mcp_server.py");
    let api = MockApi::start(vec![Reply::Text("Hello, Ada!")]).await;
    let (sessions, workspace) = dirs();
    let config = json!({"mcpServers": {"py": {"command": python, "args": [peer]}}});
    let out = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "/mcp__py__greet Ada Lovelace", "--mcp-config", &config.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let sent = request_text(&api.bodies()[0]);
    assert!(sent.contains("Say hello to Ada Lovelace."), "{sent}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_official_python_client_drives_mcp_serve() {
    let Some(python) = dive_test::interop::python("mcp") else { return };
    let (_sessions, workspace) = dirs();
    std::fs::write(workspace.path().join("notes.txt"), "MARKER-4402\n").unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/mcp_serve_client.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_dive"))
        .arg(workspace.path())
        .env("HOME", workspace.path())
        .output()
        .unwrap();
    let report = format!("{}\n{}", stdout_of(&out), stderr_of(&out));
    assert!(out.status.success() && report.contains("5 passed, 0 failed"), "{report}");
    assert!(!workspace.path().join("out.txt").exists(), "a refused Write changed the workspace");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_calls_echo_on_the_python_server_and_the_answer_reaches_the_next_request() {
    let Some(python) = dive_test::interop::python("mcp") else { return };
    let peer = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dive-mcp/tests/peers/mcp_server.py");
    let api = MockApi::start(vec![
        Reply::Tool { id: "toolu_1", name: "mcp__py__echo", input: json!({"text": "MARKER-8830"}) },
        Reply::Text("Echoed."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    let config = json!({"mcpServers": {"py": {"command": python, "args": [peer]}}});
    let out = api
        .dive(sessions.path(), workspace.path())
        .args([
            "-p",
            "echo it",
            "--mcp-config",
            &config.to_string(),
            "--permission-mode",
            "bypassPermissions",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "Echoed.\n");
    let result = request_text(&api.bodies()[1]);
    assert!(result.contains("tool_result") && result.contains("MARKER-8830"), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn servers_from_settings_files_the_projects_only_when_trusted_and_disabled_ones_stay_off() {
    let api = MockApi::start(vec![Reply::Text("ok"); 2]).await;
    let (sessions, workspace) = dirs();
    let serve = |dir: &std::path::Path| json!({"command": env!("CARGO_BIN_EXE_dive"), "args": ["mcp", "serve", "--workspace", dir, "--session-dir", dir]});
    // The user's settings (HOME is the session directory in these tests).
    std::fs::create_dir_all(sessions.path().join(".dive")).unwrap();
    std::fs::write(
        sessions.path().join(".dive/settings.json"),
        json!({"mcpServers": {"mine": serve(sessions.path()), "off": serve(sessions.path())}, "disabledMcpjsonServers": ["off"]}).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(workspace.path().join(".dive")).unwrap();
    std::fs::write(
        workspace.path().join(".dive/settings.json"),
        json!({"mcpServers": {"proj": serve(workspace.path())}}).to_string(),
    )
    .unwrap();
    let untrusted = api.dive(sessions.path(), workspace.path()).args(["-p", "hi"]).output().unwrap();
    assert!(untrusted.status.success(), "{}", stderr_of(&untrusted));
    assert!(
        stderr_of(&untrusted).contains(".dive/settings.json are not started"),
        "{}",
        stderr_of(&untrusted)
    );
    assert!(!stderr_of(&untrusted).contains("unknown setting"), "{}", stderr_of(&untrusted));
    let first = api.bodies()[0].to_string();
    assert!(first.contains("mcp__mine__Read"), "the user's server started");
    assert!(
        !first.contains("mcp__off__") && !first.contains("mcp__proj__"),
        "a disabled or untrusted server started"
    );

    trust(&api, sessions.path(), workspace.path());
    let trusted = api.dive(sessions.path(), workspace.path()).args(["-p", "hi"]).output().unwrap();
    assert!(trusted.status.success(), "{}", stderr_of(&trusted));
    assert!(api.bodies()[1].to_string().contains("mcp__proj__Read"), "the trusted project's server started");
}
