//! The long request both encode benchmarks send (dive-openai's and dive-anthropic's): a
//! 20-message history (text, tool calls, tool results) with a system prompt and 10 tools.

use dive_core::{Content, Message, ModelRequest, Role, ToolDefinition, ToolResultContent};
use serde_json::json;

/// Ten tools with small object schemas.
fn tools() -> Vec<ToolDefinition> {
    (0..10)
        .map(|i| {
            ToolDefinition::new(
                format!("tool_{i}"),
                format!("Tool number {i}: reads a file and reports what it holds."),
                json!({"type": "object", "properties": {
                    "path": {"type": "string", "description": "The file to read."},
                    "limit": {"type": "integer", "minimum": 1}}, "required": ["path"]}),
            )
        })
        .collect()
}

/// A 20-message history: user, assistant tool call, tool result, repeated, ending on a user turn.
fn history() -> Vec<Message> {
    let mut messages = Vec::new();
    for turn in 0..6 {
        messages.push(Message::user(format!("Please read file number {turn} and summarise it for me.")));
        let id = format!("call_{turn}");
        messages.push(Message::new(
            Role::Assistant,
            vec![
                Content::text("Reading it now."),
                Content::tool_use(id.clone(), "tool_0", json!({"path": format!("/src/{turn}.rs")})),
            ],
        ));
        messages.push(Message::tool_results(vec![ToolResultContent::text(id, "fn main() {}\n".repeat(20))]));
    }
    messages.push(Message::assistant("Every file holds a main function."));
    messages.push(Message::user("Thanks. Which one is longest?"));
    assert_eq!(messages.len(), 20);
    messages
}

pub fn request() -> ModelRequest {
    ModelRequest::new(history()).with_system("You are a careful assistant.").with_tools(tools())
}
