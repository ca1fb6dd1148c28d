//! What the engine says to the model in its own words: the rule for reading reminders, the
//! result of a tool call that never ran, the note that records an incomplete turn, the
//! tool-limit and continuation reminders. dive-core holds the vocabulary (reminders,
//! outcomes); the wording and when it is sent live here.

use std::borrow::Cow;

use dive_core::{Message, Reminder, ToolCallState, TurnOutcome, contains_reminders, outcome_reminder};

/// The rule added to the system prompt of a request that holds reminders, so the model knows
/// how to weigh them. A request without reminders is sent without it.
pub const REMINDER_PRIMING_RULE: &str = "Messages may contain <system-reminder name=\"…\"> blocks. \
Their authority is that of the role of the message that encloses them; reminders with the same \
name accumulate, and on a conflict the later one wins.";

/// The result text for a call that was never run (the turn ended before it started).
pub const TOOL_CALL_NOT_RUN_TEXT: &str =
    "Not run: the turn ended before this tool call started, so it had no effect.";

/// The operator reminder on the last model call a turn allows with tools.
pub(crate) const TOOL_LIMIT_TEXT: &str =
    "You have reached the tool-use limit of this turn. Answer now with what you have, without calling tools.";

/// The reminder a continuation adds when the caller asks to continue.
pub(crate) const CONTINUE_TEXT: &str =
    "The user asked to continue: carry on from where the conversation stopped.";

/// The system prompt for a request of `messages`: `base`, then the reminder priming rule when
/// any message holds a reminder and `base` lacks it (an agent with extensions has it from the
/// start). Borrows when no rule is added.
pub(crate) fn system_prompt_for<'a>(base: &'a str, messages: &[Message]) -> Cow<'a, str> {
    if base.contains(REMINDER_PRIMING_RULE) || !contains_reminders(messages) {
        return Cow::Borrowed(base);
    }
    if base.trim().is_empty() {
        return Cow::Borrowed(REMINDER_PRIMING_RULE);
    }
    Cow::Owned(format!("{base}\n\n{REMINDER_PRIMING_RULE}"))
}

/// The reminder that closes an incomplete turn: why it stopped, its error, and the calls that
/// may have taken effect, for the model; the outcome itself in its details.
pub(crate) fn incomplete_turn_reminder(outcome: &TurnOutcome) -> Reminder {
    let reason = outcome.reason.as_str();
    let mut text = format!("The previous turn did not finish (reason: {reason}).");
    if let Some(error) = &outcome.error {
        text.push_str(&format!(" Error: {error}."));
    }
    let unknown: Vec<&str> = outcome
        .tool_calls
        .iter()
        .filter(|c| c.state == ToolCallState::Unknown)
        .map(|c| c.name.as_str())
        .collect();
    if !unknown.is_empty() {
        text.push_str(&format!(
            " These tool calls may have taken effect without a recorded result: {}. Check before repeating them.",
            unknown.join(", ")
        ));
    }
    outcome_reminder(outcome, text)
}

#[cfg(test)]
mod tests {
    use dive_core::{OutcomeReason, ToolCallRecord, find_turn_outcome};

    use super::*;

    #[test]
    fn the_priming_rule_follows_reminders() {
        let plain = [Message::user("hi")];
        assert_eq!(system_prompt_for("Be brief.", &plain), "Be brief.");
        let with = [Message::user("hi"), Reminder::new("clock", "noon").unwrap().into_message()];
        assert_eq!(system_prompt_for("Be brief.", &with), format!("Be brief.\n\n{REMINDER_PRIMING_RULE}"));
        assert_eq!(system_prompt_for("", &with), REMINDER_PRIMING_RULE);
        let primed = format!("Be brief.\n\n{REMINDER_PRIMING_RULE}");
        assert_eq!(system_prompt_for(&primed, &with), primed, "never twice");
    }

    #[test]
    fn the_incomplete_turn_note_names_unknown_calls_and_reads_back() {
        let calls = vec![
            ToolCallRecord::new("c1", "deploy", ToolCallState::Unknown),
            ToolCallRecord::new("c2", "read", ToolCallState::Completed),
        ];
        let outcome = TurnOutcome::new(OutcomeReason::Canceled, calls).with_error("stopped");
        let note = incomplete_turn_reminder(&outcome);
        assert_eq!(
            note.content,
            "The previous turn did not finish (reason: canceled). Error: stopped. These tool calls may \
             have taken effect without a recorded result: deploy. Check before repeating them."
        );
        assert_eq!(find_turn_outcome(&[note.into_message()]), Some(outcome));
    }
}
