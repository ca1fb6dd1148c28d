//! What a model returns: [`ModelResponse`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::stop::{StopKind, classify_stop_reason};
use super::usage::Usage;
use crate::message::{Content, Message, Role, ToolUse};

/// One complete model response.
///
/// `stop_reason` is the provider's raw value, lowercased; [`ModelResponse::stop_kind`]
/// classifies it into the `StopKind` the engine acts on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelResponse {
    /// Provider response id.
    #[serde(default)]
    pub id: String,
    /// The model that served the call.
    #[serde(default)]
    pub model: String,
    /// Always the assistant, kept for symmetry with [`Message`].
    pub role: Role,
    /// Content blocks.
    pub content: Vec<Content>,
    /// Raw stop reason, lowercased; empty when the provider sent none.
    #[serde(default)]
    pub stop_reason: String,
    /// The stop sequence that matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequence: Option<String>,
    /// Provider detail about the stop (e.g. a refusal category).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_details: Option<Value>,
    /// Token usage.
    #[serde(default)]
    pub usage: Usage,
    /// Provider-specific extras worth keeping (e.g. OpenAI `status`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl Default for ModelResponse {
    fn default() -> Self {
        Self {
            id: String::new(),
            model: String::new(),
            role: Role::Assistant,
            content: Vec::new(),
            stop_reason: String::new(),
            stop_sequence: None,
            stop_details: None,
            usage: Usage::default(),
            metadata: Map::new(),
        }
    }
}

impl ModelResponse {
    /// A finished text response.
    ///
    /// ```
    /// use dive_core::{ModelResponse, StopKind};
    /// let r = ModelResponse::text("hi");
    /// assert_eq!(r.stop_kind(), StopKind::Finished);
    /// ```
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self { content: vec![Content::text(text)], stop_reason: "end_turn".into(), ..Self::default() }
    }

    /// A response that calls tools.
    #[must_use]
    pub fn tool_calls(calls: Vec<ToolUse>) -> Self {
        Self {
            content: calls.into_iter().map(Content::ToolUse).collect(),
            stop_reason: "tool_use".into(),
            ..Self::default()
        }
    }

    /// A response that calls one tool: `id` is the call id the tool result must answer.
    ///
    /// ```
    /// use dive_core::{ModelResponse, StopKind};
    /// let r = ModelResponse::tool_use("call-1", "add", serde_json::json!({"a": 1, "b": 2}))
    ///     .with_id("msg-1")
    ///     .with_model("my-model");
    /// assert_eq!(r.stop_kind(), StopKind::ToolUse);
    /// assert_eq!(r.tool_uses().next().map(|c| c.name.as_str()), Some("add"));
    /// ```
    #[must_use]
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self::tool_calls(vec![ToolUse::new(id, name, input)])
    }

    /// Sets the provider response id.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }

    /// Sets the model that served the call.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Appends a content block (a text after a tool call, a thinking block, …).
    #[must_use]
    pub fn with_content(mut self, block: impl Into<Content>) -> Self {
        self.content.push(block.into());
        self
    }

    /// Sets the stop sequence that matched.
    #[must_use]
    pub fn with_stop_sequence(mut self, sequence: impl Into<String>) -> Self {
        self.stop_sequence = Some(sequence.into());
        self
    }

    /// Keeps a provider-specific extra under `key`.
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: Value) -> Self {
        self.metadata.insert(key.into(), value);
        self
    }

    /// Sets the raw stop reason.
    #[must_use]
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = reason.into();
        self
    }

    /// Sets the usage.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    /// The classified stop reason.
    #[must_use]
    pub fn stop_kind(&self) -> StopKind {
        classify_stop_reason(&self.stop_reason)
    }

    /// The client tool calls.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUse> {
        self.content.iter().filter_map(Content::as_tool_use)
    }

    /// Concatenated text blocks.
    #[must_use]
    pub fn text_content(&self) -> String {
        crate::message::content::join_text(&self.content, "")
    }

    /// The assistant message this response adds to history.
    #[must_use]
    pub fn to_message(&self) -> Message {
        Message::new(Role::Assistant, self.content.clone())
    }

    /// Consumes the response into its assistant message.
    #[must_use]
    pub fn into_message(self) -> Message {
        Message::new(Role::Assistant, self.content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builder_sets_every_field_a_downstream_model_needs() {
        let r = ModelResponse::tool_use("c1", "add", serde_json::json!({"a": 1}))
            .with_content(Content::text("after"))
            .with_id("msg-1")
            .with_model("m")
            .with_stop_sequence("END")
            .with_metadata("status", serde_json::json!("completed"))
            .with_stop_reason("stop_sequence");
        assert_eq!((r.id.as_str(), r.model.as_str()), ("msg-1", "m"));
        assert_eq!(
            r.tool_uses().map(|c| (c.id.as_str(), c.name.as_str())).collect::<Vec<_>>(),
            [("c1", "add")]
        );
        assert_eq!(r.text_content(), "after");
        assert_eq!(r.stop_sequence.as_deref(), Some("END"));
        assert_eq!(r.metadata["status"], "completed");
        assert_eq!(r.stop_kind(), StopKind::Finished);
        assert_eq!(r.role, Role::Assistant);
    }
}
