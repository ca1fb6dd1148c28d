//! A conversation as text lines: the whole transcript for `dive sessions show` (turns before a
//! compaction included, the compaction marked), and the last exchanges printed on resume.

use dive::{Content, Message, Role, SessionDocument, SessionEvent};

use crate::tool_line::call_summary;

/// The lines of one message: `you: …`, `dive: …`, tool calls and the first line of results.
pub fn message_lines(message: &Message) -> Vec<String> {
    let who = match message.role {
        Role::User => "you",
        Role::Assistant => "dive",
        _ => "system",
    };
    let mut out = Vec::new();
    for block in &message.content {
        match block {
            Content::Text(t) => out.push(format!("{who}: {}", t.text)),
            Content::ToolUse(call) => out.push(format!("{who}: ⏺ {}", call_summary(call))),
            Content::ToolResult(r) => {
                let text = r.text_content();
                out.push(format!("  ⎿ {}", text.lines().next().unwrap_or_default()));
            }
            Content::Reminder(r) => out.push(format!("  [{}]", r.name)),
            // A provider's own compaction: Anthropic's block shows its summary, OpenAI's item
            // is encrypted.
            Content::Unknown(u) if u.kind() == Some("compaction") => {
                let summary = u.raw.get("content").and_then(|c| c.as_str()).unwrap_or("(no summary)");
                out.push(format!("summary: {summary}"));
            }
            Content::Provider(p) if p.kind == "compaction" => {
                out.push("summary: (kept encrypted by the provider)".into());
            }
            _ => {}
        }
    }
    out
}

/// Every event of a session, oldest first: the turns a compaction replaced stay visible,
/// followed by a marker and the summary that starts the new window.
pub fn document_lines(document: &SessionDocument) -> Vec<String> {
    let mut out = Vec::new();
    for event in &document.events {
        match event {
            SessionEvent::Turn(turn) => {
                for message in &turn.messages {
                    out.extend(message_lines(message));
                }
            }
            SessionEvent::Compaction(compaction) => {
                out.push("── compacted: the model sees the summary below from here on ──".into());
                for message in &compaction.summary {
                    out.extend(message_lines(message));
                }
            }
            _ => {}
        }
    }
    out
}

/// The text lines of the last `n` exchanges (a user message with what followed it).
pub fn last_exchanges(messages: &[Message], n: usize) -> Vec<String> {
    let starts: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m.role == Role::User && m.content.iter().any(|c| matches!(c, Content::Text(_))))
        .map(|(i, _)| i)
        .collect();
    let from = starts.len().checked_sub(n).and_then(|i| starts.get(i)).copied().unwrap_or(0);
    messages[from..].iter().flat_map(message_lines).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_exchanges_start_at_a_user_message() {
        let messages = vec![
            Message::user("one"),
            Message::assistant("first answer"),
            Message::user("two"),
            Message::assistant("second answer"),
            Message::user("three"),
            Message::assistant("third answer"),
        ];
        assert_eq!(
            last_exchanges(&messages, 2),
            ["you: two", "dive: second answer", "you: three", "dive: third answer"]
        );
        assert_eq!(last_exchanges(&messages, 10).len(), 6);
        assert!(last_exchanges(&[], 2).is_empty());
    }
}
