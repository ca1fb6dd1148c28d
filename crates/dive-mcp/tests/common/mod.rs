//! Shared scaffolding for dive-mcp's tests: the pinned Python peer, free ports, the demo
//! server binary.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use dive_mcp::{ServerConfig, StdioConfig};

/// The interpreter with the pinned `mcp` SDK; `None` only when skipping is allowed
/// (locally, with DIVE_SKIP_PYTHON_INTEROP=1; never under CI).
pub fn python() -> Option<String> {
    dive_test::interop::python("mcp")
}

/// A Python peer script in tests/peers/.
pub fn peer(script: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers").join(script).display().to_string()
}

/// The demo server binary built with these tests.
pub fn demo_bin() -> &'static str {
    env!("CARGO_BIN_EXE_dive-mcp-demo")
}

/// The Python test server over stdio, as server `name`.
pub fn python_stdio_server(python: &str, name: &str) -> ServerConfig {
    ServerConfig::stdio(name, StdioConfig::new(python).with_args([peer("mcp_server.py")]))
        .with_startup_timeout(Duration::from_secs(60))
}

/// A port free right now on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A Python peer script serving HTTP on a free port (`{port}` in `args` is replaced by it),
/// killed when the child is dropped; returns once it accepts connections.
pub async fn python_http_peer(python: &str, script: &str, args: &[&str]) -> (tokio::process::Child, u16) {
    let port = free_port();
    let child = tokio::process::Command::new(python)
        .arg(peer(script))
        .args(args.iter().map(|a| a.replace("{port}", &port.to_string())))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    wait_for_port(port, Duration::from_secs(60)).await;
    (child, port)
}

/// Waits (bounded) until something accepts TCP connections on `port`.
pub async fn wait_for_port(port: u16, limit: Duration) {
    let start = Instant::now();
    loop {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return;
        }
        assert!(start.elapsed() < limit, "nothing listened on port {port} within {limit:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether process `pid` still exists (a zombie counts as gone).
#[cfg(unix)]
pub fn alive(pid: i32) -> bool {
    !dive_test::process::is_gone(pid)
}

/// Waits (bounded) until `pid` is gone: SIGKILL is delivered asynchronously.
#[cfg(unix)]
pub async fn wait_gone(pid: i32, limit: Duration) -> bool {
    let start = Instant::now();
    while alive(pid) {
        if start.elapsed() > limit {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}
