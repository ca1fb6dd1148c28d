//! Stop reasons: the raw provider value, and the kind the engine acts on.

use serde::{Deserialize, Serialize};

/// Why a model response ended, normalised across providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopKind {
    /// The model finished its answer.
    Finished,
    /// The model wants tools run.
    ToolUse,
    /// The output token limit cut the response.
    OutputLimit,
    /// The context window is full.
    ContextLimit,
    /// The model or a safety system refused.
    Refusal,
    /// The provider paused a long server-side turn; resend to continue.
    Pause,
    /// The provider stopped without finishing (error, timeout, malformed call).
    Incomplete,
    /// Anything else, including an empty value.
    Other,
}

impl StopKind {
    /// The snake_case name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Finished => "finished",
            Self::ToolUse => "tool_use",
            Self::OutputLimit => "output_limit",
            Self::ContextLimit => "context_limit",
            Self::Refusal => "refusal",
            Self::Pause => "pause",
            Self::Incomplete => "incomplete",
            Self::Other => "other",
        }
    }
}

/// Classifies a raw provider stop reason, case-insensitively.
///
/// | Kind | Raw values |
/// |---|---|
/// | finished | `end_turn`, `stop_sequence`, `stop` |
/// | tool_use | `tool_use`, `tool_calls`, `function_call` |
/// | output_limit | `max_tokens`, `length`, `max_output_tokens` |
/// | context_limit | `model_context_window_exceeded`, `model_length` |
/// | refusal | `refusal`, `content_filter`, `safety`, `recitation`, `blocklist`, `prohibited_content`, `spii`, `image_safety`, `image_prohibited_content`, `image_recitation`, `language`, `model_armor` |
/// | pause | `pause_turn`, `compaction` (Anthropic's `pause_after_compaction`: resending the turn continues it) |
/// | incomplete | `error`, `incomplete`, `cancelled`, `timeout`, `malformed_function_call`, `unexpected_tool_call`, `too_many_tool_calls`, `missing_thought_signature`, `malformed_response` |
/// | other | anything else, including empty |
///
/// ```
/// use dive_core::{classify_stop_reason, StopKind};
/// assert_eq!(classify_stop_reason("END_TURN"), StopKind::Finished);
/// assert_eq!(classify_stop_reason("model_length"), StopKind::ContextLimit);
/// assert_eq!(classify_stop_reason(""), StopKind::Other);
/// ```
#[must_use]
pub fn classify_stop_reason(raw: &str) -> StopKind {
    let raw = raw.trim();
    // Vendors send these in lower case; only another spelling pays for a copy.
    let lower = if raw.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(raw.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(raw)
    };
    match lower.as_ref() {
        "end_turn" | "stop_sequence" | "stop" => StopKind::Finished,
        "tool_use" | "tool_calls" | "function_call" => StopKind::ToolUse,
        "max_tokens" | "length" | "max_output_tokens" => StopKind::OutputLimit,
        "model_context_window_exceeded" | "model_length" => StopKind::ContextLimit,
        "refusal"
        | "content_filter"
        | "safety"
        | "recitation"
        | "blocklist"
        | "prohibited_content"
        | "spii"
        | "image_safety"
        | "image_prohibited_content"
        | "image_recitation"
        // Gemini: an unsupported language, a Model Armor policy block.
        | "language"
        | "model_armor" => StopKind::Refusal,
        // Anthropic pauses after a server-side compaction block when asked to; the turn goes
        // on when the request is sent again with that block.
        "pause_turn" | "compaction" => StopKind::Pause,
        "error"
        | "incomplete"
        | "cancelled"
        | "timeout"
        | "malformed_function_call"
        | "unexpected_tool_call"
        | "too_many_tool_calls"
        // Gemini: a replayed history lost its thought signatures; an unparsable model output.
        | "missing_thought_signature"
        | "malformed_response" => StopKind::Incomplete,
        _ => StopKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_table() {
        let table: &[(&str, StopKind)] = &[
            ("end_turn", StopKind::Finished),
            ("stop_sequence", StopKind::Finished),
            ("stop", StopKind::Finished),
            ("tool_use", StopKind::ToolUse),
            ("tool_calls", StopKind::ToolUse),
            ("function_call", StopKind::ToolUse),
            ("max_tokens", StopKind::OutputLimit),
            ("length", StopKind::OutputLimit),
            ("model_context_window_exceeded", StopKind::ContextLimit),
            ("model_length", StopKind::ContextLimit),
            ("refusal", StopKind::Refusal),
            ("content_filter", StopKind::Refusal),
            ("SAFETY", StopKind::Refusal),
            ("recitation", StopKind::Refusal),
            ("blocklist", StopKind::Refusal),
            ("prohibited_content", StopKind::Refusal),
            ("spii", StopKind::Refusal),
            ("image_safety", StopKind::Refusal),
            ("image_prohibited_content", StopKind::Refusal),
            ("image_recitation", StopKind::Refusal),
            ("pause_turn", StopKind::Pause),
            ("compaction", StopKind::Pause),
            ("error", StopKind::Incomplete),
            ("incomplete", StopKind::Incomplete),
            ("cancelled", StopKind::Incomplete),
            ("timeout", StopKind::Incomplete),
            ("MALFORMED_FUNCTION_CALL", StopKind::Incomplete),
            ("unexpected_tool_call", StopKind::Incomplete),
            ("too_many_tool_calls", StopKind::Incomplete),
            ("MISSING_THOUGHT_SIGNATURE", StopKind::Incomplete),
            ("malformed_response", StopKind::Incomplete),
            ("LANGUAGE", StopKind::Refusal),
            ("model_armor", StopKind::Refusal),
            ("other", StopKind::Other),
            ("", StopKind::Other),
            ("finish_reason_unspecified", StopKind::Other),
        ];
        for (raw, kind) in table {
            assert_eq!(classify_stop_reason(raw), *kind, "{raw}");
        }
    }
}
