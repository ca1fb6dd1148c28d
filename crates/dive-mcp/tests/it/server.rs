//! Our server against our client, in process over streamable HTTP: fixed tools and a
//! toolset, duplicates left out, errors and suspensions as error results, an unknown tool as
//! a protocol error; and a manager whose two server names sanitize to the same prefix.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use dive_core::{FunctionTool, StaticToolset, SuspendRequest, Tool, ToolAnnotations, ToolError, ToolResult};
use dive_mcp::{
    ConnectOptions, HttpConfig, ManagerOptions, McpClient, McpConfig, McpManager, McpServer, ServerConfig,
    StdioConfig,
};
use serde_json::{Map, Value, json};

fn tool(name: &'static str, answer: fn() -> Result<ToolResult, ToolError>) -> Arc<dyn Tool> {
    Arc::new(FunctionTool::new(
        name,
        format!("The {name} tool."),
        move |_: Value, _ctx| async move { answer() },
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixed_tools_and_a_toolset_served_and_called() {
    let toolset = StaticToolset::new(
        "extra",
        vec![
            tool("from_set", || Ok(ToolResult::text("set"))),
            tool("fixed", || Ok(ToolResult::text("shadowed"))),
        ],
    );
    let server = McpServer::new("mine")
        .with_tool(tool("fixed", || Ok(ToolResult::text("fixed"))))
        .with_tool(tool("broken", || Err(ToolError::new("it broke"))))
        .with_tool(tool("asks", || Ok(ToolResult::suspend(SuspendRequest::new("which file?")))))
        .with_toolset(Arc::new(toolset))
        .with_instructions("use fixed first");
    let handle = server.serve_http("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let client = McpClient::connect(
        &ServerConfig::http("mine", HttpConfig::new(handle.url())),
        &ConnectOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(client.server_info().unwrap().instructions.as_deref(), Some("use fixed first"));
    let mut names: Vec<String> = client.tools().await.unwrap().iter().map(|t| t.name().to_owned()).collect();
    names.sort_unstable();
    assert_eq!(names, ["mcp__mine__asks", "mcp__mine__broken", "mcp__mine__fixed", "mcp__mine__from_set"]);

    assert_eq!(
        client.call_tool("fixed", Map::new()).await.unwrap().text_content(),
        "fixed",
        "the fixed tool wins"
    );
    assert_eq!(client.call_tool("from_set", Map::new()).await.unwrap().text_content(), "set");
    let broken = client.call_tool("broken", Map::new()).await.unwrap();
    assert!(broken.is_error && broken.text_content() == "it broke", "{broken:?}");
    let asks = client.call_tool("asks", Map::new()).await.unwrap();
    assert!(asks.is_error && asks.text_content().contains("which file?"), "{asks:?}");
    let unknown = client.call_tool("nope", Map::new()).await.unwrap_err();
    assert!(unknown.to_string().contains("unknown tool `nope`"), "{unknown}");
    handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotations_and_schemas_cross_both_ways() {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string", "minLength": 2}}, "required": ["q"], "$defs": {"x": {"type": "integer"}}});
    struct Search(Value, ToolAnnotations);
    impl Tool for Search {
        fn name(&self) -> &str {
            "search"
        }
        fn description(&self) -> &str {
            "Searches."
        }
        fn input_schema(&self) -> &Value {
            &self.0
        }
        fn annotations(&self) -> &ToolAnnotations {
            &self.1
        }
        fn call(
            &self,
            input: Value,
            _ctx: dive_core::ToolContext,
        ) -> dive_core::BoxFuture<'_, Result<ToolResult, ToolError>> {
            Box::pin(async move { Ok(ToolResult::text(input["q"].as_str().unwrap_or_default().to_owned())) })
        }
    }
    let annotations = ToolAnnotations::read_only().with_title("Search it").with_open_world(false);
    let server = McpServer::new("s").with_tool(Arc::new(Search(schema.clone(), annotations)));
    let handle = server.serve_http("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let client = McpClient::connect(
        &ServerConfig::http("s", HttpConfig::new(handle.url())),
        &ConnectOptions::default(),
    )
    .await
    .unwrap();
    let tools = client.tools().await.unwrap();
    assert_eq!(tools[0].input_schema(), &schema, "the schema arrives byte for byte");
    let got = tools[0].annotations();
    assert_eq!(
        (got.read_only_hint, got.open_world_hint, got.title.as_deref()),
        (Some(true), Some(false), Some("Search it"))
    );
    assert_eq!(got.destructive_hint, None);
    handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_with_the_same_sanitized_name_offer_each_tool_once() {
    let config = McpConfig::new()
        .with_server(ServerConfig::stdio("my server", StdioConfig::new(common::demo_bin())))
        .with_server(ServerConfig::stdio("my_server", StdioConfig::new(common::demo_bin())));
    let manager = McpManager::start(&config, ManagerOptions::default()).await;
    let tools = manager.tools().await;
    let mut names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["mcp__my_server__add", "mcp__my_server__echo", "mcp__my_server__fail", "mcp__my_server__wait"]
    );
}

/// What the served tool saw of the caller's trace.
#[derive(Clone)]
struct CallerTrace(Option<String>);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_calls_traceparent_travels_in_meta_and_reaches_the_served_tool() {
    let probe: Arc<dyn Tool> = Arc::new(FunctionTool::new(
        "probe",
        "Says what trace it runs in.",
        |_: Value, ctx: dive_core::ToolContext| async move {
            let seen = ctx.run.values.get::<CallerTrace>().and_then(|t| t.0).unwrap_or_else(|| "none".into());
            Ok::<_, ToolError>(seen)
        },
    ));
    let server = McpServer::new("traced").with_tool(probe).with_run_values(|traceparent| {
        let values = dive_core::Values::new();
        values.insert(CallerTrace(traceparent.map(str::to_owned)));
        values
    });
    let handle = server.serve_http("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let config = ServerConfig::http("traced", HttpConfig::new(handle.url()));
    let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let traced = ConnectOptions::default().with_traceparent(dive_mcp::TraceparentSource::new(move |ctx| {
        (ctx.tool_name.as_ref() == "mcp__traced__probe").then(|| traceparent.to_owned())
    }));
    let client = McpClient::connect(&config, &traced).await.unwrap();
    let tool = client.tools().await.unwrap().into_iter().find(|t| t.name() == "mcp__traced__probe").unwrap();
    let output =
        match tool.call(json!({}), dive_core::ToolContext::detached("mcp__traced__probe")).await.unwrap() {
            ToolResult::Output(output) => output.text_content(),
            _ => String::new(),
        };
    assert_eq!(output, traceparent, "the served tool ran in the caller's trace");
    // Without a source nothing is sent.
    let plain = McpClient::connect(&config, &ConnectOptions::default()).await.unwrap();
    assert_eq!(plain.call_tool("probe", Map::new()).await.unwrap().text_content(), "none");
}
