//! Chat Completions responses → [`ModelResponse`] and [`Usage`].

use dive_core::{Content, Cost, ModelResponse, RefusalContent, ThinkingContent, ToolUse, Usage};
use serde_json::Value;

use crate::chat::reasoning::{ChunkKind, content_chunks, detail_block};
use crate::dialect::Dialect;
use crate::wire::{count, parse_arguments, text};

/// Converts a Chat Completions `usage` object. `prompt_tokens` includes cached tokens; Dive's
/// input buckets are disjoint, so the cached part moves to `cache_read_input_tokens`.
#[must_use]
pub fn decode_usage(v: &Value, dialect: &Dialect) -> Usage {
    let cached = v.get("prompt_tokens_details").map_or(0, |d| count(d, "cached_tokens"));
    let mut u = Usage::new(count(v, "prompt_tokens").saturating_sub(cached), count(v, "completion_tokens"))
        .with_cache(cached, 0);
    u.reasoning_tokens = v.get("completion_tokens_details").map_or(0, |d| count(d, "reasoning_tokens"));
    if let Some(source) = dialect.reported_cost
        && let Some(total) = v.get(dialect.cost_field).and_then(Value::as_f64)
    {
        let mut cost = Cost::default();
        cost.total = total;
        cost.source = Some(source.to_owned());
        u.cost = Some(cost);
    }
    u
}

/// The reasoning text of a message or delta, from the dialect's reasoning fields.
pub(crate) fn reasoning_text(v: &Value, dialect: &Dialect) -> Option<String> {
    dialect.reasoning_fields.iter().find_map(|f| v.get(*f).and_then(Value::as_str)).map(str::to_owned)
}

/// Decodes a full `chat.completion` object (the first choice).
///
/// ```
/// use dive_openai_wire::{Dialect, chat::decode_response};
/// let r = decode_response(&serde_json::json!({"id": "c1", "model": "gpt-5.5", "choices": [{"index": 0,
///     "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}]}), &Dialect::openai());
/// assert_eq!((r.text_content().as_str(), r.stop_reason.as_str()), ("Hi", "stop"));
/// ```
#[must_use]
pub fn decode_response(v: &Value, dialect: &Dialect) -> ModelResponse {
    let mut r = ModelResponse::default();
    r.id = text(v, "id").unwrap_or_default();
    r.model = text(v, "model").unwrap_or_default();
    r.usage = v.get("usage").map(|u| decode_usage(u, dialect)).unwrap_or_default();
    r.usage.service_tier = text(v, "service_tier");
    let choice = v.get("choices").and_then(|c| c.get(0)).cloned().unwrap_or_default();
    let message = choice.get("message").cloned().unwrap_or_default();
    let details = dialect.reasoning_details.and_then(|key| {
        message.get("reasoning_details").and_then(Value::as_array).filter(|d| !d.is_empty()).map(|d| (key, d))
    });
    if let Some((key, details)) = details {
        // The details carry what `reasoning` repeats as plain text, plus signatures.
        r.content.extend(details.iter().map(|d| Content::Thinking(detail_block(d, key))));
    } else if let Some(thinking) = reasoning_text(&message, dialect).filter(|t| !t.is_empty()) {
        r.content.push(Content::Thinking(ThinkingContent::new(thinking, None)));
    }
    match message.get("content") {
        Some(Value::String(t)) if !t.is_empty() => r.content.push(Content::text(t)),
        Some(Value::Array(chunks)) => {
            for (kind, t) in content_chunks(chunks).into_iter().filter(|(_, t)| !t.is_empty()) {
                r.content.push(match kind {
                    ChunkKind::Thinking => Content::Thinking(ThinkingContent::new(t, None)),
                    ChunkKind::Text => Content::text(t),
                });
            }
        }
        _ => {}
    }
    if let Some(refusal) = message.get("refusal").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        r.content.push(Content::Refusal(RefusalContent::new(refusal)));
    }
    for call in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
        let function = call.get("function").cloned().unwrap_or_default();
        r.content.push(Content::ToolUse(ToolUse::new(
            text(call, "id").unwrap_or_default(),
            text(&function, "name").unwrap_or_default(),
            parse_arguments(function.get("arguments").and_then(Value::as_str).unwrap_or_default()),
        )));
    }
    let finish = choice.get("finish_reason").and_then(Value::as_str).unwrap_or_default();
    r.stop_reason = dialect.stop_reason(finish);
    r
}
