//! JSON Schemas for tool inputs, derived with schemars and kept lossless.
//!
//! `anyOf`/`oneOf`, `$ref` + `$defs`, enums, `const` and nullable types are kept exactly as
//! schemars emits them (JSON Schema 2020-12). Only the root `$schema` and `title` keys are
//! dropped: providers reject or ignore them. Providers that cannot take a construct (Gemini
//! and `$ref`, OpenAI strict mode) convert in their own crate.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The input schema of `T`, ready to send as a tool's `input_schema`.
///
/// ```
/// #[derive(schemars::JsonSchema, serde::Deserialize)]
/// struct Input {
///     /// The file to read.
///     path: String,
///     limit: Option<u32>,
/// }
/// let schema = dive_core::schema_for::<Input>();
/// assert_eq!(schema["type"], "object");
/// assert_eq!(schema["required"], serde_json::json!(["path"]));
/// assert_eq!(schema["properties"]["path"]["description"], "The file to read.");
/// ```
#[must_use]
pub fn schema_for<T: JsonSchema + ?Sized>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = Value::from(schema);
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
        if map.get("type").and_then(Value::as_str) == Some("object") && !map.contains_key("properties") {
            map.insert("properties".into(), Value::Object(Map::new()));
        }
    }
    value
}

/// An empty object schema, for tools without input.
#[must_use]
pub fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[allow(dead_code)]
    #[derive(JsonSchema, Deserialize)]
    struct Point {
        x: f64,
        y: f64,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Fast,
        Careful,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema, Deserialize)]
    #[serde(untagged)]
    enum Target {
        Name(String),
        Point(Point),
    }

    #[allow(dead_code)]
    #[derive(JsonSchema, Deserialize)]
    struct Input {
        mode: Mode,
        start: Point,
        end: Option<Point>,
        target: Target,
        note: Option<String>,
    }

    #[test]
    fn keeps_refs_defs_enums_any_of_and_nullable() {
        let s = schema_for::<Input>();
        assert!(s.get("$schema").is_none());
        assert!(s.get("title").is_none());
        assert_eq!(s["properties"]["start"]["$ref"], "#/$defs/Point");
        assert_eq!(s["$defs"]["Mode"]["enum"], json!(["fast", "careful"]));
        assert!(s["$defs"]["Target"]["anyOf"].is_array());
        assert_eq!(s["properties"]["note"]["type"], json!(["string", "null"]));
        let end = &s["properties"]["end"];
        assert!(end["anyOf"].is_array() || end["oneOf"].is_array(), "nullable ref kept: {end}");
        assert_eq!(s["required"], json!(["mode", "start", "target"]));
    }

    #[test]
    fn empty_struct_has_properties() {
        #[derive(JsonSchema)]
        struct Empty {}
        assert_eq!(schema_for::<Empty>(), empty_object_schema());
    }
}
