//! The tool-list cache check every provider crate runs on its own wire format (included by
//! path): four calls on one provider whose tools change between calls — the same list, the
//! same again, another, the first again — and the tool names read back from each body the
//! server received.
#![allow(dead_code, clippy::unwrap_used)]

use dive_core::{Message, ModelRequest, ToolDefinition};
use serde_json::{Value, json};

/// The tool names of each call, in order.
pub const CALLS: [&[&str]; 4] = [&["read", "write"], &["read", "write"], &["search"], &["read", "write"]];

/// A request holding the named tools.
pub fn ask(tools: &[&str]) -> ModelRequest {
    let tools: Vec<ToolDefinition> = tools
        .iter()
        .map(|t| {
            ToolDefinition::new(*t, format!("The {t} tool."), json!({"type": "object", "properties": {}}))
        })
        .collect();
    ModelRequest::new(vec![Message::user("hi")]).with_tools(tools)
}

/// What each body must hold: the names of [`CALLS`].
pub fn expected() -> Vec<Vec<String>> {
    CALLS.iter().map(|c| c.iter().map(|t| (*t).to_owned()).collect()).collect()
}

/// The tool names of each body: `tools` picks the tool list of a body, `name` a tool's name.
pub fn sent_tools<'b>(
    bodies: impl IntoIterator<Item = &'b [u8]>,
    tools: impl Fn(&Value) -> Vec<Value>,
    name: impl Fn(&Value) -> &Value,
) -> Vec<Vec<String>> {
    bodies
        .into_iter()
        .map(|b| {
            let body: Value = serde_json::from_slice(b).unwrap();
            tools(&body).iter().map(|t| name(t).as_str().unwrap().to_owned()).collect()
        })
        .collect()
}
