//! `dive mcp login` against the official Python SDK's OAuth-protected MCP server (shared with
//! dive-mcp's tests): before it the server is reported as needing authorization and the agent
//! still works; after it the model's call reaches the server and its answer the next request;
//! `dive mcp logout` forgets the tokens.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use common::{MockApi, Reply, dirs, request_text, stderr_of, stdout_of};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn login_authorizes_an_oauth_server_and_its_tools_work_in_the_next_runs() {
    let Some(python) = dive_test::interop::python("mcp") else { return };
    let peer =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dive-mcp/tests/peers/mcp_oauth_server.py");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = tokio::process::Command::new(&python)
        .arg(&peer)
        .arg(port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(started.elapsed() < Duration::from_secs(60), "the OAuth peer did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let config =
        json!({"mcpServers": {"secure": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}}})
            .to_string();
    let api = MockApi::start(vec![
        Reply::Text("Nothing to echo with."),
        Reply::Tool { id: "toolu_1", name: "mcp__secure__echo", input: json!({"text": "MARKER-5121"}) },
        Reply::Text("Echoed."),
    ])
    .await;
    let (sessions, workspace) = dirs();

    let before = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "hi", "--mcp-config", &config])
        .output()
        .unwrap();
    assert!(before.status.success(), "{}", stderr_of(&before));
    assert!(
        stderr_of(&before).contains("MCP server secure needs authorization: run `dive mcp login secure`"),
        "{}",
        stderr_of(&before)
    );
    assert!(!api.bodies()[0].to_string().contains("mcp__secure__"));

    let mut login = api
        .dive(sessions.path(), workspace.path())
        .args(["--mcp-config", &config, "mcp", "login", "secure", "--timeout", "60"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(login.stdout.take().unwrap()).lines();
    let url =
        lines.by_ref().map(Result::unwrap).find(|l| l.starts_with("http://")).expect("no authorization URL");
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    // The browser: the server approves at once and redirects to dive's loopback listener.
    let browser = dive_provider::HttpOptions::default().build_client().unwrap();
    assert_eq!(browser.get(&url).send().await.unwrap().status(), 200);
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = login.wait().unwrap();
    assert!(status.success(), "login failed: {rest:?}");
    assert!(rest.iter().any(|l| l.starts_with("Authorized")), "{rest:?}");
    let tokens: Vec<_> =
        std::fs::read_dir(sessions.path().join("mcp-tokens")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(tokens.len(), 1, "{tokens:?}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&tokens[0]).unwrap().permissions().mode() & 0o777, 0o600);
    }

    let after = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "echo it", "--mcp-config", &config, "--permission-mode", "bypassPermissions"])
        .output()
        .unwrap();
    assert!(after.status.success(), "{}", stderr_of(&after));
    assert_eq!(stdout_of(&after), "Echoed.\n");
    let result = request_text(&api.bodies()[2]);
    assert!(result.contains("tool_result") && result.contains("MARKER-5121"), "{result}");

    let logout = api
        .dive(sessions.path(), workspace.path())
        .args(["--mcp-config", &config, "mcp", "logout", "secure"])
        .output()
        .unwrap();
    assert!(logout.status.success(), "{}", stderr_of(&logout));
    assert!(stdout_of(&logout).contains("Logged out"), "{}", stdout_of(&logout));
    assert!(!tokens[0].exists());
    let unknown = api
        .dive(sessions.path(), workspace.path())
        .args(["--mcp-config", &config, "mcp", "login", "nope"])
        .output()
        .unwrap();
    assert!(!unknown.status.success());
    assert!(
        stderr_of(&unknown).contains("no MCP server named nope (configured: secure)"),
        "{}",
        stderr_of(&unknown)
    );
    server.kill().await.unwrap();
}
