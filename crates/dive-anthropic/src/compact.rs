//! Native compaction on the Messages API ([`Llm::compact`](dive_core::Llm::compact)): a
//! `POST /v1/messages` carrying the top-level `compaction` parameter (`{"type": "summarize"}`,
//! beta [`ON_DEMAND_COMPACTION_BETA`]) summarises the conversation on the server. The answer
//! holds one signed `compaction` block (`stop_reason` `compaction`); later requests send it
//! first in `messages`, in place of the messages it summarises, exactly as received.
//!
//! The body is the ordinary request body (so tools, thinking and caching match the
//! conversation being summarised) without what a compaction request cannot carry: streaming,
//! `context_management` (the two cannot be combined), a tool choice, stop sequences and
//! structured output.

use dive_core::{CompactedWindow, Content, LlmErrorKind, Message, ModelResponse, Role};
use dive_provider::{Encoded, ProviderError};
use serde_json::{Value, json};

use crate::PROVIDER;
use crate::encode::{COMPACTION_BETA, CONTEXT_MANAGEMENT_BETA, MessagesBody};

/// The beta the top-level `compaction` parameter needs.
pub const ON_DEMAND_COMPACTION_BETA: &str = "compact-2026-09-04";

/// The stop reason of a compaction answer.
const COMPACTION_STOP: &str = "compaction";

/// Top-level fields a compaction request does not carry.
const NOT_SENT: &[&str] = &["stream", "context_management", "tool_choice", "stop_sequences", "output_config"];

/// The compaction body built from an ordinary request's, and its `anthropic-beta` header.
pub(crate) fn compaction_body(
    encoded: &Encoded<MessagesBody<'_>>,
    instructions: Option<&str>,
) -> Result<Encoded<Value>, ProviderError> {
    let mut body = serde_json::to_value(&encoded.body).map_err(|e| {
        ProviderError::new(
            PROVIDER,
            LlmErrorKind::InvalidRequest,
            format!("request body does not serialize: {e}"),
        )
    })?;
    let Some(fields) = body.as_object_mut() else {
        return Err(ProviderError::new(
            PROVIDER,
            LlmErrorKind::InvalidRequest,
            "request body is not an object",
        ));
    };
    for key in NOT_SENT {
        fields.remove(*key);
    }
    let mut config = json!({"type": "summarize"});
    if let Some(text) = instructions.map(str::trim).filter(|t| !t.is_empty()) {
        config["instructions"] = json!(text);
    }
    fields.insert("compaction".into(), config);
    let mut betas: Vec<&str> = encoded
        .header("anthropic-beta")
        .into_iter()
        .flat_map(|h| h.split(','))
        .filter(|b| !b.is_empty() && *b != COMPACTION_BETA && *b != CONTEXT_MANAGEMENT_BETA)
        .collect();
    betas.push(ON_DEMAND_COMPACTION_BETA);
    betas.sort_unstable();
    betas.dedup();
    Ok(Encoded::new(body).with_header("anthropic-beta", betas.join(",")))
}

/// The compaction answer as the message that replaces the summarised ones: the assistant
/// message holding the `compaction` block, kept verbatim for replay.
///
/// # Errors
/// `Decode` when the answer is not a compaction (another stop reason, no `compaction` block),
/// and `Server` when the server's compaction produced no summary (a null `content`).
pub(crate) fn compaction_answer(response: ModelResponse) -> Result<CompactedWindow, ProviderError> {
    let block = response.content.iter().find_map(|c| match c {
        Content::Unknown(u) if u.kind() == Some("compaction") => Some(u),
        _ => None,
    });
    let Some(block) = block else {
        return Err(ProviderError::new(
            PROVIDER,
            LlmErrorKind::Decode,
            format!(
                "the compaction call answered without a compaction block (stop reason `{}`)",
                response.stop_reason
            ),
        ));
    };
    if block.raw.get("content").and_then(Value::as_str).is_none_or(|s| s.is_empty()) {
        return Err(ProviderError::new(
            PROVIDER,
            LlmErrorKind::Server,
            "the server's compaction produced no summary; try again or compact with a summary instead",
        ));
    }
    if response.stop_reason != COMPACTION_STOP {
        tracing::debug!(stop_reason = %response.stop_reason, "compaction answer with an unexpected stop reason");
    }
    let message = Message::new(Role::Assistant, vec![Content::Unknown(block.clone())]);
    Ok(CompactedWindow::new(vec![message]).with_usage(response.usage))
}
