//! What Ollama sends, as typed serde structs: one `/api/chat` line (a stream line, or the
//! whole response), read from the decoded line with its strings borrowed.
//!
//! Only the fields this crate reads are typed; an `{"error": …}` line and the extras kept in
//! [`ModelResponse::metadata`](dive_core::ModelResponse::metadata) (durations, `created_at`)
//! are read from the line's [`Value`] as they are.

use serde::Deserialize;
use serde_json::Value;

/// One `/api/chat` line.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Line<'a> {
    #[serde(borrow, default)]
    pub model: Option<&'a str>,
    #[serde(borrow, default)]
    pub message: Option<ChatMessage<'a>>,
    #[serde(default)]
    pub done: Option<bool>,
    #[serde(borrow, default)]
    pub done_reason: Option<&'a str>,
    #[serde(default)]
    pub prompt_eval_count: Option<u64>,
    #[serde(default)]
    pub eval_count: Option<u64>,
}

impl<'a> Line<'a> {
    /// Reads a decoded line.
    ///
    /// # Errors
    /// The JSON error when a field this crate reads has the wrong type.
    pub(crate) fn read(v: &'a Value) -> Result<Self, serde_json::Error> {
        Self::deserialize(v)
    }

    /// Whether this is the final (`done: true`) line.
    pub(crate) fn is_done(&self) -> bool {
        self.done == Some(true)
    }
}

/// A line's `message`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ChatMessage<'a> {
    #[serde(borrow, default)]
    pub content: Option<&'a str>,
    #[serde(borrow, default)]
    pub thinking: Option<&'a str>,
    #[serde(borrow, default)]
    pub tool_calls: Option<Vec<ToolCall<'a>>>,
}

/// One `tool_calls` entry.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ToolCall<'a> {
    #[serde(borrow, default)]
    pub id: Option<&'a str>,
    #[serde(borrow, default)]
    pub function: Option<Function<'a>>,
}

/// A tool call's `function`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Function<'a> {
    #[serde(borrow, default)]
    pub name: Option<&'a str>,
    /// An object, or (from some models) a string holding JSON.
    #[serde(default)]
    pub arguments: Option<Value>,
}

/// An `{"error": …}` line's error, when it has one.
pub(crate) fn line_error_of(v: &Value) -> Option<&Value> {
    v.get("error").filter(|e| !e.is_null())
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
        assert_eq!((m.content, m.thinking, line.model), (Some("Hi"), Some("hm"), Some("m")));
        let call = &m.tool_calls.unwrap()[0];
        assert_eq!(call.function.as_ref().unwrap().arguments, Some(json!({"x": 1})));
        assert!(!line.done.unwrap());
        assert!(line_error_of(&json!({"error": null})).is_none());
        assert_eq!(line_error_of(&json!({"error": "boom"})), Some(&json!("boom")));
    }
}
