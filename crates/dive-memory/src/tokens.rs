//! Token estimates for read windows and retrieval budgets: the [`TokenEstimator`] trait and
//! [`HeuristicEstimator`], a fast estimate that costs images by their pixel size.

use base64::Engine as _;
use dive_core::{Content, MediaSource, Message};

use crate::image_size;

/// Counts the tokens of one message. Any `Fn(&Message) -> usize` is one, so an exact
/// tokenizer plugs in as a closure.
pub trait TokenEstimator: Send + Sync {
    /// The message's tokens, overhead included.
    fn message_tokens(&self, message: &Message) -> usize;
}

impl<F> TokenEstimator for F
where
    F: Fn(&Message) -> usize + Send + Sync,
{
    fn message_tokens(&self, message: &Message) -> usize {
        self(message)
    }
}

/// Tokens an image of unknown size (a URL, a file id, an unreadable header) is counted as:
/// about a 1,200 × 1,000 picture.
pub const UNKNOWN_IMAGE_TOKENS: usize = 1_600;

/// A fast estimate without a tokenizer:
///
/// - 4 tokens of overhead per message;
/// - text, thinking, tool-call names and arguments, tool results: UTF-8 bytes / 4, rounded up;
/// - images: Anthropic's published rule, width × height / 750, after scaling the long edge down
///   to 1,568 pixels, with the size read from the PNG, GIF, JPEG or WebP header; an image of
///   unknown size costs [`UNKNOWN_IMAGE_TOKENS`];
/// - documents: text documents as text; binary ones (PDF) at 1 token per 50 bytes.
///
/// ```
/// use dive_core::Message;
/// use dive_memory::{HeuristicEstimator, TokenEstimator};
/// assert_eq!(HeuristicEstimator.message_tokens(&Message::user("12345678")), 4 + 2);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct HeuristicEstimator;

impl HeuristicEstimator {
    /// Tokens of an image source.
    #[must_use]
    pub fn image_tokens(source: &MediaSource) -> usize {
        let dims = match source {
            MediaSource::Base64 { data, .. } => decode_prefix(data).and_then(|b| image_size::dimensions(&b)),
            _ => None,
        };
        match dims {
            Some((w, h)) => image_tokens_for(w, h),
            None => UNKNOWN_IMAGE_TOKENS,
        }
    }

    fn blocks(content: &[Content]) -> usize {
        blocks_with(content, &text_tokens)
    }
}

/// Tokens of blocks, text counted by `text` (the heuristic or a tokenizer); images, binary
/// documents and the rest as the heuristic counts them.
pub(crate) fn blocks_with(content: &[Content], text: &dyn Fn(&str) -> usize) -> usize {
    content.iter().map(|b| block_with(b, text)).sum()
}

fn block_with(block: &Content, text: &dyn Fn(&str) -> usize) -> usize {
    match block {
        Content::Text(t) => text(&t.text),
        Content::Image(i) => HeuristicEstimator::image_tokens(&i.source),
        Content::Document(d) => match &d.source {
            MediaSource::Text { data, .. } => text(data),
            MediaSource::Base64 { data, .. } => (data.len() * 3 / 4).div_ceil(50),
            _ => UNKNOWN_IMAGE_TOKENS,
        },
        Content::ToolUse(u) => text(&u.name) + text(&u.input.to_string()),
        Content::ToolResult(r) => blocks_with(&r.content, text),
        Content::Thinking(t) => text(&t.thinking),
        Content::Reminder(r) => text(&r.render()),
        other => serde_json::to_string(other).map_or(0, |s| text(&s)),
    }
}

impl TokenEstimator for HeuristicEstimator {
    fn message_tokens(&self, message: &Message) -> usize {
        4 + Self::blocks(&message.content)
    }
}

fn text_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// Anthropic's rule: scale the long edge to at most 1,568 px, then w × h / 750.
fn image_tokens_for(w: u32, h: u32) -> usize {
    let (w, h) = (f64::from(w), f64::from(h));
    let scale = (1568.0 / w.max(h)).min(1.0);
    let tokens = (w * scale) * (h * scale) / 750.0;
    // In range: at most 1568² / 750 ≈ 3,278.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let tokens = tokens.ceil() as usize;
    tokens.max(1)
}

/// The first bytes of a base64 payload: enough for any header we read (JPEG's frame marker
/// can sit after large metadata segments, so take 64 KiB).
fn decode_prefix(data: &str) -> Option<Vec<u8>> {
    let take = data.len().min(87_384) / 4 * 4;
    let engine = base64::engine::general_purpose::STANDARD;
    engine.decode(data.get(..take)?).ok()
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use dive_core::{Content, MediaSource, Message, Role};
    use serde_json::json;

    use super::*;

    fn png(w: u32, h: u32) -> String {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        b.extend(w.to_be_bytes());
        b.extend(h.to_be_bytes());
        b.extend([8, 6, 0, 0, 0, 0, 0, 0]);
        base64::engine::general_purpose::STANDARD.encode(b)
    }

    #[test]
    fn images_cost_by_their_pixels() {
        let small = MediaSource::Base64 { media_type: "image/png".into(), data: png(200, 200) };
        let big = MediaSource::Base64 { media_type: "image/png".into(), data: png(3000, 2000) };
        assert_eq!(HeuristicEstimator::image_tokens(&small), 54); // 40,000 / 750 rounded up
        // Scaled to 1568 x 1045.33: 1,639,… / 750.
        assert_eq!(HeuristicEstimator::image_tokens(&big), 2186);
        let url = MediaSource::Url { url: "https://example.com/a.png".into() };
        assert_eq!(HeuristicEstimator::image_tokens(&url), UNKNOWN_IMAGE_TOKENS);
    }

    #[test]
    fn tool_calls_and_results_are_counted() {
        let call =
            Message::new(Role::Assistant, vec![Content::tool_use("c1", "read", json!({"path": "a.txt"}))]);
        assert!(HeuristicEstimator.message_tokens(&call) > 4 + 1, "arguments must count");
        let text = Message::user("x".repeat(400));
        assert_eq!(HeuristicEstimator.message_tokens(&text), 104);
        let closure = |m: &Message| m.content.len() * 10;
        assert_eq!(closure.message_tokens(&text), 10);
    }
}
