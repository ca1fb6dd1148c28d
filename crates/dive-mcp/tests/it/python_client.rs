//! Our server driven by the official Python SDK's client (mcp, pinned): the demo tools over
//! stdio and streamable HTTP, and an agent served as one MCP tool.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Command;
use std::sync::Arc;

use dive_core::ModelResponse;
use dive_mcp::McpServer;
use dive_subagent::AgentAsTool;
use dive_test::ScriptedModel;
use tokio::io::AsyncBufReadExt;

fn run_client(python: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = Command::new(python)
        .arg(common::peer("mcp_client.py"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let report =
        format!("{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the Python client's checks failed:\n{report}");
    report
}

#[test]
fn python_client_over_stdio() {
    let Some(python) = common::python() else { return };
    let report = run_client(&python, &["stdio", common::demo_bin()], &[]);
    assert!(report.contains("8 passed, 0 failed"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_client_over_http() {
    let Some(python) = common::python() else { return };
    let mut server = tokio::process::Command::new(common::demo_bin())
        .args(["http", "127.0.0.1:0"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(server.stdout.take().unwrap()).lines();
    let url = lines.next_line().await.unwrap().expect("the demo server printed no URL");
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"), "{url}");
    let report =
        tokio::task::spawn_blocking(move || run_client(&python, &["http", &url], &[])).await.unwrap();
    assert!(report.contains("8 passed, 0 failed"), "{report}");
    drop(server.stdin.take()); // closing stdin stops the demo server
    let status = server.wait().await.unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_served_as_one_tool_over_http() {
    let Some(python) = common::python() else { return };
    let model = ScriptedModel::new([ModelResponse::text("pong from the agent")]);
    let agent = dive_agent::Agent::builder().model(model.clone()).build().unwrap();
    let as_tool = AgentAsTool::new(agent, "ask_agent", "Ask the agent.");
    // The demo tools too, so the client's standard checks run against this server.
    let demo = McpServer::new("agent-server").with_tool(Arc::new(as_tool));
    let handle = demo.serve_http("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let url = handle.url();
    let report = tokio::task::spawn_blocking(move || {
        Command::new(&python).arg("-c").arg(AGENT_CLIENT).arg(&url).output().unwrap()
    })
    .await
    .unwrap();
    let text =
        format!("{}{}", String::from_utf8_lossy(&report.stdout), String::from_utf8_lossy(&report.stderr));
    assert!(report.status.success(), "{text}");
    assert!(text.contains("ask_agent -> pong from the agent"), "{text}");
    assert_eq!(model.requests().last().unwrap().messages[0].text(), "ping");
    handle.shutdown().await;
}

/// The Python client calling the agent tool once.
const AGENT_CLIENT: &str = r#"
import asyncio, sys
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

async def main(url):
    async with streamable_http_client(url) as (read, write, *_):
        async with ClientSession(read, write) as s:
            await s.initialize()
            names = [t.name for t in (await s.list_tools()).tools]
            assert names == ["ask_agent"], names
            r = await s.call_tool("ask_agent", {"input": "ping"})
            assert not r.is_error, r
            print("ask_agent ->", r.content[0].text)

asyncio.run(main(sys.argv[1]))
"#;
