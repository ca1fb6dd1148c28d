//! [`UnsupportedContentError`]: content a provider or model cannot take, refused by name
//! instead of dropped, and [`find_unsupported`], the walk every provider shares.

use super::{Content, Message};

/// A provider refused content it cannot send: which content, which provider, and why. It is
/// the source of an [`LlmError`](crate::LlmError) of kind
/// [`UnsupportedContent`](crate::LlmErrorKind::UnsupportedContent), raised before any
/// request is sent.
///
/// ```
/// use dive_core::UnsupportedContentError;
/// let e = UnsupportedContentError::new("document", "ollama", "Ollama takes only text documents");
/// assert_eq!(e.to_string(), "ollama cannot send document content: Ollama takes only text documents");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{provider} cannot send {content_type} content: {reason}")]
#[non_exhaustive]
pub struct UnsupportedContentError {
    /// The block type (`image`, `document`, `file`), as in the block's JSON `type`.
    pub content_type: String,
    /// The provider.
    pub provider: String,
    /// Why, naming the model when it is the model that cannot take it.
    pub reason: String,
}

impl UnsupportedContentError {
    /// An error.
    #[must_use]
    pub fn new(
        content_type: impl Into<String>,
        provider: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Self { content_type: content_type.into(), provider: provider.into(), reason: reason.into() }
    }

    /// The refusal an [`LlmError`](crate::LlmError) carries in its source chain, if any.
    #[must_use]
    pub fn of(error: &crate::LlmError) -> Option<&Self> {
        let mut source = std::error::Error::source(error);
        while let Some(e) = source {
            if let Some(found) = e.downcast_ref::<Self>() {
                return Some(found);
            }
            source = e.source();
        }
        None
    }

    /// The first block of `messages` (tool results' blocks included) that `check` refuses,
    /// as an error for `provider`. `check` sees only media blocks (image, document, file): the
    /// blocks a provider may be unable to carry.
    #[must_use]
    pub fn find(
        provider: &str,
        messages: &[Message],
        check: impl FnMut(&Content) -> Option<String>,
    ) -> Option<Self> {
        find_unsupported(messages, check).map(|(kind, reason)| Self::new(kind, provider, reason))
    }
}

/// The media type name of a block a provider may be unable to carry, `None` for others.
fn media_kind(block: &Content) -> Option<&'static str> {
    match block {
        Content::Image(_) => Some("image"),
        Content::Document(_) => Some("document"),
        Content::File(_) => Some("file"),
        _ => None,
    }
}

/// Walks every media block of `messages`, tool results' content included, and returns the
/// first one `check` refuses: its type name and the reason `check` gave.
///
/// ```
/// use dive_core::{Content, MediaSource, Message, Role, find_unsupported};
/// let m = Message::new(Role::User, vec![Content::text("look"), Content::image(MediaSource::url("https://x/y.png"))]);
/// let refused = find_unsupported(&[m], |b| matches!(b, Content::Image(_)).then(|| "text-only model".to_owned()));
/// assert_eq!(refused, Some(("image", "text-only model".to_owned())));
/// ```
pub fn find_unsupported(
    messages: &[Message],
    mut check: impl FnMut(&Content) -> Option<String>,
) -> Option<(&'static str, String)> {
    let mut visit = |block: &Content| media_kind(block).and_then(|kind| check(block).map(|why| (kind, why)));
    for message in messages {
        for block in &message.content {
            if let Content::ToolResult(result) = block {
                if let Some(found) = result.content.iter().find_map(&mut visit) {
                    return Some(found);
                }
            } else if let Some(found) = visit(block) {
                return Some(found);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{MediaSource, Role, ToolResultContent};

    #[test]
    fn tool_result_media_is_checked_and_text_is_never_offered() {
        let result = ToolResultContent::new(
            "c1",
            vec![Content::text("shot"), Content::image(MediaSource::base64("image/png", "AAAA"))],
        );
        let messages = [Message::user("hi"), Message::new(Role::User, vec![Content::ToolResult(result)])];
        let mut offered = Vec::new();
        let found = find_unsupported(&messages, |b| {
            offered.push(media_kind(b));
            Some("no images".to_owned())
        });
        assert_eq!(found, Some(("image", "no images".to_owned())));
        assert_eq!(offered, [Some("image")]);
        assert_eq!(find_unsupported(&messages, |_| None), None);
    }
}
