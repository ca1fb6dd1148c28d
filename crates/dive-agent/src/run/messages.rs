//! Small message helpers of the loop: reminders at the tail, tool-result messages, the
//! background-results message.

use dive_core::{
    BackgroundTaskHandle, Content, Message, Reminder, Role, TOOL_CALL_UNKNOWN_TEXT, ToolCallRecord,
    ToolCallResult, ToolCallState, ToolResultContent, answer_unanswered_tool_calls_with,
};

use crate::texts::TOOL_CALL_NOT_RUN_TEXT;

/// Appends blocks to the last message when it is a user message, else as a new user message,
/// so roles keep alternating. Returns what was added, so it can be taken back.
pub(crate) fn append_user_blocks(messages: &mut Vec<Message>, blocks: Vec<Content>) -> Appended {
    if blocks.is_empty() {
        return Appended::Nothing;
    }
    match messages.last_mut() {
        Some(last) if last.role == Role::User => {
            let len = last.content.len();
            last.content.extend(blocks);
            Appended::ToLast { len }
        }
        _ => {
            messages.push(Message::new(Role::User, blocks));
            Appended::Message
        }
    }
}

/// What [`append_user_blocks`] added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Appended {
    /// Nothing (no blocks).
    Nothing,
    /// Blocks at the end of the last message, which had `len` blocks before.
    ToLast {
        /// The block count before.
        len: usize,
    },
    /// A new last message.
    Message,
}

impl Appended {
    /// Takes the blocks back out of `messages`, which must not have changed since (the
    /// history is copied only when someone else still holds it).
    pub(crate) fn undo(self, messages: &mut std::sync::Arc<Vec<Message>>) {
        match self {
            Self::Nothing => {}
            Self::ToLast { len } => {
                if let Some(last) = std::sync::Arc::make_mut(messages).last_mut() {
                    last.content.truncate(len);
                }
            }
            Self::Message => {
                std::sync::Arc::make_mut(messages).pop();
            }
        }
    }
}

/// Answers every call of `messages` that has no result by what its record says: "not run" for
/// a call that never started, "unknown result" for any other (e.g. one running when a process
/// died).
pub(crate) fn answer_open_calls(messages: &[Message], records: &[ToolCallRecord]) -> Vec<Message> {
    const MARK: &str = "\u{0}dive-unanswered\u{0}";
    let mut answered = answer_unanswered_tool_calls_with(messages, MARK).into_owned();
    for block in answered.iter_mut().flat_map(|m| m.content.iter_mut()) {
        if let Content::ToolResult(r) = block
            && r.text_content() == MARK
        {
            let not_started =
                records.iter().any(|c| c.id == r.tool_use_id && c.state == ToolCallState::NotStarted);
            let text = if not_started { TOOL_CALL_NOT_RUN_TEXT } else { TOOL_CALL_UNKNOWN_TEXT };
            let toolset_name = r.toolset_name.take();
            *r = ToolResultContent::error(r.tool_use_id.clone(), text);
            r.toolset_name = toolset_name;
        }
    }
    answered
}

/// The messages of `list` from `start` on (none when it is shorter), moved out. From the start,
/// the whole list is handed over: `Vec::split_off(0)` would allocate an empty list of the same
/// capacity to leave behind.
pub(crate) fn take_from(list: &mut Vec<Message>, start: usize) -> Vec<Message> {
    match start.min(list.len()) {
        0 => std::mem::take(list),
        start => list.split_off(start),
    }
}

/// Reminders as content blocks.
pub(crate) fn reminder_blocks(reminders: impl IntoIterator<Item = Reminder>) -> Vec<Content> {
    reminders.into_iter().map(Content::Reminder).collect()
}

/// The one user message answering a batch: results in declared order, then each call's
/// additional context as text, then the batch's recorded reminders.
pub(crate) fn tool_results_message(results: &[ToolCallResult], reminders: Vec<Reminder>) -> Message {
    let mut content: Vec<Content> = results.iter().map(|r| Content::ToolResult(result_block(r))).collect();
    for r in results {
        content.extend(r.additional_context.iter().map(|c| Content::text(c.clone())));
    }
    content.extend(reminder_blocks(reminders));
    Message::new(Role::User, content)
}

/// The `tool_result` block for one call result.
pub(crate) fn result_block(result: &ToolCallResult) -> ToolResultContent {
    let mut block = match &result.output {
        Some(output) => {
            let mut block = ToolResultContent::new(result.id.clone(), output.content.clone());
            block.is_error = output.is_error;
            block
        }
        None => ToolResultContent::error(result.id.clone(), "The tool produced no result."),
    };
    block.toolset_name.clone_from(&result.toolset_name);
    block
}

/// The synthetic user message delivering finished background results.
pub(crate) fn background_results_message(handles: &[BackgroundTaskHandle]) -> Option<Message> {
    if handles.is_empty() {
        return None;
    }
    let mut text = String::from("Background tasks finished:");
    let mut any = false;
    for h in handles {
        let Some(output) = h.try_result() else { continue };
        any = true;
        let status = if output.is_error { "failed" } else { "completed" };
        text.push_str(&format!(
            "\n\n[task {} (tool call {}, {}: {}) {status}]\n{}",
            h.task_id,
            h.tool_use_id,
            h.tool_name,
            h.description,
            output.text_content()
        ));
    }
    let reminder = Reminder::new("background-tasks", text).ok()?;
    any.then(|| reminder.into_message())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive_core::{ToolOutput, ToolUse};
    use serde_json::json;

    #[test]
    fn take_from_moves_the_tail_out_and_the_whole_list_from_its_start() {
        let list = || vec![Message::user("a"), Message::assistant("b"), Message::user("c")];
        let texts = |m: &[Message]| m.iter().map(Message::text).collect::<Vec<_>>();

        let mut whole = list();
        let taken = take_from(&mut whole, 0);
        assert_eq!(texts(&taken), ["a", "b", "c"]);
        assert_eq!(whole.capacity(), 0, "nothing is allocated to leave behind");

        let mut split = list();
        assert_eq!(texts(&take_from(&mut split, 1)), ["b", "c"]);
        assert_eq!(texts(&split), ["a"]);

        let mut short = list();
        assert!(take_from(&mut short, 9).is_empty());
        assert_eq!(short.len(), 3);
    }

    #[test]
    fn blocks_join_a_trailing_user_message() {
        let mut messages = vec![Message::user("a")];
        append_user_blocks(&mut messages, vec![Content::text("b")]);
        assert_eq!(messages.len(), 1);
        messages.push(Message::assistant("c"));
        append_user_blocks(&mut messages, vec![Content::text("d")]);
        assert_eq!(messages.len(), 3);
    }

    #[test]
    fn results_message_keeps_order_then_context() {
        let call = |id: &str| ToolUse::new(id, "t", json!({}));
        let mut a = ToolCallResult::new(&call("a"), ToolOutput::text("A"));
        a.additional_context.push("note".into());
        let b = ToolCallResult::new(&call("b"), ToolOutput::error("B"));
        let msg = tool_results_message(&[a, b], Vec::new());
        let ids: Vec<&str> = msg.tool_results_iter().map(|r| r.tool_use_id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        assert!(msg.tool_results_iter().nth(1).unwrap().is_error);
        assert_eq!(msg.content.last().unwrap().as_text(), Some("note"));
    }

    #[test]
    fn open_calls_are_answered_by_their_records() {
        let call = |id: &str| Content::tool_use(id, "t", json!({}));
        let messages = vec![Message::user("go"), Message::new(Role::Assistant, vec![call("a"), call("b")])];
        let records = vec![
            ToolCallRecord::new("a", "t", ToolCallState::Unknown),
            ToolCallRecord::new("b", "t", ToolCallState::NotStarted),
        ];
        let answered = answer_open_calls(&messages, &records);
        let texts: Vec<String> =
            answered[2].tool_results_iter().map(ToolResultContent::text_content).collect();
        assert_eq!(texts, [TOOL_CALL_UNKNOWN_TEXT, TOOL_CALL_NOT_RUN_TEXT]);
    }

    #[test]
    fn background_message_names_tasks() {
        let (handle, done) = BackgroundTaskHandle::new("t1", "c1", "build", "build it");
        assert!(background_results_message(std::slice::from_ref(&handle)).is_none());
        done.complete(ToolOutput::text("built"));
        let msg = background_results_message(&[handle]).unwrap();
        let text = msg.content[0].as_reminder().unwrap().content.clone();
        assert!(text.contains("task t1 (tool call c1") && text.contains("built"), "{text}");
    }
}
