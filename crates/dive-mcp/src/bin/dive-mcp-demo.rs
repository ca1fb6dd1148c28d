//! `dive-mcp-demo`: a small MCP server of demo tools (`echo`, `add`, `wait`, `fail`) on
//! [`dive_mcp::McpServer`], for trying clients against and for this crate's tests.
//!
//! ```text
//! dive-mcp-demo                  # stdio
//! dive-mcp-demo http 127.0.0.1:0 # streamable HTTP; prints the endpoint URL on the first line
//! ```

use std::net::SocketAddr;
use std::sync::Arc;

use dive_core::{BoxFuture, Tool, ToolAnnotations, ToolContext, ToolError, ToolResult};
use serde_json::{Value, json};

/// One demo tool: a name, a schema and what it does with its input.
struct Demo {
    name: &'static str,
    description: &'static str,
    schema: Value,
    annotations: ToolAnnotations,
    run: fn(&Value) -> Result<ToolResult, ToolError>,
}

impl Tool for Demo {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        self.description
    }
    fn input_schema(&self) -> &Value {
        &self.schema
    }
    fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }
    fn call(&self, input: Value, _ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        let result = (self.run)(&input);
        Box::pin(async move { result })
    }
}

fn tools() -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Demo {
            name: "echo",
            description: "Return the text unchanged.",
            schema: json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
            annotations: ToolAnnotations::read_only().with_open_world(false),
            run: |input| match input["text"].as_str() {
                Some(text) => Ok(ToolResult::text(text)),
                None => Ok(ToolResult::error("`text` must be a string")),
            },
        }),
        Arc::new(Demo {
            name: "add",
            description: "Add two integers.",
            schema: json!({
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"]
            }),
            annotations: ToolAnnotations::read_only().with_idempotent(true),
            run: |input| match (input["a"].as_i64(), input["b"].as_i64()) {
                (Some(a), Some(b)) => Ok(ToolResult::text((a + b).to_string())),
                _ => Ok(ToolResult::error("`a` and `b` must be integers")),
            },
        }),
        Arc::new(Demo {
            name: "wait",
            description: "Waits a moment in the background, then says so (an MCP task for clients with the tasks extension).",
            schema: json!({"type": "object", "properties": {}}),
            annotations: ToolAnnotations::read_only(),
            run: |_| {
                Ok(ToolResult::background("waiting", async {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    dive_core::ToolOutput::text("waited")
                }))
            },
        }),
        Arc::new(Demo {
            name: "fail",
            description: "Always fails, to show tool errors.",
            schema: json!({"type": "object", "properties": {}}),
            annotations: ToolAnnotations::default(),
            run: |_| Err(ToolError::new("boom")),
        }),
    ]
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = dive_mcp::McpServer::new("dive-mcp-demo").with_tools(tools());
    let result = match args.first().map(String::as_str) {
        None | Some("stdio") => server.serve_stdio().await,
        Some("http") => {
            let addr: SocketAddr =
                match args.get(1).map_or(Ok(SocketAddr::from(([127, 0, 0, 1], 0))), |a| a.parse()) {
                    Ok(addr) => addr,
                    Err(e) => {
                        eprintln!("dive-mcp-demo: bad address: {e}");
                        return std::process::ExitCode::FAILURE;
                    }
                };
            match server.serve_http(addr).await {
                Ok(handle) => {
                    #[allow(clippy::print_stdout)]
                    {
                        println!("{}", handle.url());
                    }
                    // Serve until stdin closes (the parent went away) or Ctrl-C.
                    let mut sink = Vec::new();
                    let mut input = tokio::io::stdin();
                    let stdin = tokio::io::AsyncReadExt::read_to_end(&mut input, &mut sink);
                    tokio::select! {
                        _ = stdin => {},
                        _ = tokio::signal::ctrl_c() => {},
                    }
                    handle.shutdown().await;
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
        Some(other) => {
            eprintln!("dive-mcp-demo: unknown mode `{other}` (stdio | http [ADDR])");
            return std::process::ExitCode::FAILURE;
        }
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dive-mcp-demo: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
