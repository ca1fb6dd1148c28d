//! What every strategy shares: a token estimate, the points where a window may start, and
//! joining a summary to a kept tail without two user messages in a row.

use std::collections::HashSet;

use crate::message::{Content, Message, Role};

/// Tokens of framing each message costs on the wire (role, separators).
const PER_MESSAGE: u64 = 4;
/// What an image or a document costs when its size is not known (a mid-size image).
const PER_MEDIA: u64 = 1_600;

/// A rough size of `messages` in tokens: four characters a token for text, tool inputs and
/// results, a flat cost for media. It errs large rather than small, which is the safe side
/// for deciding when to compact; the engine corrects it with the provider's reported input
/// tokens as soon as one call has answered.
///
/// ```
/// use dive_core::{Message, estimate_tokens};
/// let small = estimate_tokens(&[Message::user("hi")]);
/// let large = estimate_tokens(&[Message::user("word ".repeat(1000))]);
/// assert!(large > 1000 && small < 10);
/// ```
#[must_use]
pub fn estimate_tokens(messages: &[Message]) -> u64 {
    messages.iter().map(|m| PER_MESSAGE + m.content.iter().map(block_tokens).sum::<u64>()).sum()
}

fn chars(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

fn block_tokens(block: &Content) -> u64 {
    match block {
        Content::Text(t) => chars(&t.text),
        Content::ToolUse(t) => chars(&t.name) + chars(&t.input.to_string()),
        Content::ToolResult(r) => 2 + r.content.iter().map(block_tokens).sum::<u64>(),
        Content::Thinking(t) => chars(&t.thinking),
        Content::Reminder(r) => chars(&r.render()),
        Content::Image(_) | Content::Document(_) | Content::File(_) => PER_MEDIA,
        other => serde_json::to_string(other).map_or(PER_MEDIA, |s| chars(&s)),
    }
}

/// The indexes `i` at which a window `messages[i..]` may start: every tool call before `i`
/// is answered before `i`, so no kept result loses its call and no kept call its result.
/// `0` is always one; `messages.len()` (an empty window: everything goes) is one when no call
/// is left open at the end.
///
/// ```
/// use dive_core::{Content, Message, Role, ToolResultContent, safe_cuts};
/// use serde_json::json;
/// let messages = vec![
///     Message::user("go"),
///     Message::new(Role::Assistant, vec![Content::tool_use("c1", "read", json!({}))]),
///     Message::tool_results(vec![ToolResultContent::text("c1", "data")]),
///     Message::assistant("done"),
/// ];
/// assert_eq!(safe_cuts(&messages), [0, 1, 3, 4]);
/// ```
#[must_use]
pub fn safe_cuts(messages: &[Message]) -> Vec<usize> {
    let mut open: HashSet<&str> = HashSet::new();
    let mut cuts = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if open.is_empty() {
            cuts.push(i);
        }
        for block in &m.content {
            match block {
                Content::ToolUse(t) => {
                    open.insert(t.id.as_str());
                }
                Content::ToolResult(r) => {
                    open.remove(r.tool_use_id.as_str());
                }
                _ => {}
            }
        }
    }
    if open.is_empty() {
        cuts.push(messages.len());
    }
    cuts
}

/// `prefix` then `tail`, with the last prefix message folded into the first tail message
/// when both are user messages (roles keep alternating).
///
/// ```
/// use dive_core::{Message, join_messages};
/// let joined = join_messages(vec![Message::user("summary")], vec![Message::user("next")]);
/// assert_eq!(joined.len(), 1);
/// assert_eq!(joined[0].content.len(), 2);
/// ```
#[must_use]
pub fn join_messages(mut prefix: Vec<Message>, tail: Vec<Message>) -> Vec<Message> {
    let mut tail = tail.into_iter();
    match (prefix.last_mut(), tail.next()) {
        (Some(last), Some(first)) if last.role == Role::User && first.role == Role::User => {
            last.content.extend(first.content);
        }
        (_, Some(first)) => prefix.push(first),
        (_, None) => {}
    }
    prefix.extend(tail);
    prefix
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolResultContent;
    use serde_json::json;

    fn call(id: &str) -> Message {
        Message::new(Role::Assistant, vec![Content::tool_use(id, "t", json!({"path": "a"}))])
    }

    #[test]
    fn parallel_calls_keep_one_group() {
        let messages = vec![
            Message::user("go"),
            Message::new(
                Role::Assistant,
                vec![Content::tool_use("a", "t", json!({})), Content::tool_use("b", "t", json!({}))],
            ),
            Message::tool_results(vec![ToolResultContent::text("a", "1")]),
            Message::tool_results(vec![ToolResultContent::text("b", "2")]),
            call("c"),
            Message::tool_results(vec![ToolResultContent::text("c", "3")]),
        ];
        // Between the two result messages a call is still open: no cut at 3.
        assert_eq!(safe_cuts(&messages), [0, 1, 4, 6]);
    }

    #[test]
    fn join_keeps_alternation_and_order() {
        let joined =
            join_messages(vec![Message::user("s")], vec![Message::assistant("a"), Message::user("u")]);
        assert_eq!(joined.iter().map(Message::text).collect::<Vec<_>>(), ["s", "a", "u"]);
        let merged = join_messages(vec![Message::user("s")], vec![Message::user("u")]);
        assert_eq!(merged[0].content.len(), 2);
        assert_eq!(merged[0].text(), "s\nu");
    }

    #[test]
    fn estimate_grows_with_tool_results() {
        let small = estimate_tokens(&[Message::tool_results(vec![ToolResultContent::text("a", "x")])]);
        let large =
            estimate_tokens(&[Message::tool_results(vec![ToolResultContent::text("a", "x".repeat(4000))])]);
        assert!(large >= small + 999, "{small} {large}");
    }
}
