//! Tool groups: an assistant message that calls tools and the tool-result messages right
//! after it form one group that a window keeps or drops whole.

use std::ops::Range;

use dive_core::{Content, Message, Role};

/// Whether a message carries tool results (a user message the engine wrote for a call).
#[must_use]
pub fn is_tool_result(message: &Message) -> bool {
    message.content.iter().any(|c| matches!(c, Content::ToolResult(_)))
}

/// The messages split into groups, oldest first: an assistant message with tool calls plus
/// every tool-result message right after it is one group; any other message is a group of its
/// own.
///
/// ```
/// use dive_core::{Content, Message, Role, ToolResultContent};
/// use dive_memory::groups;
/// let history = vec![
///     Message::user("list files"),
///     Message::new(Role::Assistant, vec![Content::tool_use("c1", "ls", serde_json::json!({}))]),
///     Message::tool_results(vec![ToolResultContent::new("c1", vec![Content::text("a.txt")])]),
///     Message::assistant("one file"),
/// ];
/// assert_eq!(groups(&history), vec![0..1, 1..3, 3..4]);
/// ```
#[must_use]
pub fn groups(messages: &[Message]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < messages.len() {
        let start = i;
        i += 1;
        if messages[start].role == Role::Assistant && messages[start].has_tool_uses() {
            while i < messages.len() && is_tool_result(&messages[i]) {
                i += 1;
            }
        }
        out.push(start..i);
    }
    out
}

/// The start of the window holding the newest groups that `fits` accepts, cut at a group
/// boundary and never on a tool result whose call is outside the window. `fits` is asked
/// about each group from the newest, with the messages accepted so far; the newest group is
/// always kept when `keep_newest` (unless it is an orphaned tool result).
pub(crate) fn window_start(
    messages: &[Message],
    keep_newest: bool,
    mut fits: impl FnMut(&[Message], &Range<usize>) -> bool,
) -> usize {
    let groups = groups(messages);
    let mut start = messages.len();
    for (n, group) in groups.iter().rev().enumerate() {
        let accepted = &messages[start..];
        if !(fits(accepted, group) || (n == 0 && keep_newest)) {
            break;
        }
        start = group.start;
    }
    // A group that opens on a tool result has lost its call (it was cut off before this
    // history began): never start a window on one.
    while start < messages.len() && is_tool_result(&messages[start]) {
        start += 1;
    }
    start
}
