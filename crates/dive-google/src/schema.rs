//! JSON Schema (tool input schemas, response schemas) → the JSON Schema subset Gemini takes in
//! `parametersJsonSchema` and `responseJsonSchema`.
//!
//! The decision for every keyword is documented on [`convert_schema`].

use std::fmt;

use serde_json::{Map, Value, json};

/// A schema Gemini cannot take without changing its meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaError {
    /// The tool whose input schema failed (`None` for the response schema).
    pub tool: Option<String>,
    /// JSON pointer to the schema object holding the keyword (`""` for the root).
    pub path: String,
    /// The keyword.
    pub keyword: String,
    /// Why it cannot be sent.
    pub reason: &'static str,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.tool {
            Some(tool) => write!(f, "the input schema of tool `{tool}`")?,
            None => f.write_str("the response schema")?,
        }
        let at = if self.path.is_empty() { "/" } else { &self.path };
        write!(f, " uses `{}` at `{at}`, which Gemini does not support: {}", self.keyword, self.reason)
    }
}

impl std::error::Error for SchemaError {}

const KEPT: &[&str] = &[
    "type",
    "required",
    "enum",
    "format",
    "title",
    "description",
    "default",
    "example",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "$ref",
    "$id",
    "$anchor",
    "propertyOrdering",
    "nullable",
];

const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$comment",
    "examples",
    "readOnly",
    "writeOnly",
    "deprecated",
    "contentEncoding",
    "contentMediaType",
];

/// Converts `schema` for Gemini.
///
/// Every keyword has one decision; nothing is dropped silently unless it cannot change which
/// values are valid:
///
/// | Keywords | Decision |
/// |---|---|
/// | `type` (a name or a list such as `["string","null"]`), `properties`, `required`, `items`, `prefixItems`, `enum`, `format`, `title`, `description`, `default`, `example`, `minItems`, `maxItems`, `minimum`, `maximum`, `minLength`, `maxLength`, `pattern`, `minProperties`, `maxProperties`, `anyOf`, `additionalProperties`, `$ref`, `$defs`, `$id`, `$anchor`, `propertyOrdering`, `nullable` | sent as they are |
/// | `const: v` | `enum: [v]` (same meaning) |
/// | `definitions`, `#/definitions/…` refs | `$defs`, `#/$defs/…` (same meaning) |
/// | `items: [a, b]` (draft-7 tuples) | `prefixItems: [a, b]` (same meaning) |
/// | `exclusiveMinimum`/`exclusiveMaximum: n` on an `integer` with an integer `n` | `minimum: n+1` / `maximum: n-1` (same meaning) |
/// | `allOf` with one subschema | merged into its parent when no keyword collides |
/// | `uniqueItems: false` | dropped (it constrains nothing) |
/// | `oneOf` | `anyOf`: Gemini reads `oneOf` as `anyOf` anyway; exclusivity is not enforced by the model |
/// | `$schema`, `$comment`, `examples`, `readOnly`, `writeOnly`, `deprecated`, `contentEncoding`, `contentMediaType`, `x-…` | dropped: annotations that never change validity |
/// | `not`, `if`/`then`/`else`, `allOf` (several), `dependentRequired`, `dependentSchemas`, `dependencies`, `patternProperties`, `propertyNames`, `unevaluatedProperties`, `unevaluatedItems`, `additionalItems`, `contains`, `minContains`, `maxContains`, `uniqueItems: true`, `multipleOf`, other `exclusiveMinimum`/`exclusiveMaximum`, `$dynamicRef`, `$recursiveRef`, any other keyword, a `false` schema | a [`SchemaError`] naming the keyword and where it is |
///
/// ```
/// use serde_json::json;
/// let s = json!({"type": "object", "properties": {"unit": {"const": "c"}}, "$schema": "x"});
/// let out = dive_google::convert_schema(&s).unwrap();
/// assert_eq!(out, json!({"type": "object", "properties": {"unit": {"enum": ["c"]}}}));
/// assert!(dive_google::convert_schema(&json!({"not": {"type": "null"}})).is_err());
/// ```
///
/// # Errors
/// [`SchemaError`] for a keyword Gemini cannot take (its `tool` is `None`; the encoder fills it).
pub fn convert_schema(schema: &Value) -> Result<Value, SchemaError> {
    convert(schema, "")
}

fn error(path: &str, keyword: &str, reason: &'static str) -> SchemaError {
    SchemaError { tool: None, path: path.to_owned(), keyword: keyword.to_owned(), reason }
}

fn convert(schema: &Value, path: &str) -> Result<Value, SchemaError> {
    let object = match schema {
        Value::Bool(true) => return Ok(json!({})),
        Value::Object(m) => m,
        _ => return Err(error(path, "false", "a schema that accepts nothing cannot be expressed")),
    };
    let mut out = Map::new();
    // `integer`, alone or with `null`: the only types an exclusive bound can be made inclusive on.
    let is_integer = match object.get("type") {
        Some(Value::String(t)) => t == "integer",
        Some(Value::Array(types)) => {
            types.contains(&json!("integer")) && types.iter().all(|t| t == "integer" || t == "null")
        }
        _ => false,
    };
    for (key, value) in object {
        let here = |sub: &str| format!("{path}/{}", escape(sub));
        match key.as_str() {
            k if KEPT.contains(&k) => {
                let v = if k == "$ref" { rewrite_ref(value) } else { value.clone() };
                out.insert(key.clone(), v);
            }
            k if ANNOTATIONS.contains(&k) || k.starts_with("x-") => {}
            "const" => {
                out.insert("enum".into(), json!([value]));
            }
            "properties" | "$defs" | "definitions" => {
                let Value::Object(props) = value else {
                    return Err(error(path, key, "must be an object of schemas"));
                };
                let mut converted = Map::new();
                for (name, sub) in props {
                    converted.insert(name.clone(), convert(sub, &format!("{}/{}", here(key), escape(name)))?);
                }
                let target = if key == "definitions" { "$defs" } else { key.as_str() };
                out.insert(target.into(), Value::Object(converted));
            }
            "items" => match value {
                Value::Array(tuple) => {
                    out.insert("prefixItems".into(), convert_list(tuple, &here("items"))?);
                }
                sub => {
                    out.insert("items".into(), convert(sub, &here("items"))?);
                }
            },
            "prefixItems" | "anyOf" | "oneOf" => {
                let Value::Array(list) = value else {
                    return Err(error(path, key, "must be an array of schemas"));
                };
                let target = if key == "oneOf" { "anyOf" } else { key.as_str() };
                out.insert(target.into(), convert_list(list, &here(key))?);
            }
            "additionalProperties" => {
                let v = if value.is_boolean() { value.clone() } else { convert(value, &here(key))? };
                out.insert(key.clone(), v);
            }
            "exclusiveMinimum" | "exclusiveMaximum" => match (is_integer, value.as_i64()) {
                (true, Some(n)) => {
                    let (target, bound) =
                        if key == "exclusiveMinimum" { ("minimum", n + 1) } else { ("maximum", n - 1) };
                    out.insert(target.into(), json!(bound));
                }
                _ => {
                    return Err(error(path, key, "an exclusive bound is only exact on integers"));
                }
            },
            "uniqueItems" if value == &Value::Bool(false) => {}
            "allOf" => merge_single_all_of(value, path, &mut out)?,
            other => {
                return Err(error(path, other, "no equivalent in Gemini's schema subset"));
            }
        }
    }
    Ok(Value::Object(out))
}

/// A JSON-pointer segment.
fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

fn convert_list(list: &[Value], path: &str) -> Result<Value, SchemaError> {
    list.iter()
        .enumerate()
        .map(|(i, s)| convert(s, &format!("{path}/{i}")))
        .collect::<Result<_, _>>()
        .map(Value::Array)
}

fn rewrite_ref(value: &Value) -> Value {
    match value.as_str().and_then(|r| r.strip_prefix("#/definitions/")) {
        Some(rest) => json!(format!("#/$defs/{rest}")),
        None => value.clone(),
    }
}

fn merge_single_all_of(value: &Value, path: &str, out: &mut Map<String, Value>) -> Result<(), SchemaError> {
    let only = match value.as_array().map(Vec::as_slice) {
        Some([only]) => only,
        _ => return Err(error(path, "allOf", "an intersection of several schemas cannot be expressed")),
    };
    let Value::Object(merged) = convert(only, &format!("{path}/allOf/0"))? else {
        return Err(error(path, "allOf", "must hold a schema object"));
    };
    for (k, v) in merged {
        if out.contains_key(&k) {
            return Err(error(path, "allOf", "its subschema repeats a keyword of its parent"));
        }
        out.insert(k, v);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lossless_rewrites() {
        let s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "n": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10},
                "pair": {"type": "array", "items": [{"type": "string"}, {"type": "number"}]},
                "kind": {"oneOf": [{"const": "a"}, {"$ref": "#/definitions/B"}]},
                "opt": {"type": ["string", "null"], "x-extra": 1, "uniqueItems": false},
                "wrapped": {"allOf": [{"type": "string"}], "description": "d"}
            },
            "definitions": {"B": {"type": "string", "examples": ["b"]}},
            "additionalProperties": false
        });
        let out = convert_schema(&s).unwrap();
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "minimum": 1, "maximum": 9},
                    "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
                    "kind": {"anyOf": [{"enum": ["a"]}, {"$ref": "#/$defs/B"}]},
                    "opt": {"type": ["string", "null"]},
                    "wrapped": {"type": "string", "description": "d"}
                },
                "$defs": {"B": {"type": "string"}},
                "additionalProperties": false
            })
        );
    }

    #[test]
    fn unsupported_keywords_name_themselves_and_their_place() {
        let cases = [
            (json!({"properties": {"a": {"not": {"type": "null"}}}}), "not", "/properties/a"),
            (
                json!({"properties": {"a/b": {"type": "number", "exclusiveMinimum": 0.5}}}),
                "exclusiveMinimum",
                "/properties/a~1b",
            ),
            (json!({"allOf": [{"type": "object"}, {"required": ["a"]}]}), "allOf", ""),
            (json!({"type": "array", "uniqueItems": true}), "uniqueItems", ""),
            (json!({"patternProperties": {"^x": {}}}), "patternProperties", ""),
            (json!({"items": false}), "false", "/items"),
        ];
        for (schema, keyword, path) in cases {
            let e = convert_schema(&schema).unwrap_err();
            assert_eq!((e.keyword.as_str(), e.path.as_str()), (keyword, path), "{schema}");
        }
        let mut e = convert_schema(&json!({"if": {}})).unwrap_err();
        e.tool = Some("calc".into());
        assert_eq!(
            e.to_string(),
            "the input schema of tool `calc` uses `if` at `/`, which Gemini does not support: no equivalent in Gemini's schema subset"
        );
    }
}
