//! MCP tools inside a real agent turn: the model asks for `mcp__py__echo`, the Python
//! server answers, and the answer reaches the next model request; a server that died
//! mid-session gives the model a clear error and the turn goes on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use dive_agent::Agent;
use dive_core::{Content, ModelRequest, ModelResponse, ToolResultContent};
use dive_mcp::{ConnectOptions, ManagerOptions, McpClient, McpConfig, McpManager, ServerConfig, StdioConfig};
use dive_test::ScriptedModel;
use serde_json::json;

fn tool_results(request: &ModelRequest) -> Vec<&ToolResultContent> {
    request
        .messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|c| match c {
            Content::ToolResult(r) => Some(r),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_servers_answer_reaches_the_next_request() {
    let Some(python) = common::python() else { return };
    let client = McpClient::connect(&common::python_stdio_server(&python, "py"), &ConnectOptions::default())
        .await
        .unwrap();
    let model = ScriptedModel::new([
        ModelResponse::tool_use("call_1", "mcp__py__echo", json!({"text": "from python"})),
        ModelResponse::text("done"),
    ]);
    let agent = Agent::builder().model(model.clone()).toolset(client.clone()).build().unwrap();
    let response = agent.run("echo something").await.unwrap();
    assert_eq!(response.output_text(), "done");
    let requests = model.requests().all();
    assert!(requests[0].tools.iter().any(|t| t.name == "mcp__py__echo"), "the tool was offered");
    let results = tool_results(&requests[1]);
    assert_eq!(results.len(), 1);
    assert!(!results[0].is_error);
    assert_eq!(results[0].content, vec![Content::text("from python")]);
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_died_is_a_clear_error_and_the_turn_goes_on() {
    let server = ServerConfig::stdio("demo", StdioConfig::new(common::demo_bin()));
    let client = McpClient::connect(&server, &ConnectOptions::default()).await.unwrap();
    let model = ScriptedModel::new([
        ModelResponse::tool_use("call_1", "mcp__demo__echo", json!({"text": "x"})),
        ModelResponse::text("recovered"),
    ]);
    let agent = Agent::builder().model(model.clone()).toolset(client.clone()).build().unwrap();
    // The server dies after its tools were listed.
    let pid = i32::try_from(client.process_id().unwrap()).unwrap();
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), nix::sys::signal::Signal::SIGKILL).unwrap();
    assert!(common::wait_gone(pid, std::time::Duration::from_secs(10)).await);
    let response = agent.run("try it").await.unwrap();
    assert_eq!(response.output_text(), "recovered");
    let requests = model.requests().all();
    let results = tool_results(&requests[1]);
    assert!(results[0].is_error, "{results:?}");
    let text: String = results[0]
        .content
        .iter()
        .filter_map(|c| match c {
            Content::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    assert!(text.contains("MCP server `demo`: tools/call failed"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manager_with_a_failed_server_still_serves_the_agent() {
    let config = McpConfig::new()
        .with_server(ServerConfig::stdio("demo", StdioConfig::new(common::demo_bin())))
        .with_server(ServerConfig::stdio("gone", StdioConfig::new("/nonexistent/mcp-server")));
    let manager = McpManager::start(&config, ManagerOptions::default()).await;
    let model = ScriptedModel::new([
        ModelResponse::tool_use("call_1", "mcp__demo__add", json!({"a": 40, "b": 2})),
        ModelResponse::text("42 it is"),
    ]);
    let agent = Agent::builder().model(model.clone()).toolset(manager).build().unwrap();
    assert_eq!(agent.run("add").await.unwrap().output_text(), "42 it is");
    let requests = model.requests().all();
    let results = tool_results(&requests[1]);
    assert_eq!(results[0].content, vec![Content::text("42")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_suspends_the_turn_and_the_answer_resumes_it() {
    use dive_core::SessionStore;
    let Some(python) = common::python() else { return };
    let client = McpClient::connect(&common::python_stdio_server(&python, "py"), &ConnectOptions::default())
        .await
        .unwrap();
    let store = dive_session::MemoryStore::new();
    let model = ScriptedModel::new([
        ModelResponse::tool_use("call_1", "mcp__py__greet_user", json!({})),
        ModelResponse::text("greeted"),
    ]);
    let agent = Agent::builder()
        .model(model.clone())
        .toolset(client.clone())
        .session(store.open("s").await.unwrap())
        .build()
        .unwrap();
    let response = agent.run("greet me").await.unwrap();
    let suspension = response.suspension.expect("the elicitation suspends the turn");
    let pending = &suspension.pending[0];
    assert_eq!(pending.prompt, "What is your name?");
    // Another process would load the session and find the same metadata.
    let keys = pending.metadata["mcp"]["inputRequests"].as_object().unwrap().keys().cloned();
    let answers = keys.map(|k| (k, json!({"action": "accept", "content": {"name": "Grace"}}))).collect();
    let dive_mcp::CallOutcome::Done(output) = client.answer_input(&pending.metadata, answers).await.unwrap()
    else {
        panic!("asked again")
    };
    let resumed = agent.run(dive_agent::RunInput::resume([(pending.id.clone(), output)])).await.unwrap();
    assert_eq!(resumed.output_text(), "greeted");
    let requests = model.requests().all();
    let results = tool_results(&requests[1]);
    assert_eq!(results[0].content, vec![Content::text("hello Grace")]);
}
