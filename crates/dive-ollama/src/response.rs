//! What Ollama sends, as typed serde structs: one `/api/chat` line (a stream line, or the
//! whole response), read straight from its bytes (no JSON tree per line).
//!
//! Only the fields this crate reads are typed; an `{"error": …}` line's error, a tool call's
//! arguments and the extras kept in
//! [`ModelResponse::metadata`](dive_core::ModelResponse::metadata) (durations, `created_at`)
//! stay JSON values, as they came.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

/// One `/api/chat` line.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Line<'a> {
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub message: Option<ChatMessage<'a>>,
    #[serde(default)]
    pub done: Option<bool>,
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub done_reason: Option<Cow<'a, str>>,
    #[serde(default)]
    pub prompt_eval_count: Option<u64>,
    #[serde(default)]
    pub eval_count: Option<u64>,
    /// An `{"error": …}` line's error (`null` reads as none).
    #[serde(default)]
    pub error: Option<Value>,
    /// The extras of a final line kept in the response metadata, as sent.
    #[serde(default)]
    pub created_at: Option<Value>,
    #[serde(default)]
    pub total_duration: Option<Value>,
    #[serde(default)]
    pub load_duration: Option<Value>,
    #[serde(default)]
    pub prompt_eval_duration: Option<Value>,
    #[serde(default)]
    pub eval_duration: Option<Value>,
}

impl<'a> Line<'a> {
    /// Reads a decoded line (tests build lines as values).
    ///
    /// # Errors
    /// The JSON error when a field this crate reads has the wrong type.
    #[cfg(test)]
    pub(crate) fn read(v: &'a Value) -> Result<Self, serde_json::Error> {
        Self::deserialize(v)
    }

    /// Reads a line from its bytes (no JSON tree built).
    ///
    /// # Errors
    /// The JSON error when the line is not JSON or a field this crate reads has the wrong type.
    pub(crate) fn parse(bytes: &'a [u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(bytes)
    }

    /// Whether this is the final (`done: true`) line.
    pub(crate) fn is_done(&self) -> bool {
        self.done == Some(true)
    }
}

/// A line's `message`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChatMessage<'a> {
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub content: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub thinking: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub tool_calls: Option<Vec<ToolCall<'a>>>,
}

/// One `tool_calls` entry.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ToolCall<'a> {
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub function: Option<Function<'a>>,
}

/// A tool call's `function`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Function<'a> {
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub name: Option<Cow<'a, str>>,
    /// An object, or (from some models) a string holding JSON.
    #[serde(default)]
    pub arguments: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_line_borrows_its_text_from_the_decoded_value() {
        let v = json!({"model": "m", "message": {"role": "assistant", "content": "Hi", "thinking": "hm",
            "tool_calls": [{"function": {"name": "calc", "arguments": {"x": 1}}}]}, "done": false});
        let line = Line::read(&v).unwrap();
        let m = line.message.unwrap();
        assert_eq!(
            (m.content.as_deref(), m.thinking.as_deref(), line.model.as_deref()),
            (Some("Hi"), Some("hm"), Some("m"))
        );
        let call = &m.tool_calls.unwrap()[0];
        assert_eq!(call.function.as_ref().unwrap().arguments, Some(json!({"x": 1})));
        assert!(!line.done.unwrap());
        assert!(Line::parse(br#"{"error": null}"#).unwrap().error.is_none());
        assert_eq!(Line::parse(br#"{"error": "boom"}"#).unwrap().error, Some(json!("boom")));
    }

    #[test]
    fn a_line_read_from_bytes_unescapes_its_text() {
        let line = Line::parse(br#"{"message": {"content": "plain", "thinking": "two\nlines"}}"#).unwrap();
        let m = line.message.unwrap();
        assert_eq!(m.content.as_deref(), Some("plain"));
        assert_eq!(m.thinking.as_deref(), Some("two\nlines"));
    }
}
