//! [`ToolCache`]: the encoded tool list of a provider, built once and reused. An agent sends
//! the same tools with every model call, so the cache keeps the last list's JSON
//! (pre-serialized, shared) and hands it out while the request's tools and MCP servers compare
//! equal: no per-request encoding, schema rewriting or deep clone of the schemas. A changed
//! list is encoded again (the key is the list's value, so a list freed and rebuilt at the
//! same address can never hit a stale entry).

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use dive_core::{McpServerConfig, ModelRequest, ToolDeclaration, ToolDefinition};
use serde::Serialize;
use serde_json::value::RawValue;

/// A tool list encoded once: its JSON, shared by every body that sends it (serializing it
/// copies the text, nothing is re-encoded).
#[derive(Debug, Clone)]
pub struct EncodedTools(Arc<RawValue>);

impl EncodedTools {
    /// Encodes a list; `None` when it is empty.
    ///
    /// # Errors
    /// When an item does not serialize.
    pub fn encode<T: Serialize>(tools: &[T]) -> Result<Option<Self>, serde_json::Error> {
        if tools.is_empty() {
            return Ok(None);
        }
        Ok(Some(Self(Arc::from(serde_json::value::to_raw_value(tools)?))))
    }

    /// The JSON text.
    #[must_use]
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Whether both are the same shared encoding (not merely equal text).
    #[must_use]
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Serialize for EncodedTools {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

struct Entry {
    /// The request's shared list: an agent's calls hand the same one, compared by address
    /// before by value (kept alive here, so a freed address cannot be reused by another list).
    tools: Arc<[ToolDefinition]>,
    mcp: Vec<McpServerConfig>,
    declared: Vec<Arc<ToolDeclaration>>,
    json: Option<EncodedTools>,
}

/// The last encoded tool list of one provider (a wire format holds one; clones share it).
/// `Debug` shows no tool (an MCP server's token may be among them).
///
/// ```
/// use dive_core::{Message, ModelRequest, ToolDefinition};
/// use dive_provider::{EncodedTools, ToolCache};
/// let cache = ToolCache::default();
/// let tool = ToolDefinition::new("read", "Reads a file.", serde_json::json!({"type": "object"}));
/// let request = ModelRequest::new(vec![Message::user("hi")]).with_tools(vec![tool]);
/// let names: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
/// let json = cache.get(&request, || EncodedTools::encode(&names)).unwrap().unwrap();
/// assert_eq!(json.get(), r#"["read"]"#);
/// ```
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
    /// The encoded tools of `request`: the cached list when its tools, MCP servers and declared
    /// toolsets equal the last ones, else what `encode` gives (usually [`EncodedTools::encode`] of the
    /// wire's tool items), kept. `None` when the request has no tools.
    ///
    /// # Errors
    /// What `encode` returns (nothing is kept then).
    pub fn get<E>(
        &self,
        request: &ModelRequest,
        encode: impl FnOnce() -> Result<Option<EncodedTools>, E>,
    ) -> Result<Option<EncodedTools>, E> {
        if request.tools.is_empty() && request.mcp_servers.is_empty() && request.declared_toolsets.is_empty()
        {
            return Ok(None);
        }
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = last.as_ref()
            && (Arc::ptr_eq(&entry.tools, &request.tools) || entry.tools[..] == request.tools[..])
            && entry.mcp[..] == request.mcp_servers[..]
            && entry.declared[..] == request.declared_toolsets[..]
        {
            return Ok(entry.json.clone());
        }
        let json = encode()?;
        *last = Some(Entry {
            tools: Arc::clone(&request.tools),
            mcp: request.mcp_servers[..].to_vec(),
            declared: request.declared_toolsets.clone(),
            json: json.clone(),
        });
        Ok(json)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use dive_core::Message;
    use serde_json::{Value, json};
    use std::cell::Cell;

    #[test]
    fn equal_tool_lists_are_encoded_once_and_a_changed_list_again() {
        let cache = ToolCache::default();
        let encodes = Cell::new(0);
        let encode = |request: &ModelRequest| {
            encodes.set(encodes.get() + 1);
            EncodedTools::encode(
                &request.tools.iter().map(|t| json!({"name": t.name})).collect::<Vec<Value>>(),
            )
        };
        let tool = ToolDefinition::new("read", "Reads a file.", json!({"type": "object"}));
        let first = ModelRequest::new(vec![Message::user("a")]).with_tools(vec![tool.clone()]);
        // A later call of the same agent: new history, same tools (a fresh copy of them).
        let second = ModelRequest::new(vec![Message::user("a"), Message::user("b")]).with_tools(vec![tool]);
        let a = cache.get(&first, || encode(&first)).unwrap().unwrap();
        let b = cache.get(&second, || encode(&second)).unwrap().unwrap();
        assert_eq!(encodes.get(), 1);
        assert!(a.ptr_eq(&b), "the same shared JSON, not a copy");
        let other = ModelRequest::new(vec![]).with_tools(vec![ToolDefinition::new(
            "write",
            "Writes.",
            json!({"type": "object"}),
        )]);
        let c = cache.get(&other, || encode(&other)).unwrap().unwrap();
        assert_eq!((encodes.get(), c.get()), (2, r#"[{"name":"write"}]"#), "a changed list is encoded again");
        assert!(cache.get(&ModelRequest::new(vec![]), || encode(&first)).unwrap().is_none());
        assert_eq!(encodes.get(), 2, "no tools: nothing to encode");
    }

    #[test]
    fn a_failed_encoding_is_not_kept() {
        let cache = ToolCache::default();
        let request = ModelRequest::new(vec![]).with_tools(vec![ToolDefinition::new(
            "read",
            "Reads.",
            json!({"type": "object"}),
        )]);
        let failed = cache.get(&request, || Err("bad schema"));
        assert_eq!(failed.unwrap_err(), "bad schema");
        assert_eq!(cache.get(&request, || EncodedTools::encode(&[1])).unwrap().unwrap().get(), "[1]");
    }
}
