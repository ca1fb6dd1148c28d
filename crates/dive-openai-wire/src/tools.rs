//! The encoded tool list, built once and reused: an agent sends the same tools with every
//! model call, so [`ToolCache`] keeps the last list's JSON (pre-serialized, shared) and hands
//! it out while the request's tools and MCP servers compare equal — no per-request encoding,
//! strict-schema rewriting or deep clone of the schemas.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use dive_core::{McpServerConfig, ModelRequest, ToolDefinition};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A request body: its fields, and the tool list sent pre-encoded.
#[derive(Debug, Clone, Serialize)]
pub struct Body {
    /// Every field but `tools`.
    #[serde(flatten)]
    pub fields: Map<String, Value>,
    /// The encoded `tools` array, shared with the cache.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "shared")]
    pub tools: Option<Arc<RawValue>>,
}

fn shared<S: serde::Serializer>(tools: &Option<Arc<RawValue>>, s: S) -> Result<S::Ok, S::Error> {
    tools.as_deref().serialize(s)
}

struct Entry {
    /// The request's shared list: an agent's calls hand the same one, compared by address
    /// before by value.
    tools: Arc<[ToolDefinition]>,
    mcp: Vec<McpServerConfig>,
    json: Arc<RawValue>,
}

/// The last encoded tool list of one provider. `Debug` shows no tool (an MCP server's token
/// may be among them).
#[derive(Clone, Default)]
pub struct ToolCache {
    last: Arc<Mutex<Option<Entry>>>,
}

impl fmt::Debug for ToolCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ToolCache(..)")
    }
}

impl ToolCache {
    /// The encoded tools of `request`: the cached JSON when its tools and MCP servers equal
    /// the last ones, else `encode()`d once and kept. `None` when the list is empty.
    pub(crate) fn get(
        &self,
        request: &ModelRequest,
        encode: impl FnOnce() -> Vec<Value>,
    ) -> Option<Arc<RawValue>> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = last.as_ref()
            && (Arc::ptr_eq(&entry.tools, &request.tools) || entry.tools == request.tools)
            && entry.mcp == request.mcp_servers
        {
            return Some(Arc::clone(&entry.json));
        }
        let tools = encode();
        if tools.is_empty() {
            return None;
        }
        let json: Arc<RawValue> = Arc::from(serde_json::value::to_raw_value(&tools).ok()?);
        *last = Some(Entry {
            tools: Arc::clone(&request.tools),
            mcp: request.mcp_servers.clone(),
            json: Arc::clone(&json),
        });
        Some(json)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use dive_core::Message;
    use std::cell::Cell;

    #[test]
    fn equal_tool_lists_are_encoded_once() {
        let cache = ToolCache::default();
        let encodes = Cell::new(0);
        let encode = || {
            encodes.set(encodes.get() + 1);
            vec![serde_json::json!({"type": "function", "name": "read"})]
        };
        let tool = ToolDefinition::new("read", "Reads a file.", serde_json::json!({"type": "object"}));
        let first = ModelRequest::new(vec![Message::user("a")]).with_tools(vec![tool.clone()]);
        // A later call of the same agent: new history, same tools (a fresh copy of them).
        let second = ModelRequest::new(vec![Message::user("a"), Message::user("b")]).with_tools(vec![tool]);
        let a = cache.get(&first, encode).unwrap();
        let b = cache.get(&second, encode).unwrap();
        assert_eq!(encodes.get(), 1);
        assert!(Arc::ptr_eq(&a, &b), "the same shared JSON, not a copy");
        let other = ToolDefinition::new("write", "Writes.", serde_json::json!({"type": "object"}));
        cache.get(&ModelRequest::new(vec![]).with_tools(vec![other]), encode).unwrap();
        assert_eq!(encodes.get(), 2, "a changed list is encoded again");
        assert!(cache.get(&ModelRequest::new(vec![]), Vec::new).is_none());
    }
}
