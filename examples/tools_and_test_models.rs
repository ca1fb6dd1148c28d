//! Defines a typed tool and a function tool, shows their derived schemas, and drives them with
//! the schema-aware `TestModel` — no network, no key.
//!
//! Run with `cargo run -p dive-examples --example tools_and_test_models`.

use std::sync::Arc;

use dive::{
    FunctionTool, IntoTool, Llm, Message, ModelRequest, Tool, ToolContext, ToolError, ToolResult,
    ToolResultContent, TypedTool,
};
use dive_test::TestModel;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AddInput {
    /// First addend.
    a: i64,
    /// Second addend.
    b: i64,
}

struct Add;

impl TypedTool for Add {
    type Input = AddInput;
    fn name(&self) -> &str {
        "add"
    }
    fn description(&self) -> &str {
        "Adds two integers."
    }
    async fn call(&self, input: AddInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        Ok(ToolResult::text((input.a + input.b).to_string()))
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct GreetInput {
    name: String,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let greet = FunctionTool::new("greet", "Greets someone.", |input: GreetInput, _ctx| async move {
        Ok::<_, ToolError>(format!("Hello, {}!", input.name))
    });
    let tools: Vec<Arc<dyn Tool>> = vec![Add.into_tool(), Arc::new(greet)];
    for tool in &tools {
        eprintln!("{}: {}", tool.name(), serde_json::to_string(tool.input_schema())?);
    }

    // A hand-written loop (the engine crate does this for you, with hooks and durability).
    let model = TestModel::new();
    let definitions = tools.iter().map(|t| t.definition()).collect::<Vec<_>>();
    let mut history = vec![Message::user("Use your tools.")];
    futures::executor::block_on(async {
        loop {
            let request = ModelRequest::new(history.clone()).with_tools(definitions.clone());
            let response = model.generate(request).await?;
            let calls: Vec<_> = response.tool_uses().cloned().collect();
            history.push(response.into_message());
            if calls.is_empty() {
                break;
            }
            let mut results = Vec::new();
            for call in calls {
                let tool = tools.iter().find(|t| t.name() == call.name).ok_or("unknown tool")?;
                let result = tool.call(call.input.clone().into(), ToolContext::detached(&call.name)).await?;
                let ToolResult::Output(output) = result else { return Err("unexpected result kind".into()) };
                let mut block = ToolResultContent::new(call.id.clone(), output.content);
                block.is_error = output.is_error;
                results.push(block);
            }
            history.push(Message::tool_results(results));
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    eprintln!("{}", history.last().map(Message::text).unwrap_or_default());
    Ok(())
}
