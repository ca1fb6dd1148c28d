//! Messages and their content blocks.
//!
//! A [`Message`] is a role plus a list of [`Content`] blocks. JSON:
//! `{"id":"msg_…","role":"assistant","content":[{"type":"text","text":"Hi"}]}` (`id` optional).
//! See [`content`] for every block type and its JSON shape.

mod blocks;
pub mod content;
mod input;
mod media;
mod unsupported;

use serde::{Deserialize, Serialize};

pub use blocks::Blocks;
pub use input::Input;

pub use content::{
    CitationsConfig, Content, DocumentContent, FileContent, ImageContent, ProviderContent,
    RedactedThinkingContent, RefusalContent, ServerToolResult, ServerToolUse, SummaryContent, TextContent,
    ThinkingContent, ToolResultContent, ToolUse, UnknownContent,
};
pub use media::{CacheControl, CacheTtl, Citation, MediaSource, ProviderMetadata};
pub use unsupported::{UnsupportedContentError, find_unsupported};

/// Who authored a message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Role {
    /// The user (and tool results, which are user-role messages).
    User,
    /// The model.
    Assistant,
    /// System instructions inside the conversation (rare; most providers take a separate prompt).
    System,
    /// OpenAI's developer role.
    Developer,
    /// A role this version does not know, kept verbatim.
    #[serde(untagged)]
    Other(String),
}

impl Role {
    /// The role's wire name.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
            Self::System => "system",
            Self::Developer => "developer",
            Self::Other(s) => s,
        }
    }
}

/// One message of a conversation.
///
/// ```
/// use dive_core::{Message, Role};
/// let m = Message::user("What is 2+2?");
/// assert_eq!(m.role, Role::User);
/// let json = serde_json::to_string(&m).unwrap();
/// assert_eq!(json, r#"{"role":"user","content":[{"type":"text","text":"What is 2+2?"}]}"#);
/// assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), m);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Message {
    /// Optional id (provider message id or application id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Author.
    pub role: Role,
    /// Blocks, in order (shared by the message's copies; see [`Blocks`]).
    #[serde(default)]
    pub content: Blocks,
}

impl Message {
    /// A message with the given role and blocks.
    #[must_use]
    pub fn new(role: Role, content: Vec<Content>) -> Self {
        Self { id: None, role, content: content.into() }
    }

    /// A user message holding one text block.
    pub fn user(text: impl Into<String>) -> Self {
        Self::new(Role::User, vec![Content::text(text)])
    }

    /// An assistant message holding one text block.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, vec![Content::text(text)])
    }

    /// A user message carrying tool results.
    #[must_use]
    pub fn tool_results(results: Vec<ToolResultContent>) -> Self {
        Self::new(Role::User, results.into_iter().map(Content::ToolResult).collect())
    }

    /// Sets the id.
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// All text blocks joined with newlines.
    #[must_use]
    pub fn text(&self) -> String {
        content::join_text(&self.content, "\n")
    }

    /// The last non-empty text block.
    #[must_use]
    pub fn last_text(&self) -> Option<&str> {
        self.content.iter().rev().filter_map(Content::as_text).find(|t| !t.is_empty())
    }

    /// The answer a person reads: every text block, adjacent fragments joined as they are,
    /// passages separated by other blocks (tool calls, thinking) joined with a blank line.
    ///
    /// ```
    /// use dive_core::{Content, Message, Role};
    /// let m = Message::new(Role::Assistant, vec![
    ///     Content::text("Hel"), Content::text("lo."),
    ///     Content::tool_use("c1", "search", serde_json::json!({})),
    ///     Content::text("Done."),
    /// ]);
    /// assert_eq!(m.answer_text(), "Hello.\n\nDone.");
    /// ```
    #[must_use]
    pub fn answer_text(&self) -> String {
        let mut out = String::new();
        let mut adjacent = false;
        for block in &self.content {
            match block.as_text() {
                Some(t) if !t.is_empty() => {
                    if !adjacent && !out.is_empty() {
                        out.push_str("\n\n");
                    }
                    out.push_str(t);
                    adjacent = true;
                }
                Some(_) => {}
                None => adjacent = false,
            }
        }
        out
    }

    /// The client tool calls in this message.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUse> {
        self.content.iter().filter_map(Content::as_tool_use)
    }

    /// The tool results in this message.
    pub fn tool_results_iter(&self) -> impl Iterator<Item = &ToolResultContent> {
        self.content.iter().filter_map(Content::as_tool_result)
    }

    /// The thinking blocks in this message.
    pub fn thinking(&self) -> impl Iterator<Item = &ThinkingContent> {
        self.content.iter().filter_map(|c| match c {
            Content::Thinking(t) => Some(t),
            _ => None,
        })
    }

    /// True when the message holds at least one client tool call.
    #[must_use]
    pub fn has_tool_uses(&self) -> bool {
        self.tool_uses().next().is_some()
    }

    /// Decodes JSON from the message text (the whole text, or the first fenced ```json block).
    ///
    /// # Errors
    /// Returns the JSON error when no candidate text parses as `T`.
    pub fn decode_into<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        let text = self.text();
        let trimmed = text.trim();
        match serde_json::from_str(trimmed) {
            Ok(v) => Ok(v),
            Err(e) => {
                let fenced = trimmed.split("```").nth(1).map(|b| b.strip_prefix("json").unwrap_or(b).trim());
                match fenced {
                    Some(body) => serde_json::from_str(body),
                    None => Err(e),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_blocks_round_trip_verbatim() {
        let raw = json!({"type": "hologram", "depth": 3, "nested": {"a": [1, 2.5, null]}});
        let c: Content = serde_json::from_value(raw.clone()).unwrap();
        assert!(matches!(c, Content::Unknown(_)));
        assert_eq!(c.kind(), "hologram");
        assert_eq!(serde_json::to_value(&c).unwrap(), raw);
    }

    #[test]
    fn server_tool_results_keep_every_field() {
        let raw = json!({
            "type": "web_fetch_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {"type": "web_fetch_result", "url": "https://x.test"},
            "is_error": false
        });
        let c: Content = serde_json::from_value(raw.clone()).unwrap();
        let Content::ServerToolResult(r) = &c else { panic!("{c:?}") };
        assert_eq!(r.tool_use_id, "srvtoolu_1");
        assert_eq!(serde_json::to_value(&c).unwrap(), raw);
    }

    #[test]
    fn tool_result_accepts_string_content() {
        let c: Content = serde_json::from_value(
            json!({"type": "tool_result", "tool_use_id": "t", "content": "ok", "is_error": true}),
        )
        .unwrap();
        let Content::ToolResult(r) = c else { panic!() };
        assert!(r.is_error);
        assert_eq!(r.text_content(), "ok");
    }

    #[test]
    fn malformed_known_block_is_an_error() {
        let err = serde_json::from_value::<Content>(json!({"type": "text"})).unwrap_err();
        assert!(err.to_string().contains("invalid `text` block"), "{err}");
    }

    #[test]
    fn unknown_roles_round_trip() {
        let m: Message = serde_json::from_value(json!({"role": "critic", "content": []})).unwrap();
        assert_eq!(m.role, Role::Other("critic".into()));
        assert_eq!(serde_json::to_value(&m).unwrap()["role"], "critic");
    }

    #[test]
    fn decode_into_reads_fenced_json() {
        #[derive(Deserialize, PartialEq, Debug)]
        struct A {
            x: i32,
        }
        let m = Message::assistant("Here:\n```json\n{\"x\": 4}\n```");
        assert_eq!(m.decode_into::<A>().unwrap(), A { x: 4 });
    }
}
