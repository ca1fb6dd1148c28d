//! The manager: servers start in parallel, a server that cannot start is reported and
//! skipped, the others work; a dropped server is reconnected with backoff.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use dive_core::{RunInfo, Toolset};
use dive_mcp::{
    ConnectOptions, ManagerOptions, McpConfig, McpManager, ServerConfig, ServerState, StdioConfig, ToolFilter,
};

fn demo(name: &str) -> ServerConfig {
    ServerConfig::stdio(name, StdioConfig::new(common::demo_bin()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_missing_server_is_reported_and_the_others_work() {
    let mut filter = ToolFilter::default();
    filter.deny = vec!["fail".into()];
    let config = McpConfig::new()
        .with_server(demo("good").with_tools(filter))
        .with_server(ServerConfig::stdio("missing", StdioConfig::new("/nonexistent/dive-mcp-no-such-server")))
        .with_server(
            ServerConfig::stdio("hangs", StdioConfig::new("sleep").with_args(["600"]))
                .with_startup_timeout(Duration::from_millis(800)),
        )
        .with_server(demo("off").with_enabled(false));
    let started = Instant::now();
    let manager = McpManager::start(&config, ManagerOptions::default()).await;
    assert!(started.elapsed() < Duration::from_secs(20), "start-up waited too long: {:?}", started.elapsed());

    let statuses = manager.statuses();
    let state = |name: &str| statuses.iter().find(|s| s.name == name).unwrap().state.clone();
    assert!(matches!(state("good"), ServerState::Connected { tools: 3, .. }), "{statuses:?}");
    let ServerState::Failed { error } = state("missing") else { panic!("{statuses:?}") };
    assert!(error.contains("cannot start `/nonexistent/dive-mcp-no-such-server`"), "{error}");
    let ServerState::Failed { error } = state("hangs") else { panic!("{statuses:?}") };
    assert!(error.contains("did not start within 800 ms"), "{error}");
    assert_eq!(state("off"), ServerState::Disabled);

    let tools = Toolset::tools(&manager, &RunInfo::detached()).await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    names.sort_unstable();
    assert_eq!(names, ["mcp__good__add", "mcp__good__echo", "mcp__good__wait"], "the deny-list holds");
    assert!(manager.client("missing").is_none());
    assert!(manager.client("good").is_some());
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_server_is_reconnected_with_backoff() {
    let config = McpConfig::new().with_server(demo("flaky"));
    let options = ManagerOptions::default().with_connect(ConnectOptions::default()).with_reconnect(
        Duration::from_millis(50),
        Duration::from_millis(200),
        5,
    );
    let manager = McpManager::start(&config, options).await;
    let first = manager.client("flaky").unwrap();
    let pid = first.process_id().unwrap();
    // The server dies (not through us).
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(pid).unwrap()),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let start = Instant::now();
    while !first.is_closed() {
        assert!(start.elapsed() < Duration::from_secs(10), "the closed connection went unnoticed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    drop(first);
    // The next resolution notices, leaves it out and starts reconnecting.
    let tools = manager.tools().await;
    assert!(tools.is_empty(), "a dead server offers no tools");
    assert!(matches!(
        manager.statuses()[0].state,
        ServerState::Reconnecting { .. } | ServerState::Connected { .. }
    ));
    let start = Instant::now();
    loop {
        if let Some(client) = manager.client("flaky") {
            assert_ne!(client.process_id(), Some(pid), "a new process");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "never reconnected: {:?}", manager.statuses());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(manager.tools().await.len(), 4);
    // An explicit reconnect replaces the connection too.
    manager.reconnect("flaky").await.unwrap();
    assert!(manager.reconnect("nope").await.is_err());
}
