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
