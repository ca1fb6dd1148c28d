//! Shared helpers for the engine's integration tests: tools that record, sleep, fail or panic.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dive_agent::{Agent, AgentBuilder};
use dive_core::{
    FunctionTool, ModelResponse, ResponseItem, Tool, ToolAnnotations, ToolError, ToolOutput, ToolResult,
    ToolUse,
};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

/// A tool call.
pub fn call(id: &str, name: &str, input: Value) -> ToolUse {
    ToolUse::new(id, name, input)
}

/// A response calling these tools.
pub fn calls(list: &[(&str, &str, Value)]) -> ModelResponse {
    ModelResponse::tool_calls(list.iter().map(|(id, name, input)| call(id, name, input.clone())).collect())
}

/// A builder over a scripted model.
pub fn agent_with(model: &ScriptedModel) -> AgentBuilder {
    Agent::builder().name("test-agent").model(model.clone())
}

/// A tool echoing `{"text": ...}` after sleeping `{"ms": ...}`, logging start and end.
pub fn echo(name: &str, log: Arc<Mutex<Vec<String>>>) -> Arc<dyn Tool> {
    let tool_name = name.to_owned();
    Arc::new(
        FunctionTool::new(name, "Echoes text after an optional delay.", move |input: Value, _ctx| {
            let log = log.clone();
            let tool_name = tool_name.clone();
            async move {
                let text = input["text"].as_str().unwrap_or_default().to_owned();
                log.lock().unwrap().push(format!("start {tool_name} {text}"));
                if let Some(ms) = input["ms"].as_u64() {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                }
                log.lock().unwrap().push(format!("end {tool_name} {text}"));
                Ok::<_, ToolError>(ToolResult::text(text))
            }
        })
        .with_schema(json!({
            "type": "object",
            "properties": {"text": {"type": "string"}, "ms": {"type": "integer"}},
            "required": ["text"]
        })),
    )
}

/// A tool that fails with `message` (fatal when asked), annotated as halting when asked.
pub fn failing(name: &str, message: &str, fatal: bool, halts: bool) -> Arc<dyn Tool> {
    let message = message.to_owned();
    Arc::new(
        FunctionTool::new(name, "Fails.", move |_input: Value, _ctx| {
            let message = message.clone();
            async move {
                let e = ToolError::new(message);
                Err::<ToolOutput, _>(if fatal { e.fatal() } else { e })
            }
        })
        .with_annotations(ToolAnnotations::default().with_halts_batch(halts)),
    )
}

/// Result items' call ids in emission order.
pub fn result_order(items: &[ResponseItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            ResponseItem::ToolCallResult { result } => Some(result.id.clone()),
            _ => None,
        })
        .collect()
}

/// The text of each tool result in the last tool-result message of `messages`, in order.
pub fn last_results(messages: &[dive_core::Message]) -> Vec<(String, String, bool)> {
    let msg =
        messages.iter().rev().find(|m| m.tool_results_iter().next().is_some()).expect("a result message");
    msg.tool_results_iter().map(|r| (r.tool_use_id.clone(), r.text_content(), r.is_error)).collect()
}
