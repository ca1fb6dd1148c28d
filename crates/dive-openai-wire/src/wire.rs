//! Small pieces both wire formats share: data URLs, tool argument strings, tool-result text,
//! reading usage counters and provider metadata.

use std::borrow::Cow;

use dive_core::{Content, MediaSource, ToolResultContent, ToolUse};
use dive_provider::EncodedTools;

use crate::dialect::Dialect;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};

/// The metadata key OpenAI replay data lives under (`{"openai": {"phase": …}}`).
pub(crate) const META: &str = "openai";

/// `data:<type>;base64,<data>` for inline media, the URL for URL sources.
pub(crate) fn media_url(source: &MediaSource) -> Option<Cow<'_, str>> {
    match source {
        MediaSource::Base64 { media_type, data } => {
            Some(Cow::Owned(format!("data:{media_type};base64,{data}")))
        }
        MediaSource::Url { url } => Some(Cow::Borrowed(url)),
        _ => None,
    }
}

/// The `arguments` string of a tool call: the input as JSON, or the raw text when the model's
/// arguments never parsed (kept as a string so they are replayed exactly).
pub(crate) fn arguments(call: &ToolUse) -> Arguments<'_> {
    Arguments(&call.input)
}

/// A tool call's `arguments` as the body's serializer writes them: the input's JSON text is
/// escaped into the body's string as it is written, with no string of its own. Every request
/// sends every past call again, so this is paid once a request for each call in the history.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Arguments<'a>(&'a Value);

impl Serialize for Arguments<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::String(raw) => s.serialize_str(raw),
            // `Value`'s `Display` is its compact JSON, what `serde_json::to_string` writes.
            other => s.collect_str(other),
        }
    }
}

/// A tool list as the shared pre-encoded JSON a body sends (`None` when empty).
pub(crate) fn encode_tool_list(tools: &[Value]) -> Option<EncodedTools> {
    EncodedTools::encode(tools).ok().flatten()
}

/// Parses model arguments; text that is not JSON is kept as a string.
pub(crate) fn parse_arguments(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return json!({});
    }
    serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()))
}

/// The text a tool result shows the model; errors are marked so the model knows. Borrowed
/// when the result is one text block that needs no mark.
pub(crate) fn result_text(result: &ToolResultContent) -> Cow<'_, str> {
    let mut texts = result.content.iter().filter_map(Content::as_text);
    let text = match (texts.next(), texts.next()) {
        (Some(only), None) => Cow::Borrowed(only),
        _ => Cow::Owned(result.text_content()),
    };
    let marked = text.as_bytes().get(..5).is_some_and(|head| head.eq_ignore_ascii_case(b"error"));
    if result.is_error && !marked { Cow::Owned(format!("Error: {text}")) } else { text }
}

/// True when a tool result carries images or documents the text form would lose.
pub(crate) fn has_media(result: &ToolResultContent) -> bool {
    result.content.iter().any(|c| matches!(c, Content::Image(_) | Content::Document(_)))
}

pub(crate) fn count(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

pub(crate) fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// This provider's replay metadata of a block, if any.
pub(crate) fn meta<'a>(metadata: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    metadata.get(META).and_then(|m| m.get(key)).filter(|v| !v.is_null())
}

/// `{"openai": {key: value, …}}` from pairs, skipping nulls.
pub(crate) fn metadata(pairs: &[(&str, Option<Value>)]) -> Map<String, Value> {
    let inner: Map<String, Value> = pairs
        .iter()
        .filter_map(|(k, v)| v.clone().filter(|v| !v.is_null()).map(|v| ((*k).to_owned(), v)))
        .collect();
    let mut out = Map::new();
    if !inner.is_empty() {
        out.insert(META.into(), Value::Object(inner));
    }
    out
}

/// Client settings that shape every body of both APIs.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct EncodeOptions<'a> {
    /// The model when the request names none.
    pub model: &'a str,
    /// The output limit when the request sets none (`None`: not sent).
    pub max_tokens: Option<u32>,
    /// Streaming body (`stream: true`; on Chat Completions also `stream_options` when the
    /// dialect asks).
    pub stream: bool,
    /// The vendor's wire differences.
    pub dialect: &'a Dialect,
}

impl<'a> EncodeOptions<'a> {
    /// Options for a model and dialect.
    #[must_use]
    pub fn new(model: &'a str, dialect: &'a Dialect) -> Self {
        Self { model, max_tokens: None, stream: false, dialect }
    }

    /// Sets the streaming flag.
    #[must_use]
    pub fn streaming(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_text_is_borrowed_unless_it_is_joined_or_marked() {
        let one = ToolResultContent::new("c", vec![Content::text("42")]);
        assert!(matches!(result_text(&one), Cow::Borrowed("42")));
        let two = ToolResultContent::new("c", vec![Content::text("a"), Content::text("b")]);
        assert_eq!(result_text(&two), "a\nb");
        let failed = ToolResultContent::error("c", "no such file");
        assert_eq!(result_text(&failed), "Error: no such file");
        let marked = ToolResultContent::error("c", "ERROR: disk full");
        assert!(matches!(result_text(&marked), Cow::Borrowed("ERROR: disk full")));
        let short = ToolResultContent::error("c", "err");
        assert_eq!(result_text(&short), "Error: err");
    }

    #[test]
    fn arguments_are_the_input_as_json_or_the_raw_text_kept() {
        let as_sent = |call: &ToolUse| -> String {
            serde_json::from_str(&serde_json::to_string(&arguments(call)).unwrap()).unwrap()
        };
        let input = json!({"a": 1, "b": "x \"quoted\" \\ é \n", "c": [1.5, null, true], "d": {}});
        let call = ToolUse::new("c", "add", input.clone());
        assert_eq!(as_sent(&call), serde_json::to_string(&input).unwrap());
        let raw = ToolUse::new("c", "add", Value::String("{not json".into()));
        assert_eq!(as_sent(&raw), "{not json");
    }
}
