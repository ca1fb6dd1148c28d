//! A stdio server runs in its own process group: dropping the client, or a start-up that
//! times out, kills the server and everything it started.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use dive_mcp::{ConnectOptions, McpClient, McpError, ServerConfig, StdioConfig};

/// A server started through a shell that first leaves a grandchild behind and writes its pid.
fn wrapped(pidfile: &std::path::Path, then: &str) -> ServerConfig {
    let script = format!("sleep 600 & echo $! > '{}'; exec {then}", pidfile.display());
    ServerConfig::stdio("wrapped", StdioConfig::new("sh").with_args(["-c", &script]))
}

fn read_pid(path: &std::path::Path) -> i32 {
    std::fs::read_to_string(path).unwrap().trim().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_client_kills_the_server_and_its_grandchild() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let client =
        McpClient::connect(&wrapped(&pidfile, common::demo_bin()), &ConnectOptions::default()).await.unwrap();
    let server = i32::try_from(client.process_id().unwrap()).unwrap();
    let grandchild = read_pid(&pidfile);
    assert!(common::alive(server) && common::alive(grandchild));
    assert_eq!(client.tools().await.unwrap().len(), 4);
    drop(client);
    assert!(common::wait_gone(server, Duration::from_secs(10)).await, "the server outlived its client");
    assert!(
        common::wait_gone(grandchild, Duration::from_secs(10)).await,
        "the grandchild outlived the client"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_up_timeout_kills_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let server = wrapped(&pidfile, "sleep 600").with_startup_timeout(Duration::from_millis(700));
    let err = McpClient::connect(&server, &ConnectOptions::default()).await.unwrap_err();
    assert!(matches!(err, McpError::StartupTimeout { .. }), "{err}");
    assert!(err.to_string().contains("did not start within 700 ms"), "{err}");
    let grandchild = read_pid(&pidfile);
    assert!(
        common::wait_gone(grandchild, Duration::from_secs(10)).await,
        "the grandchild outlived the timeout"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_mid_call_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let client =
        McpClient::connect(&wrapped(&pidfile, common::demo_bin()), &ConnectOptions::default()).await.unwrap();
    let pid = i32::try_from(client.process_id().unwrap()).unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL).unwrap();
    assert!(common::wait_gone(pid, Duration::from_secs(10)).await);
    let err = client
        .call_tool("echo", serde_json::Map::from_iter([("text".into(), "x".into())]))
        .await
        .unwrap_err();
    assert!(err.to_string().starts_with("MCP server `wrapped`: tools/call failed"), "{err}");
}
