//! Tool input validation against each tool's JSON Schema, with compiled validators cached per
//! tool name (recompiled only when a tool's schema changes).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use dive_core::Tool;
use jsonschema::Validator;
use serde_json::Value;

/// The most schema violations listed in one error result.
const MAX_LISTED: usize = 5;

/// A tool's schema as last seen, and its compiled validator (`None`: provider-native, never
/// validated, or it does not compile). `tool` keeps the tool whose schema was compiled alive,
/// so a later call of the same tool object with the schema at the same address is known to
/// be unchanged without comparing it.
struct Compiled {
    tool: Arc<dyn Tool>,
    schema: Value,
    validator: Option<Arc<Validator>>,
}

#[derive(Default)]
pub(crate) struct SchemaCache {
    compiled: Mutex<HashMap<String, Compiled>>,
}

impl SchemaCache {
    /// The tool's validator, compiled once per schema: a call with a known schema costs a
    /// pointer comparison (or, for another tool object of the same name, a schema
    /// comparison), no allocation.
    fn validator(&self, tool: &Arc<dyn Tool>) -> Option<Arc<Validator>> {
        let schema = tool.input_schema();
        let mut map = self.compiled.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(cached) = map.get(tool.name()) {
            let same_object =
                Arc::ptr_eq(&cached.tool, tool) && std::ptr::eq(cached.tool.input_schema(), schema);
            if same_object || cached.schema == *schema {
                return cached.validator.clone();
            }
        }
        let validator = if tool.definition().is_native() {
            None
        } else {
            match jsonschema::validator_for(schema) {
                Ok(v) => Some(Arc::new(v)),
                Err(e) => {
                    tracing::warn!(tool = tool.name(), error = %e, "tool input schema does not compile; input is not validated");
                    None
                }
            }
        };
        let compiled =
            Compiled { tool: Arc::clone(tool), schema: schema.clone(), validator: validator.clone() };
        map.insert(tool.name().to_owned(), compiled);
        validator
    }

    /// Checks `input` against the tool's schema. `Err` holds a message for the model naming
    /// what is wrong, so it can correct the call.
    pub(crate) fn check(&self, tool: &Arc<dyn Tool>, input: &Value) -> Result<(), String> {
        let Some(validator) = self.validator(tool) else {
            return Ok(());
        };
        let empty = Value::Object(serde_json::Map::new());
        let input = if input.is_null() { &empty } else { input };
        if validator.is_valid(input) {
            return Ok(());
        }
        let errors: Vec<String> = validator
            .iter_errors(input)
            .take(MAX_LISTED + 1)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() { e.to_string() } else { format!("at {path}: {e}") }
            })
            .collect();
        if errors.is_empty() {
            return Ok(());
        }
        let mut listed = errors.iter().take(MAX_LISTED).cloned().collect::<Vec<_>>().join("; ");
        if errors.len() > MAX_LISTED {
            listed.push_str("; …");
        }
        Err(format!(
            "Invalid input for tool {}: {listed}. Fix the input to match the tool's schema and call it again.",
            tool.name()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive_core::{FunctionTool, ToolResult};
    use serde_json::json;

    fn add_tool(schema: Value) -> Arc<dyn Tool> {
        Arc::new(
            FunctionTool::new("add", "adds", |_input: Value, _ctx| async { Ok(ToolResult::text("ok")) })
                .with_schema(schema),
        )
    }

    #[test]
    fn invalid_input_names_the_problem() {
        let tool =
            add_tool(json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}));
        let cache = SchemaCache::default();
        assert!(cache.check(&tool, &json!({"a": 1})).is_ok());
        let err = cache.check(&tool, &json!({"a": "x"})).unwrap_err();
        assert!(err.contains("Invalid input for tool add"), "{err}");
        assert!(err.contains("/a"), "{err}");
        assert!(cache.check(&tool, &json!({})).unwrap_err().contains("\"a\" is a required property"));
    }

    #[test]
    fn another_tool_of_the_same_name_is_checked_against_its_own_schema() {
        let cache = SchemaCache::default();
        let integer = add_tool(json!({"type": "object", "properties": {"a": {"type": "integer"}}}));
        assert!(cache.check(&integer, &json!({"a": "x"})).is_err());
        let string = add_tool(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        assert!(cache.check(&string, &json!({"a": "x"})).is_ok());
        assert!(cache.check(&string, &json!({"a": 1})).is_err());
        let same_schema = add_tool(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
        assert!(cache.check(&same_schema, &json!({"a": "y"})).is_ok());
        assert!(cache.check(&integer, &json!({"a": 2})).is_ok());
    }
}
