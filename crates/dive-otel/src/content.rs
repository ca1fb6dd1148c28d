//! Opt-in content capture: messages and tool input/output written as the conventions' JSON
//! shapes (`role` + `parts`), off by default and cut to a byte cap.

use dive_core::{Content, Message, Role};
use serde_json::{Value, json};

/// What content the spans carry. Off by default: messages, tool arguments and results often
/// hold personal data and secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Capture {
    /// Model input and output messages and system instructions on `chat` spans.
    pub messages: bool,
    /// Tool arguments and results on `execute_tool` spans.
    pub tool_io: bool,
    /// The most bytes one captured attribute holds; longer text is cut at a character
    /// boundary and marked with `…[truncated]`.
    pub max_bytes: usize,
}

impl Default for Capture {
    fn default() -> Self {
        Self { messages: false, tool_io: false, max_bytes: Self::DEFAULT_MAX_BYTES }
    }
}

impl Capture {
    /// The default cap, 8 KiB an attribute.
    pub const DEFAULT_MAX_BYTES: usize = 8 * 1024;
    /// What the cut text ends with.
    pub const TRUNCATED: &'static str = "…[truncated]";

    /// Nothing captured (the default).
    #[must_use]
    pub fn none() -> Self {
        Self::default()
    }

    /// Messages and tool input/output, with the default cap.
    #[must_use]
    pub fn all() -> Self {
        Self { messages: true, tool_io: true, ..Self::default() }
    }

    /// Sets the cap in bytes.
    #[must_use]
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// `text` cut to the cap.
    #[must_use]
    pub fn cap(&self, text: String) -> String {
        if text.len() <= self.max_bytes {
            return text;
        }
        let mut end = self.max_bytes;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let mut cut = text[..end].to_owned();
        cut.push_str(Self::TRUNCATED);
        cut
    }
}

fn role(role: &Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::System => "system",
        _ => "developer",
    }
}

fn part(content: &Content) -> Value {
    match content {
        Content::Text(t) => json!({"type": "text", "content": t.text}),
        Content::Thinking(t) => json!({"type": "reasoning", "content": t.thinking}),
        Content::ToolUse(u) => json!({"type": "tool_call", "id": u.id, "name": u.name, "arguments": u.input}),
        Content::ToolResult(r) => {
            let text: String = r
                .content
                .iter()
                .filter_map(|c| match c {
                    Content::Text(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect();
            json!({"type": "tool_call_response", "id": r.tool_use_id, "result": text})
        }
        other => {
            let kind = serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_else(|| "unknown".to_owned());
            json!({"type": kind})
        }
    }
}

/// Messages in the conventions' shape, as a JSON string.
#[must_use]
pub fn messages_json(messages: &[Message]) -> String {
    let list: Vec<Value> = messages
        .iter()
        .map(|m| json!({"role": role(&m.role), "parts": m.content.iter().map(part).collect::<Vec<_>>()}))
        .collect();
    Value::Array(list).to_string()
}

/// A model's answer as the conventions' one output message, as a JSON string.
#[must_use]
pub fn output_json(content: &[Content], finish_reason: Option<&str>) -> String {
    let mut v = json!({"role": "assistant", "parts": content.iter().map(part).collect::<Vec<_>>()});
    if let Some(reason) = finish_reason {
        v["finish_reason"] = json!(reason);
    }
    Value::Array(vec![v]).to_string()
}

/// System instructions in the conventions' shape, as a JSON string.
#[must_use]
pub fn system_json(system: &str) -> String {
    json!([{"type": "text", "content": system}]).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_cuts_at_a_char_boundary_and_marks_the_cut() {
        let capture = Capture::all().with_max_bytes(5);
        assert_eq!(capture.cap("abc".into()), "abc");
        let cut = capture.cap("ééééé".into());
        assert_eq!(cut, format!("éé{}", Capture::TRUNCATED));
    }

    #[test]
    fn messages_follow_the_role_and_parts_shape() {
        let m = Message::user("hi");
        let json: Value = serde_json::from_str(&messages_json(&[m])).unwrap_or_default();
        assert_eq!(json, json!([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]));
    }
}
