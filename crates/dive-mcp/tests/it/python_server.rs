//! Our client against the official Python SDK's server (mcp, pinned), over stdio and
//! streamable HTTP: tools and their names, schemas and annotations, structured output,
//! tool errors, images and audio, list-changed, resources and prompts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use dive_core::{Content, MediaSource, Role, Tool, ToolContext, ToolResult};
use dive_mcp::{ConnectOptions, HttpConfig, McpClient, ServerConfig};
use serde_json::{Value, json};

async fn call(client: &McpClient, tool: &str, input: Value) -> dive_core::ToolOutput {
    let tools = client.tools().await.unwrap();
    let tool = tools.iter().find(|t| t.name() == tool).unwrap_or_else(|| panic!("no {tool}"));
    match tool.call(input, ToolContext::detached(tool.name())).await.unwrap() {
        ToolResult::Output(out) => out,
        other => panic!("{other:?}"),
    }
}

async fn exercise(client: &McpClient) {
    let tools = client.tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "mcp__py__add",
            "mcp__py__echo",
            "mcp__py__fail",
            "mcp__py__greet_user",
            "mcp__py__grow",
            "mcp__py__picture",
            "mcp__py__slow"
        ]
    );

    // The schema exactly as the server sent it (titles and all).
    let raw: Vec<rmcp_tool::Tool> = client.peer().list_all_tools().await.unwrap();
    let add = tools.iter().find(|t| t.name() == "mcp__py__add").unwrap();
    let sent = raw.iter().find(|t| t.name == "add").unwrap();
    assert_eq!(add.input_schema(), &Value::Object((*sent.input_schema).clone()));
    assert_eq!(add.input_schema()["required"], json!(["a", "b"]));
    assert_eq!(add.description(), "Add two integers.");

    let echo = tools.iter().find(|t| t.name() == "mcp__py__echo").unwrap();
    assert_eq!(echo.annotations().read_only_hint, Some(true));
    assert_eq!(echo.annotations().open_world_hint, Some(false));
    assert_eq!(echo.annotations().idempotent_hint, None, "unset hints stay unset");

    let out = call(client, "mcp__py__add", json!({"a": 2, "b": 3})).await;
    assert!(!out.is_error);
    // The server sent text "5" and structured {"result": 5}: the text is what the model reads.
    assert_eq!(out.text_content(), "5", "{out:?}");

    let out = call(client, "mcp__py__echo", json!({"text": "héllo"})).await;
    assert_eq!(out.text_content(), "héllo");

    let out = call(client, "mcp__py__fail", json!({})).await;
    assert!(out.is_error, "isError maps to an error output: {out:?}");
    assert!(out.text_content().contains("fail"), "{out:?}");

    let out = call(client, "mcp__py__picture", json!({})).await;
    assert!(
        matches!(&out.content[0], Content::Image(i) if matches!(&i.source, MediaSource::Base64 { media_type, .. } if media_type == "image/png")),
        "{out:?}"
    );
    assert!(
        matches!(&out.content[1], Content::Document(d) if d.source.media_type() == Some("audio/wav")),
        "{out:?}"
    );

    // Resources and prompts.
    let resources = client.list_resources().await.unwrap();
    assert!(resources.iter().any(|r| r.uri == "note://hello"), "{resources:?}");
    let read = client.read_resource("note://hello").await.unwrap();
    let Content::Document(doc) = &read[0] else { panic!("{read:?}") };
    assert!(
        matches!(&doc.source, MediaSource::Text { data, .. } if data == "hello from a resource"),
        "{doc:?}"
    );
    let prompts = client.list_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "greet"), "{prompts:?}");
    let messages = client.get_prompt("greet", [("name".to_owned(), "Ada".to_owned())]).await.unwrap();
    assert_eq!(messages[0].role, Role::User);
    assert!(messages[0].text().contains("Say hello to Ada."), "{messages:?}");
    assert!(client.get_prompt("nope", []).await.is_err());

    // The tool list changes: the notification arrives and the next listing has the new tool.
    let mut changes = client.tool_changes();
    let out = call(client, "mcp__py__grow", json!({})).await;
    assert_eq!(out.text_content(), "grown");
    tokio::time::timeout(Duration::from_secs(20), changes.changed()).await.expect("no list_changed").unwrap();
    let names: Vec<String> = client.tools().await.unwrap().iter().map(|t| t.name().to_owned()).collect();
    assert!(names.iter().any(|n| n == "mcp__py__late"), "{names:?}");
    let out = call(client, "mcp__py__late", json!({})).await;
    assert_eq!(out.text_content(), "late");
}

mod rmcp_tool {
    pub use dive_mcp::rmcp::model::Tool;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_stdio_server() {
    let Some(python) = common::python() else { return };
    let client = McpClient::connect(&common::python_stdio_server(&python, "py"), &ConnectOptions::default())
        .await
        .unwrap();
    assert!(client.process_id().is_some());
    assert_eq!(
        client.protocol_version().unwrap().to_string(),
        "2026-07-28",
        "the newest generation is negotiated"
    );
    exercise(&client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_stdio_server_legacy_protocol() {
    let Some(python) = common::python() else { return };
    let options = ConnectOptions::default().with_protocol(dive_mcp::ProtocolChoice::Legacy);
    let client = McpClient::connect(&common::python_stdio_server(&python, "py"), &options).await.unwrap();
    assert_eq!(client.protocol_version().unwrap().to_string(), "2025-11-25");
    exercise(&client).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_http_server() {
    let Some(python) = common::python() else { return };
    let (mut child, port) = common::python_http_peer(&python, "mcp_server.py", &["http", "{port}"]).await;
    let server = ServerConfig::http(
        "py",
        HttpConfig::new(format!("http://127.0.0.1:{port}/mcp")).with_header("X-Test", "1"),
    );
    let client = McpClient::connect(&server, &ConnectOptions::default()).await.unwrap();
    assert!(client.process_id().is_none());
    assert_eq!(client.protocol_version().unwrap().to_string(), "2026-07-28");
    exercise(&client).await;
    drop(client);
    child.kill().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_limit_times_out_and_the_server_keeps_working() {
    let Some(python) = common::python() else { return };
    let server = common::python_stdio_server(&python, "py").with_call_timeout(Duration::from_millis(500));
    let client = McpClient::connect(&server, &ConnectOptions::default()).await.unwrap();
    let started = std::time::Instant::now();
    let err = client
        .call_tool("slow", serde_json::Map::from_iter([("seconds".into(), json!(30))]))
        .await
        .unwrap_err();
    assert!(matches!(err, dive_mcp::McpError::Timeout { .. }), "{err}");
    assert!(err.to_string().contains("tools/call timed out after 500 ms"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let out = call(&client, "mcp__py__echo", json!({"text": "still here"})).await;
    assert_eq!(out.text_content(), "still here");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_suspends_and_the_answer_finishes_the_call() {
    let Some(python) = common::python() else { return };
    let client = McpClient::connect(&common::python_stdio_server(&python, "py"), &ConnectOptions::default())
        .await
        .unwrap();
    let tools = client.tools().await.unwrap();
    let greet = tools.iter().find(|t| t.name() == "mcp__py__greet_user").unwrap();
    let ToolResult::Suspend(request) =
        greet.call(json!({}), ToolContext::detached(greet.name())).await.unwrap()
    else {
        panic!("the elicitation did not suspend the call")
    };
    assert_eq!(request.prompt, "What is your name?");
    // The metadata survives a round trip through JSON (a durable turn stores it).
    let stored: dive_core::SuspendRequest =
        serde_json::from_value(serde_json::to_value(&request).unwrap()).unwrap();
    let keys: Vec<String> =
        stored.metadata["mcp"]["inputRequests"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys.len(), 1, "{:?}", stored.metadata);
    let answers =
        keys.into_iter().map(|k| (k, json!({"action": "accept", "content": {"name": "Ada"}}))).collect();
    let dive_mcp::CallOutcome::Done(output) = client.answer_input(&stored.metadata, answers).await.unwrap()
    else {
        panic!("the server asked again")
    };
    assert_eq!(output.text_content(), "hello Ada");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_servers_mid_call_elicitation_is_answered_by_the_handler_or_declined() {
    let Some(python) = common::python() else { return };
    let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let handler = dive_mcp::ElicitationHandler::new(move |ask: dive_mcp::Elicitation| {
        seen.lock().unwrap().push(ask.clone());
        async move { json!({"action": "accept", "content": {"name": "Ada"}}) }
    });
    let legacy = ConnectOptions::default().with_protocol(dive_mcp::ProtocolChoice::Legacy);
    let server = common::python_stdio_server(&python, "py");
    let client = McpClient::connect(&server, &legacy.clone().with_elicitation(handler)).await.unwrap();
    assert_eq!(client.protocol_version().unwrap().to_string(), "2025-11-25");
    let out = client.call_tool("greet_user", serde_json::Map::new()).await.unwrap();
    assert_eq!(out.text_content(), "hello Ada");
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].server, "py");
    assert_eq!(asked[0].message, "What is your name?");
    assert_eq!(
        asked[0].schema.as_ref().unwrap()["properties"]["name"]["type"],
        "string",
        "{:?}",
        asked[0].schema
    );
    drop(client);

    // Nobody to ask: the request is declined and the tool says so instead of hanging.
    let client = McpClient::connect(&server, &legacy).await.unwrap();
    let out = client.call_tool("greet_user", serde_json::Map::new()).await;
    let text = match out {
        Ok(out) => out.text_content(),
        Err(e) => e.to_string(),
    };
    assert!(!text.contains("hello"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_handler_a_2026_servers_input_request_is_answered_now_instead_of_suspending() {
    let Some(python) = common::python() else { return };
    let handler = dive_mcp::ElicitationHandler::new(|ask: dive_mcp::Elicitation| async move {
        assert_eq!(ask.message, "What is your name?");
        json!({"action": "accept", "content": {"name": "Grace"}})
    });
    let options = ConnectOptions::default().with_elicitation(handler);
    let client = McpClient::connect(&common::python_stdio_server(&python, "py"), &options).await.unwrap();
    assert_eq!(client.protocol_version().unwrap().to_string(), "2026-07-28");
    let tools = client.tools().await.unwrap();
    let greet = tools.iter().find(|t| t.name() == "mcp__py__greet_user").unwrap();
    let ToolResult::Output(output) =
        greet.call(json!({}), ToolContext::detached(greet.name())).await.unwrap()
    else {
        panic!("the call suspended although a handler could answer")
    };
    assert_eq!(output.text_content(), "hello Grace");
}
