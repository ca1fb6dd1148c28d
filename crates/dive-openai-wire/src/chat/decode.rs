//! Chat Completions responses → [`ModelResponse`] and [`Usage`]. A whole response is read
//! from its bytes straight into [`Completion`] (the message is the same typed [`Delta`] a
//! stream chunk carries, its usage a typed [`ChatUsage`]); only the rare vendor parts stay
//! JSON values.

use std::borrow::Cow;

use dive_core::{Content, Cost, ModelResponse, RefusalContent, ThinkingContent, ToolUse, Usage};
use serde::Deserialize;
use serde_json::Value;

use crate::chat::chunk::{Delta, DeltaContent, first, typed_reasoning, typed_response};
use crate::chat::reasoning::{ChunkKind, content_chunks, detail_block};
use crate::chat::usage::{ChatUsage, typed_cost};
use crate::dialect::Dialect;
use crate::wire::{count, parse_arguments};

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
        cost.source = Some(source.into());
        u.cost = Some(cost);
    }
    u
}

/// The reasoning text of a message or delta, from the dialect's reasoning fields.
pub(crate) fn reasoning_text(v: &Value, dialect: &Dialect) -> Option<String> {
    dialect.reasoning_fields.iter().find_map(|f| v.get(*f).and_then(Value::as_str)).map(str::to_owned)
}

/// A whole `chat.completion` object (only the first choice is read).
#[derive(Debug, Default, Deserialize)]
struct Completion<'a> {
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    service_tier: Option<Cow<'a, str>>,
    #[serde(default)]
    usage: Option<ChatUsage>,
    /// The first choice (the only one read; the others are skipped unparsed).
    #[serde(default, borrow, deserialize_with = "first")]
    choices: Option<CompletionChoice<'a>>,
}

#[derive(Debug, Default, Deserialize)]
struct CompletionChoice<'a> {
    #[serde(default)]
    message: Option<Delta>,
    #[serde(default, borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

/// Decodes a response body (the bytes as received).
pub(crate) fn decode_body(body: &[u8], dialect: &Dialect) -> Result<ModelResponse, serde_json::Error> {
    if typed_response(dialect) {
        let completion: Completion<'_> = serde_json::from_slice(body)?;
        return Ok(decode_completion(completion, dialect, None, None));
    }
    // A dialect reading reasoning or cost from a field the typed forms do not know.
    let v: Value = serde_json::from_slice(body)?;
    Ok(decode_response(&v, dialect))
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
    let completion = Completion::deserialize(v).unwrap_or_default();
    let message = v.get("choices").and_then(|c| c.get(0)).and_then(|c| c.get("message"));
    let reasoning =
        if typed_reasoning(dialect) { None } else { message.and_then(|m| reasoning_text(m, dialect)) };
    let usage = if typed_cost(dialect) { None } else { v.get("usage") };
    decode_completion(completion, dialect, reasoning, usage)
}

/// The response of a typed completion; `reasoning` is the text of a reasoning field the
/// typed message does not hold and `usage` the JSON of a usage whose cost field the typed
/// usage does not read (both read from the JSON by the caller).
fn decode_completion(
    c: Completion<'_>,
    dialect: &Dialect,
    reasoning: Option<String>,
    usage: Option<&Value>,
) -> ModelResponse {
    let mut r = ModelResponse::default();
    r.id = c.id.map(Cow::into_owned).unwrap_or_default();
    r.model = c.model.map(Cow::into_owned).unwrap_or_default();
    r.usage = match usage {
        Some(json) => decode_usage(json, dialect),
        None => c.usage.as_ref().map(|u| u.to_usage(dialect)).unwrap_or_default(),
    };
    r.usage.service_tier = c.service_tier.map(Cow::into_owned);
    let choice = c.choices.unwrap_or_default();
    let mut message = choice.message.unwrap_or_default();
    let details = dialect
        .reasoning_details
        .and_then(|key| message.reasoning_details.take().filter(|d| !d.is_empty()).map(|d| (key, d)));
    let reasoning = reasoning.or_else(|| message.take_reasoning(dialect)).filter(|t| !t.is_empty());
    let calls = message.tool_calls.take().unwrap_or_default();
    // The blocks this response holds at most, so the list is allocated once at its size.
    let thinking_blocks = details.as_ref().map_or(usize::from(reasoning.is_some()), |(_, d)| d.len());
    let text_blocks = match &message.content {
        Some(DeltaContent::Chunks(chunks)) => chunks.len(),
        Some(DeltaContent::Text(_)) => 1,
        Some(DeltaContent::Other) | None => 0,
    };
    r.content
        .reserve_exact(thinking_blocks + text_blocks + usize::from(message.refusal.is_some()) + calls.len());
    if let Some((key, details)) = details {
        // The details carry what `reasoning` repeats as plain text, plus signatures.
        r.content.extend(details.iter().map(|d| Content::Thinking(detail_block(d, key))));
    } else if let Some(thinking) = reasoning {
        r.content.push(Content::Thinking(ThinkingContent::new(thinking, None)));
    }
    match message.content {
        Some(DeltaContent::Text(t)) if !t.is_empty() => r.content.push(Content::text(t)),
        Some(DeltaContent::Chunks(chunks)) => {
            for (kind, t) in content_chunks(&chunks).into_iter().filter(|(_, t)| !t.is_empty()) {
                r.content.push(match kind {
                    ChunkKind::Thinking => Content::Thinking(ThinkingContent::new(t, None)),
                    ChunkKind::Text => Content::text(t),
                });
            }
        }
        _ => {}
    }
    if let Some(refusal) = message.refusal.filter(|t| !t.is_empty()) {
        r.content.push(Content::Refusal(RefusalContent::new(refusal)));
    }
    for call in calls {
        let function = call.function.unwrap_or_default();
        r.content.push(Content::ToolUse(ToolUse::new(
            call.id.unwrap_or_default(),
            function.name.unwrap_or_default(),
            parse_arguments(function.arguments.as_deref().unwrap_or_default()),
        )));
    }
    r.stop_reason = dialect.stop_reason(choice.finish_reason.as_deref().unwrap_or_default());
    r
}
