//! Messages and their parts.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::wire_enum;

/// Who sent a message.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// `ROLE_USER`: the client side.
    User,
    /// `ROLE_AGENT`: the agent side.
    Agent,
    /// `ROLE_UNSPECIFIED`.
    Unspecified,
    /// A value from a newer protocol version, kept as sent.
    Other(String),
}

wire_enum!(Role { User => "ROLE_USER", Agent => "ROLE_AGENT", Unspecified => "ROLE_UNSPECIFIED" });

/// What a part holds: exactly one of text, inline bytes, a URL or structured data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum PartContent {
    /// Text.
    Text(String),
    /// A file's bytes, base64-encoded (the protobuf JSON form of `bytes`).
    Raw(String),
    /// A file by URL.
    Url(String),
    /// Structured data (any JSON value).
    Data(Value),
}

/// One part of a message or an artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Part {
    /// The content.
    #[serde(flatten)]
    pub content: PartContent,
    /// Part metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// A file part's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// The media type (`text/plain`, `application/json`, `image/png`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
}

impl Part {
    /// A part of this content.
    #[must_use]
    pub fn new(content: PartContent) -> Self {
        Self { content, metadata: None, filename: None, media_type: None }
    }

    /// A text part.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(PartContent::Text(text.into()))
    }

    /// A data part.
    #[must_use]
    pub fn data(data: Value) -> Self {
        Self::new(PartContent::Data(data))
    }

    /// A file part by URL.
    #[must_use]
    pub fn url(url: impl Into<String>, media_type: impl Into<String>) -> Self {
        Self { media_type: Some(media_type.into()), ..Self::new(PartContent::Url(url.into())) }
    }

    /// A file part with its bytes inline, already base64-encoded.
    #[must_use]
    pub fn raw_base64(base64: impl Into<String>, media_type: impl Into<String>) -> Self {
        Self { media_type: Some(media_type.into()), ..Self::new(PartContent::Raw(base64.into())) }
    }

    /// The text, when this is a text part.
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            PartContent::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The data, when this is a data part.
    #[must_use]
    pub fn as_data(&self) -> Option<&Value> {
        match &self.content {
            PartContent::Data(d) => Some(d),
            _ => None,
        }
    }
}

/// One message between a client and an agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Message {
    /// Its id, chosen by the sender.
    pub message_id: String,
    /// The conversation it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The task it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The sender.
    pub role: Role,
    /// The content.
    #[serde(default)]
    pub parts: Vec<Part>,
    /// Message metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Extension URIs in use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// Tasks this message refers to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_task_ids: Vec<String>,
}

impl Message {
    /// A message of these parts with a fresh id.
    #[must_use]
    pub fn new(role: Role, parts: Vec<Part>) -> Self {
        Self {
            message_id: dive_core::new_id("msg"),
            context_id: None,
            task_id: None,
            role,
            parts,
            metadata: None,
            extensions: Vec::new(),
            reference_task_ids: Vec::new(),
        }
    }

    /// A user message of one text part.
    #[must_use]
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, vec![Part::text(text)])
    }

    /// An agent message of one text part.
    #[must_use]
    pub fn agent_text(text: impl Into<String>) -> Self {
        Self::new(Role::Agent, vec![Part::text(text)])
    }

    /// Sets the context.
    #[must_use]
    pub fn with_context_id(mut self, context_id: impl Into<String>) -> Self {
        self.context_id = Some(context_id.into());
        self
    }

    /// Sets the task.
    #[must_use]
    pub fn with_task_id(mut self, task_id: impl Into<String>) -> Self {
        self.task_id = Some(task_id.into());
        self
    }

    /// The text of every text part, joined by newlines.
    #[must_use]
    pub fn text(&self) -> String {
        join_text(&self.parts)
    }
}

/// The text of every text part, joined by newlines.
pub(crate) fn join_text(parts: &[Part]) -> String {
    parts.iter().filter_map(Part::as_text).collect::<Vec<_>>().join("\n")
}
