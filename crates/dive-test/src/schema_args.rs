//! Arguments generated from a JSON Schema, for [`TestModel`](crate::TestModel).

use serde_json::{Map, Value, json};

/// A value that satisfies `schema` (required properties only, first enum value, defaults
/// and examples when present, `$ref` resolved against the root's `$defs`).
///
/// ```
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"path": {"type": "string"}, "limit": {"type": "integer", "minimum": 5}},
///     "required": ["path", "limit"]
/// });
/// assert_eq!(dive_test::arguments_for_schema(&schema), serde_json::json!({"path": "test", "limit": 5}));
/// ```
#[must_use]
pub fn arguments_for_schema(schema: &Value) -> Value {
    generate(schema, schema, 0)
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let path = reference.strip_prefix("#/")?;
    path.split('/').try_fold(root, |node, part| node.get(part))
}

fn generate(schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > 12 {
        return Value::Null;
    }
    let Some(obj) = schema.as_object() else { return Value::Null };
    if let Some(r) = obj.get("$ref").and_then(Value::as_str) {
        return resolve(root, r).map_or(Value::Null, |s| generate(s, root, depth + 1));
    }
    for key in ["const", "default"] {
        if let Some(v) = obj.get(key) {
            return v.clone();
        }
    }
    if let Some(v) = obj.get("examples").and_then(Value::as_array).and_then(|a| a.first()) {
        return v.clone();
    }
    if let Some(v) = obj.get("enum").and_then(Value::as_array).and_then(|a| a.iter().find(|v| !v.is_null())) {
        return v.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(options) = obj.get(key).and_then(Value::as_array) {
            let non_null = options.iter().find(|o| o.get("type").and_then(Value::as_str) != Some("null"));
            if let Some(o) = non_null {
                return generate(o, root, depth + 1);
            }
        }
    }
    let ty = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => {
            types.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null")
        }
        _ if obj.contains_key("properties") => "object",
        _ => "string",
    };
    match ty {
        "object" => {
            let mut out = Map::new();
            let required: Vec<&str> = obj
                .get("required")
                .and_then(Value::as_array)
                .map_or_else(Vec::new, |r| r.iter().filter_map(Value::as_str).collect());
            if let Some(props) = obj.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    if required.contains(&name.as_str()) {
                        out.insert(name.clone(), generate(prop, root, depth + 1));
                    }
                }
            }
            Value::Object(out)
        }
        "array" => {
            let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(1).max(1);
            let item = obj.get("items").map_or(json!("test"), |i| generate(i, root, depth + 1));
            Value::Array(vec![item; usize::try_from(min).unwrap_or(1)])
        }
        "integer" => obj.get("minimum").and_then(Value::as_i64).map_or(json!(1), |m| json!(m.max(1))),
        "number" => obj.get("minimum").and_then(Value::as_f64).map_or(json!(1.0), |m| json!(m.max(1.0))),
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => {
            let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            let mut s = String::from("test");
            while (s.len() as u64) < min {
                s.push('x');
            }
            Value::String(s)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_refs_any_of_and_enums() {
        let schema = json!({
            "type": "object",
            "properties": {
                "mode": {"$ref": "#/$defs/Mode"},
                "note": {"type": ["string", "null"]},
                "target": {"anyOf": [{"type": "null"}, {"type": "array", "items": {"type": "boolean"}}]},
                "optional": {"type": "string"}
            },
            "required": ["mode", "note", "target"],
            "$defs": {"Mode": {"type": "string", "enum": ["fast", "slow"]}}
        });
        assert_eq!(arguments_for_schema(&schema), json!({"mode": "fast", "note": "test", "target": [true]}));
    }
}
