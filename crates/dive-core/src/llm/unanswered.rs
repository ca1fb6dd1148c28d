//! Answering tool calls that have no result.
//!
//! Every provider encoder applies [`answer_unanswered_tool_calls`] to the request it sends
//! (never to stored history) so a history saved by an old version, a buggy application or a
//! crashed process is still a valid conversation for the provider.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::message::{Content, Message, Role, ToolResultContent};
use crate::reminder::{ReminderStyle, render_reminders};

/// The result text for a call whose outcome is unknown.
pub const TOOL_CALL_UNKNOWN_TEXT: &str = "Unknown result: this tool call was interrupted and may have \
taken effect, so check before repeating it.";

/// Adds an error result with [`TOOL_CALL_UNKNOWN_TEXT`] for every client tool call that has no
/// result in the next message. Borrows when nothing is missing.
///
/// ```
/// use dive_core::{Message, Content, answer_unanswered_tool_calls};
/// let history = vec![
///     Message::user("go"),
///     Message::new(dive_core::Role::Assistant, vec![Content::tool_use("c1", "bash", serde_json::json!({}))]),
/// ];
/// let fixed = answer_unanswered_tool_calls(&history);
/// assert_eq!(fixed.len(), 3);
/// assert!(fixed[2].tool_results_iter().next().unwrap().is_error);
/// ```
#[must_use]
pub fn answer_unanswered_tool_calls(messages: &[Message]) -> Cow<'_, [Message]> {
    answer_unanswered_tool_calls_with(messages, TOOL_CALL_UNKNOWN_TEXT)
}

/// The history as a provider sends it: every tool call answered
/// ([`answer_unanswered_tool_calls`]) and reminders rendered in `style`
/// ([`render_reminders`]). Borrows `messages` when neither changed anything, and copies them
/// at most once when one did.
///
/// ```
/// use dive_core::{Message, ReminderStyle, history_to_send};
/// let history = vec![Message::user("hi")];
/// let sent = history_to_send(&history, &ReminderStyle::UserText);
/// assert!(matches!(sent, std::borrow::Cow::Borrowed(_)));
/// ```
#[must_use]
pub fn history_to_send<'a>(messages: &'a [Message], style: &ReminderStyle) -> Cow<'a, [Message]> {
    let answered = answer_unanswered_tool_calls(messages);
    let rendered = match render_reminders(&answered, style) {
        Cow::Owned(rendered) => Some(rendered),
        Cow::Borrowed(_) => None,
    };
    rendered.map_or(answered, Cow::Owned)
}

/// [`answer_unanswered_tool_calls`] with a custom result text.
#[must_use]
pub fn answer_unanswered_tool_calls_with<'a>(messages: &'a [Message], text: &str) -> Cow<'a, [Message]> {
    let mut out: Option<Vec<Message>> = None;
    let mut i = 0;
    // Walk the original; `shift` counts messages inserted so far into `out`.
    let mut shift = 0;
    while i < messages.len() {
        let msg = &messages[i];
        if msg.role == Role::Assistant && msg.has_tool_uses() {
            let next = messages.get(i + 1);
            let answered = Answered::of(next.filter(|n| n.role == Role::User));
            let missing: Vec<Content> = msg
                .tool_uses()
                .filter(|t| !answered.contains(&t.id))
                .map(|t| {
                    // A provider-defined toolset's result echoes the call's toolset name.
                    let mut answer = ToolResultContent::error(t.id.clone(), text);
                    answer.toolset_name.clone_from(&t.toolset_name);
                    Content::ToolResult(answer)
                })
                .collect();
            if !missing.is_empty() {
                let vec = out.get_or_insert_with(|| messages.to_vec());
                let pos = i + 1 + shift;
                match next {
                    Some(n) if n.role == Role::User && n.tool_results_iter().next().is_some() => {
                        let target = &mut vec[pos];
                        let insert_at = target
                            .content
                            .iter()
                            .rposition(|c| matches!(c, Content::ToolResult(_)))
                            .map_or(0, |p| p + 1);
                        target.content.splice(insert_at..insert_at, missing);
                    }
                    _ => {
                        vec.insert(pos, Message::new(Role::User, missing));
                        shift += 1;
                    }
                }
            }
        }
        i += 1;
    }
    match out {
        Some(v) => Cow::Owned(v),
        None => Cow::Borrowed(messages),
    }
}

/// The ids a user message answers. Every request walks the whole history, so a message of a
/// few results is searched in place (no allocation, no hashing); a set is built only for
/// messages of many.
enum Answered<'a> {
    Few(Option<&'a Message>),
    Many(HashSet<&'a str>),
}

impl<'a> Answered<'a> {
    /// Results up to this many are searched one by one.
    const SEARCHED_IN_PLACE: usize = 16;

    fn of(results: Option<&'a Message>) -> Self {
        match results {
            Some(m) if m.tool_results_iter().nth(Self::SEARCHED_IN_PLACE).is_some() => {
                Self::Many(m.tool_results_iter().map(|r| r.tool_use_id.as_str()).collect())
            }
            _ => Self::Few(results),
        }
    }

    fn contains(&self, id: &str) -> bool {
        match self {
            Self::Few(results) => results.is_some_and(|m| m.tool_results_iter().any(|r| r.tool_use_id == id)),
            Self::Many(ids) => ids.contains(id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str) -> Content {
        Content::tool_use(id, "t", json!({}))
    }

    #[test]
    fn complete_history_is_borrowed() {
        let h = vec![
            Message::new(Role::Assistant, vec![call("a")]),
            Message::tool_results(vec![ToolResultContent::text("a", "ok")]),
        ];
        assert!(matches!(answer_unanswered_tool_calls(&h), Cow::Borrowed(_)));
    }

    #[test]
    fn merges_after_existing_results_before_other_content() {
        let mut results = Message::tool_results(vec![ToolResultContent::text("a", "ok")]);
        results.content.push(Content::text("note"));
        let h = vec![Message::new(Role::Assistant, vec![call("a"), call("b")]), results];
        let fixed = answer_unanswered_tool_calls(&h);
        let kinds: Vec<_> = fixed[1].content.iter().map(|c| c.kind().to_owned()).collect();
        assert_eq!(kinds, ["tool_result", "tool_result", "text"]);
        assert_eq!(fixed[1].content[1].as_tool_result().unwrap().tool_use_id, "b");
    }

    #[test]
    fn only_the_unanswered_calls_are_answered_whether_a_message_has_few_results_or_many() {
        for calls in [3, Answered::SEARCHED_IN_PLACE + 1, Answered::SEARCHED_IN_PLACE + 2, 40] {
            let ids: Vec<String> = (0..calls).map(|n| format!("call_{n}")).collect();
            let uses = ids.iter().map(|id| call(id)).collect();
            // Every call but the second is answered.
            let results = ids
                .iter()
                .enumerate()
                .filter(|(n, _)| *n != 1)
                .map(|(_, id)| ToolResultContent::text(id.as_str(), "ok"))
                .collect();
            let h = vec![Message::new(Role::Assistant, uses), Message::tool_results(results)];
            let fixed = answer_unanswered_tool_calls(&h);
            let answered: Vec<&str> = fixed[1].tool_results_iter().map(|r| r.tool_use_id.as_str()).collect();
            assert_eq!(answered.len(), calls, "{calls} calls");
            assert_eq!(
                answered.last(),
                Some(&"call_1"),
                "{calls} calls: the one missing answer is added last"
            );
            let searched_in_place = calls - 1 <= Answered::SEARCHED_IN_PLACE;
            assert_eq!(
                matches!(Answered::of(Some(&h[1])), Answered::Few(_)),
                searched_in_place,
                "{calls} calls"
            );
        }
    }

    #[test]
    fn inserts_new_message_when_next_is_not_results() {
        let h = vec![
            Message::new(Role::Assistant, vec![call("a")]),
            Message::user("next question"),
            Message::new(Role::Assistant, vec![call("b")]),
        ];
        let fixed = answer_unanswered_tool_calls(&h);
        assert_eq!(fixed.len(), 5);
        assert_eq!(fixed[1].tool_results_iter().next().unwrap().tool_use_id, "a");
        assert_eq!(fixed[2].text(), "next question");
        assert_eq!(fixed[4].tool_results_iter().next().unwrap().tool_use_id, "b");
        assert_eq!(h.len(), 3, "the input is untouched");
    }

    #[test]
    fn an_answer_echoes_the_toolset_of_its_call() {
        let mut member = crate::message::ToolUse::new("m", "left_click", json!({}));
        member.toolset_name = Some("computer".into());
        let h = vec![Message::new(Role::Assistant, vec![Content::ToolUse(member)])];
        let fixed = answer_unanswered_tool_calls(&h);
        assert_eq!(fixed[1].tool_results_iter().next().unwrap().toolset_name.as_deref(), Some("computer"));
    }

    #[test]
    fn server_tool_calls_are_left_alone() {
        let server = Content::ServerToolUse(crate::message::ServerToolUse {
            kind: "server_tool_use".into(),
            id: "s".into(),
            name: "web_search".into(),
            input: json!({}),
            fields: serde_json::Map::new(),
        });
        let h = vec![Message::new(Role::Assistant, vec![server])];
        assert!(matches!(answer_unanswered_tool_calls(&h), Cow::Borrowed(_)));
    }
}
