//! `/api/chat` responses (a whole response or one stream line) → content blocks, stop reason
//! and [`Usage`].

use dive_core::{Content, ModelResponse, Pricing, ThinkingContent, ToolUse, Usage, new_id};
use serde_json::{Map, Value, json};

use crate::think::{ThinkSegment, split_all};

/// Token counts of a final (`done: true`) line: `prompt_eval_count` input, `eval_count`
/// output.
pub(crate) fn decode_usage(v: &Value) -> Usage {
    let count = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    Usage::new(count("prompt_eval_count"), count("eval_count"))
}

/// Sets `usage.cost` from catalog prices, when known.
pub(crate) fn price(usage: &mut Usage, pricing: Option<&Pricing>) {
    if let Some(p) = pricing {
        usage.cost = Some(p.cost_of(usage));
    }
}

/// The stop reason recorded: `tool_calls` when the model called tools (Ollama says `stop`
/// then), else Ollama's `done_reason` (`stop`, `length`, …).
pub(crate) fn stop_reason(done_reason: Option<&str>, called_tools: bool) -> String {
    if called_tools { "tool_calls".to_owned() } else { done_reason.unwrap_or("stop").to_lowercase() }
}

/// Durations and other extras of the final line worth keeping in `ModelResponse::metadata`.
pub(crate) fn metadata(v: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    for key in [
        "done_reason",
        "created_at",
        "total_duration",
        "load_duration",
        "prompt_eval_duration",
        "eval_duration",
    ] {
        if let Some(x) = v.get(key).filter(|x| !x.is_null()) {
            out.insert(key.into(), x.clone());
        }
    }
    out
}

/// One `tool_calls` entry → a [`ToolUse`]. Ollama sends arguments as an object (a string is
/// parsed when it holds JSON); an id is generated when the server sends none.
pub(crate) fn decode_tool_call(v: &Value) -> ToolUse {
    let function = v.get("function").cloned().unwrap_or_default();
    let name = function.get("name").and_then(Value::as_str).unwrap_or_default();
    let input = match function.get("arguments") {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone())),
        Some(v @ Value::Object(_)) => v.clone(),
        _ => json!({}),
    };
    let id = v
        .get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map_or_else(|| new_id("call"), str::to_owned);
    ToolUse::new(id, name, input)
}

/// Decodes a whole (non-streaming) response.
pub(crate) fn decode_response(v: &Value) -> ModelResponse {
    let message = v.get("message").cloned().unwrap_or_default();
    let mut content = Vec::new();
    if let Some(thinking) = message.get("thinking").and_then(Value::as_str).filter(|t| !t.is_empty()) {
        content.push(Content::Thinking(ThinkingContent::new(thinking, None)));
    }
    let text = message.get("content").and_then(Value::as_str).unwrap_or_default();
    for segment in split_all(text) {
        content.push(match segment {
            ThinkSegment::Thinking(t) => Content::Thinking(ThinkingContent::new(t, None)),
            ThinkSegment::Text(t) => Content::text(t),
        });
    }
    let calls: Vec<ToolUse> = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| calls.iter().map(decode_tool_call).collect())
        .unwrap_or_default();
    let called = !calls.is_empty();
    content.extend(calls.into_iter().map(Content::ToolUse));
    let mut r = ModelResponse::default();
    r.model = v.get("model").and_then(Value::as_str).unwrap_or_default().to_owned();
    r.content = content;
    r.stop_reason = stop_reason(v.get("done_reason").and_then(Value::as_str), called);
    r.usage = decode_usage(v);
    r.metadata = metadata(v);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_response_with_think_tags_and_tool_calls() {
        let r = decode_response(&json!({
            "model": "deepseek-r1", "done": true, "done_reason": "stop",
            "prompt_eval_count": 12, "eval_count": 7, "total_duration": 1000,
            "message": {"role": "assistant", "content": "<think>add</think>\n\nCalling.",
                "tool_calls": [{"function": {"name": "calc", "arguments": {"x": 1}}},
                               {"id": "call_9", "function": {"name": "calc", "arguments": "{\"x\":2}"}}]}
        }));
        let kinds: Vec<&str> = r.content.iter().map(Content::kind).collect();
        assert_eq!(kinds, ["thinking", "text", "tool_use", "tool_use"]);
        assert_eq!(r.text_content(), "Calling.");
        let calls: Vec<&ToolUse> = r.tool_uses().collect();
        assert!(calls[0].id.starts_with("call_"));
        assert_eq!((calls[1].id.as_str(), &calls[1].input), ("call_9", &json!({"x": 2})));
        assert_eq!(r.stop_reason, "tool_calls");
        assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (12, 7));
        assert_eq!(r.metadata["done_reason"], "stop");
    }

    #[test]
    fn length_stops_are_output_limits() {
        let r = decode_response(
            &json!({"done": true, "done_reason": "length", "message": {"role": "assistant", "content": "x"}}),
        );
        assert_eq!(r.stop_kind(), dive_core::StopKind::OutputLimit);
    }
}
