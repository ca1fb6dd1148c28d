//! The strategies that need no model: [`ClearToolResults`] (an edit: old tool results and
//! thinking become short placeholders) and [`Trim`] (the oldest whole turns are dropped).

use std::collections::HashSet;

use super::window::safe_cuts;
use super::{CompactedWindow, CompactionError, CompactionRequest, CompactionStrategy};
use crate::future::BoxFuture;
use crate::message::{Content, Message, Role};

/// What an old tool result says after [`ClearToolResults`].
pub const CLEARED_TOOL_RESULT_TEXT: &str = "[Old tool result cleared to save context.]";
/// What an assistant message that held only thinking says after [`ClearToolResults`].
pub const CLEARED_THINKING_TEXT: &str = "[Earlier reasoning cleared to save context.]";

/// An edit: the results of all but the newest `keep` tool groups (an assistant message with
/// calls and the results answering them) become a short placeholder, and thinking before the
/// kept groups is dropped. Calls keep their results (a placeholder is still a result), so no
/// call is ever separated from its answer. The newest assistant message keeps its thinking
/// (providers need it in a tool loop).
///
/// ```
/// use dive_core::{ClearToolResults, CompactionStrategy};
/// let strategy = ClearToolResults::new(2).protect_tool("Skill");
/// assert_eq!(strategy.name(), "clear_tool_results");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClearToolResults {
    /// Newest tool groups kept whole.
    pub keep: usize,
    /// The text a cleared result gets.
    pub placeholder: String,
    /// Tools whose results are never cleared (e.g. `Skill`, whose result is the skill's
    /// instructions).
    pub protected_tools: Vec<String>,
}

impl ClearToolResults {
    /// Keeps the newest `keep` tool groups whole.
    #[must_use]
    pub fn new(keep: usize) -> Self {
        Self { keep, placeholder: CLEARED_TOOL_RESULT_TEXT.to_owned(), protected_tools: Vec::new() }
    }

    /// Sets the placeholder text.
    #[must_use]
    pub fn placeholder(mut self, text: impl Into<String>) -> Self {
        self.placeholder = text.into();
        self
    }

    /// Never clears the results of this tool.
    #[must_use]
    pub fn protect_tool(mut self, name: impl Into<String>) -> Self {
        self.protected_tools.push(name.into());
        self
    }

    /// The edited messages, or `None` when nothing was old enough to clear.
    #[must_use]
    pub fn apply(&self, messages: &[Message]) -> Option<Vec<Message>> {
        let groups: Vec<usize> = messages
            .iter()
            .enumerate()
            .filter(|(_, m)| m.role == Role::Assistant && m.has_tool_uses())
            .map(|(i, _)| i)
            .collect();
        // Messages before `first_kept` are old; with no group old, only thinking can go.
        let first_kept = groups
            .len()
            .checked_sub(self.keep)
            .map_or(0, |old| groups.get(old).copied().unwrap_or(messages.len()));
        let last_assistant = messages.iter().rposition(|m| m.role == Role::Assistant).unwrap_or(0);
        let thinking_end = first_kept.min(last_assistant);
        let old_calls: HashSet<&str> = messages[..first_kept]
            .iter()
            .flat_map(Message::tool_uses)
            .filter(|t| !self.protected_tools.iter().any(|p| p == &t.name))
            .map(|t| t.id.as_str())
            .collect();
        let mut out = messages.to_vec();
        let mut changed = false;
        for (i, message) in out.iter_mut().enumerate() {
            for block in &mut message.content {
                if let Content::ToolResult(r) = block
                    && old_calls.contains(r.tool_use_id.as_str())
                    && r.text_content() != self.placeholder
                {
                    r.content = vec![Content::text(self.placeholder.clone())].into();
                    changed = true;
                }
            }
            if i < thinking_end && message.role == Role::Assistant {
                let before = message.content.len();
                message.content.retain(|b| !matches!(b, Content::Thinking(_) | Content::RedactedThinking(_)));
                if message.content.len() != before {
                    changed = true;
                    if message.content.is_empty() {
                        message.content.push(Content::text(CLEARED_THINKING_TEXT));
                    }
                }
            }
        }
        changed.then_some(out)
    }
}

impl Default for ClearToolResults {
    /// Keeps the newest three tool groups.
    fn default() -> Self {
        Self::new(3)
    }
}

impl CompactionStrategy for ClearToolResults {
    fn name(&self) -> &str {
        "clear_tool_results"
    }

    fn compact<'a>(
        &'a self,
        request: &'a CompactionRequest,
    ) -> BoxFuture<'a, Result<Option<CompactedWindow>, CompactionError>> {
        Box::pin(async move { Ok(self.apply(&request.messages).map(CompactedWindow::new)) })
    }
}

/// Drops the oldest messages in whole turns and tool groups, keeping at least the newest
/// `keep` messages: the window starts at a user message where no tool call is open, so a
/// call never loses its result.
///
/// ```
/// use dive_core::{Message, Trim};
/// let messages = vec![Message::user("a"), Message::assistant("b"), Message::user("c")];
/// assert_eq!(Trim::new(1).apply(&messages).unwrap()[0].text(), "c");
/// assert!(Trim::new(2).apply(&messages).is_none()); // would start on the answer
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Trim {
    /// Newest messages always kept.
    pub keep: usize,
}

impl Trim {
    /// Keeps at least the newest `keep` messages.
    #[must_use]
    pub fn new(keep: usize) -> Self {
        Self { keep }
    }

    /// The trimmed messages, or `None` when no whole turn can go.
    #[must_use]
    pub fn apply(&self, messages: &[Message]) -> Option<Vec<Message>> {
        let latest = messages.len().saturating_sub(self.keep);
        let cut = safe_cuts(messages)
            .into_iter()
            .filter(|&c| c > 0 && c <= latest && messages.get(c).is_some_and(|m| m.role == Role::User))
            .max()?;
        Some(messages[cut..].to_vec())
    }
}

impl CompactionStrategy for Trim {
    fn name(&self) -> &str {
        "trim"
    }

    fn compact<'a>(
        &'a self,
        request: &'a CompactionRequest,
    ) -> BoxFuture<'a, Result<Option<CompactedWindow>, CompactionError>> {
        Box::pin(async move { Ok(self.apply(&request.messages).map(CompactedWindow::new)) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{ThinkingContent, ToolResultContent};
    use serde_json::json;

    fn group(id: &str, tool: &str, result: &str) -> [Message; 2] {
        [
            Message::new(Role::Assistant, vec![Content::tool_use(id, tool, json!({}))]),
            Message::tool_results(vec![ToolResultContent::text(id, result)]),
        ]
    }

    fn conversation() -> Vec<Message> {
        let mut m = vec![Message::user("go")];
        m.extend(group("a", "read", "AAAA"));
        m.extend(group("s", "Skill", "<skill_content name=\"x\">rules</skill_content>"));
        m.extend(group("b", "read", "BBBB"));
        m.extend(group("c", "read", "CCCC"));
        m
    }

    fn results(messages: &[Message]) -> Vec<String> {
        messages.iter().flat_map(Message::tool_results_iter).map(ToolResultContent::text_content).collect()
    }

    #[test]
    fn clears_old_results_keeps_new_and_protected_ones() {
        let out = ClearToolResults::new(2).protect_tool("Skill").apply(&conversation()).unwrap();
        let p = CLEARED_TOOL_RESULT_TEXT;
        assert_eq!(results(&out), [p, "<skill_content name=\"x\">rules</skill_content>", "BBBB", "CCCC"]);
        // Every call still has its result, in place.
        assert_eq!(out.len(), conversation().len());
        assert_eq!(safe_cuts(&out), safe_cuts(&conversation()));
        // A second pass has nothing left to clear.
        assert!(ClearToolResults::new(2).protect_tool("Skill").apply(&out).is_none());
    }

    #[test]
    fn drops_old_thinking_but_not_the_newest() {
        let thinking = |t: &str| Content::Thinking(ThinkingContent::new(t, Some("sig".into())));
        let mut m = vec![Message::user("q")];
        m.push(Message::new(Role::Assistant, vec![thinking("old")]));
        m.push(Message::user("again"));
        m.push(Message::new(Role::Assistant, vec![thinking("new"), Content::tool_use("z", "t", json!({}))]));
        m.push(Message::tool_results(vec![ToolResultContent::text("z", "r")]));
        let out = ClearToolResults::new(0).apply(&m).unwrap();
        assert_eq!(out[1].text(), CLEARED_THINKING_TEXT);
        assert_eq!(out[3].thinking().count(), 1);
        assert_eq!(results(&out), [CLEARED_TOOL_RESULT_TEXT]);
    }

    #[test]
    fn trim_drops_whole_turns_only() {
        let mut m = vec![Message::user("q1")];
        m.extend(group("a", "read", "A"));
        m.push(Message::assistant("done1"));
        m.push(Message::user("q2"));
        m.extend(group("b", "read", "B"));
        let out = Trim::new(3).apply(&m).unwrap();
        assert_eq!(out[0].text(), "q2");
        assert_eq!(results(&out), ["B"]);
        // Keeping four would start inside the first turn (on a call or a result): nothing goes.
        assert!(Trim::new(4).apply(&m).is_none());
    }
}
