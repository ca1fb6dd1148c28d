//! The strict-mode schema sanitiser: rewrites a JSON Schema to fit OpenAI's structured
//! output rules (every object closed with `additionalProperties: false`, every property
//! listed in `required`, optional properties made nullable instead, `oneOf` as `anyOf`,
//! `default` removed).

use serde_json::{Map, Value, json};

/// Rewrites `schema` for OpenAI strict mode (tools with `strict: true` and `json_schema`
/// response formats). Properties that were optional stay optional in meaning: they become
/// required but also accept `null`.
///
/// ```
/// use serde_json::json;
/// let schema = json!({"type": "object", "properties": {
///     "city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]});
/// let strict = dive_openai_wire::strict_schema(&schema);
/// assert_eq!(strict, json!({"type": "object", "properties": {
///     "city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
///     "required": ["city", "days"], "additionalProperties": false}));
/// ```
#[must_use]
pub fn strict_schema(schema: &Value) -> Value {
    let mut out = schema.clone();
    sanitize(&mut out);
    out
}

fn is_object_schema(map: &Map<String, Value>) -> bool {
    map.contains_key("properties")
        || match map.get("type") {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
            _ => false,
        }
}

fn sanitize(value: &mut Value) {
    let Value::Object(map) = value else { return };
    map.remove("default");
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    for key in ["anyOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(items)) = map.get_mut(key) {
            items.iter_mut().for_each(sanitize);
        }
    }
    for key in ["items", "not", "additionalItems"] {
        if let Some(v) = map.get_mut(key) {
            sanitize(v);
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(defs)) = map.get_mut(key) {
            defs.values_mut().for_each(sanitize);
        }
    }
    if !is_object_schema(map) {
        return;
    }
    let required: Vec<String> = match map.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    let mut props = match map.remove("properties") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    for (name, prop) in &mut props {
        sanitize(prop);
        if !required.contains(name) {
            make_nullable(prop);
        }
    }
    let names: Vec<Value> = props.keys().cloned().map(Value::String).collect();
    map.insert("properties".into(), Value::Object(props));
    map.insert("required".into(), Value::Array(names));
    map.insert("additionalProperties".into(), Value::Bool(false));
}

fn make_nullable(prop: &mut Value) {
    let Value::Object(map) = prop else { return };
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match map.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            map.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(ts)) => {
            if !ts.iter().any(|t| t == "null") {
                ts.push(json!("null"));
            }
        }
        Some(_) => {}
        None => {
            if let Some(Value::Array(any)) = map.get_mut("anyOf") {
                if !any.iter().any(|s| s.get("type") == Some(&json!("null"))) {
                    any.push(json!({"type": "null"}));
                }
            } else if map.contains_key("enum") {
            } else {
                let inner = Value::Object(std::mem::take(map));
                map.insert("anyOf".into(), json!([inner, {"type": "null"}]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_objects_refs_and_arrays_are_closed() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string", "default": "x"}}}},
                "mode": {"enum": ["a", "b"]},
                "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "loc": {"$ref": "#/$defs/Loc"}
            },
            "required": ["tags"],
            "$defs": {"Loc": {"type": "object", "properties": {"lat": {"type": "number"}}}}
        });
        let s = strict_schema(&schema);
        // serde_json keeps keys sorted, so `required` lists them in that order.
        assert_eq!(s["required"], json!(["loc", "mode", "pick", "tags"]));
        assert_eq!(s["additionalProperties"], json!(false));
        let item = &s["properties"]["tags"]["items"];
        assert_eq!(item["additionalProperties"], json!(false));
        assert_eq!(item["properties"]["k"], json!({"type": ["string", "null"]}));
        assert_eq!(s["properties"]["mode"], json!({"enum": ["a", "b", null]}));
        assert_eq!(
            s["properties"]["pick"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
        );
        assert_eq!(s["properties"]["loc"], json!({"anyOf": [{"$ref": "#/$defs/Loc"}, {"type": "null"}]}));
        assert_eq!(s["$defs"]["Loc"]["required"], json!(["lat"]));
        // Idempotent.
        assert_eq!(strict_schema(&s), s);
    }

    #[test]
    fn empty_objects_get_empty_properties() {
        assert_eq!(
            strict_schema(&json!({"type": "object"})),
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
    }
}
