//! [`carry_over`]: the skills a conversation has loaded, to keep across a compaction. A
//! summary written by a model paraphrases instructions, and a paraphrased skill is not the
//! skill, so an application that compacts a conversation appends this message after its
//! summary and the skills stay in force word for word (and are not loaded again).

use dive_core::{Content, Message};

use crate::content;

/// A user message holding every `<skill_content>` block in `messages` (each distinct block
/// once, in the order first loaded), or `None` when no skill was loaded.
///
/// ```
/// use dive_core::{Content, Message};
/// let loaded = Message::user("<skill_content name=\"haiku\">\n5-7-5.\n</skill_content>");
/// let kept = dive_skill::carry_over(&[Message::user("write a poem"), loaded]).unwrap();
/// assert!(kept.text().contains("<skill_content name=\"haiku\">"));
/// assert!(dive_skill::carry_over(&[Message::user("hi")]).is_none());
/// ```
#[must_use]
pub fn carry_over(messages: &[Message]) -> Option<Message> {
    let mut kept: Vec<String> = Vec::new();
    for block in messages.iter().flat_map(|m| &m.content) {
        let text = match block {
            Content::ToolResult(result) => result.text_content(),
            Content::Reminder(reminder) => reminder.render(),
            other => other.as_text().unwrap_or_default().to_owned(),
        };
        for found in content::blocks(&text) {
            if !kept.iter().any(|k| k == found) {
                kept.push(found.to_owned());
            }
        }
    }
    if kept.is_empty() {
        return None;
    }
    let text = format!(
        "The skills loaded earlier in this conversation, kept word for word; their instructions still apply:\n\n{}",
        kept.join("\n\n")
    );
    Some(Message::user(text))
}
