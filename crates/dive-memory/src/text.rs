//! The text of messages as memory sees it: what is embedded and what a reminder shows.

use dive_core::{Content, MediaSource, Message};

/// The embeddable text of a message: its text blocks, the text of tool results and of text
/// documents (not reminders, thinking or media).
#[must_use]
pub fn embeddable_text(message: &Message) -> String {
    let mut parts = Vec::new();
    collect(&message.content, &mut parts);
    parts.join("\n")
}

fn collect<'a>(blocks: &'a [Content], parts: &mut Vec<&'a str>) {
    for block in blocks {
        match block {
            Content::Text(t) if !t.text.trim().is_empty() => parts.push(&t.text),
            Content::ToolResult(r) => collect(&r.content, parts),
            Content::Document(d) => {
                if let MediaSource::Text { data, .. } = &d.source {
                    parts.push(data);
                }
            }
            _ => {}
        }
    }
}

/// A message shown as text: text as is, other blocks as a short bracketed note.
pub(crate) fn render(message: &Message) -> String {
    let mut out: Vec<String> = Vec::new();
    for block in &message.content {
        match block {
            Content::Text(t) => out.push(t.text.clone()),
            Content::Image(_) => out.push("[image]".into()),
            Content::Document(d) => match &d.source {
                MediaSource::Text { data, .. } => out.push(data.clone()),
                _ => out.push("[document]".into()),
            },
            Content::ToolUse(u) => out.push(format!("[called {} with {}]", u.name, u.input)),
            Content::ToolResult(r) => {
                let inner = Message::new(message.role.clone(), r.content.to_vec());
                out.push(format!("[tool result: {}]", render(&inner)));
            }
            _ => {}
        }
    }
    out.join("\n")
}
