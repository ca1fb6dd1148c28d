//! `/api/chat` responses (a whole response or one stream line, read as a typed
//! [`Line`](crate::response::Line)) → content blocks, stop reason and [`Usage`].

use std::borrow::Cow;

use dive_core::{Content, ModelResponse, ThinkingContent, ToolUse, Usage, new_id};
use serde_json::{Map, Value, json};

use crate::response::{Line, ToolCall};
use crate::think::{ThinkSegment, split_all};

/// Token counts of a final (`done: true`) line: `prompt_eval_count` input, `eval_count`
/// output.
pub(crate) fn decode_usage(line: &Line<'_>) -> Usage {
    Usage::new(line.prompt_eval_count.unwrap_or(0), line.eval_count.unwrap_or(0))
}

/// The stop reason recorded: `tool_calls` when the model called tools (Ollama says `stop`
/// then), else Ollama's `done_reason` (`stop`, `length`, …).
pub(crate) fn stop_reason(done_reason: Option<&str>, called_tools: bool) -> String {
    if called_tools { "tool_calls".to_owned() } else { done_reason.unwrap_or("stop").to_lowercase() }
}

/// Durations and other extras of the final line worth keeping in `ModelResponse::metadata`.
pub(crate) fn metadata(line: &mut Line<'_>) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(reason) = &line.done_reason {
        out.insert("done_reason".into(), Value::String(reason.to_string()));
    }
    for (key, v) in [
        ("created_at", line.created_at.take()),
        ("total_duration", line.total_duration.take()),
        ("load_duration", line.load_duration.take()),
        ("prompt_eval_duration", line.prompt_eval_duration.take()),
        ("eval_duration", line.eval_duration.take()),
    ] {
        if let Some(x) = v {
            out.insert(key.into(), x);
        }
    }
    out
}

/// One `tool_calls` entry → a [`ToolUse`]. Ollama sends arguments as an object (a string is
/// parsed when it holds JSON); an id is generated when the server sends none.
pub(crate) fn decode_tool_call(call: ToolCall<'_>) -> ToolUse {
    let function = call.function.unwrap_or_default();
    let input = match function.arguments {
        Some(Value::String(s)) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        Some(v @ Value::Object(_)) => v,
        _ => json!({}),
    };
    let id = call.id.filter(|s| !s.is_empty()).map_or_else(|| new_id("call"), Cow::into_owned);
    ToolUse::new(id, function.name.unwrap_or_default(), input)
}

/// Decodes a whole (non-streaming) response.
pub(crate) fn decode_response(mut line: Line<'_>) -> ModelResponse {
    let mut r = ModelResponse::default();
    r.model = line.model.as_deref().unwrap_or_default().to_owned();
    r.usage = decode_usage(&line);
    r.metadata = metadata(&mut line);
    let message = line.message.unwrap_or_default();
    if let Some(thinking) = message.thinking.filter(|t| !t.is_empty()) {
        r.content.push(Content::Thinking(ThinkingContent::new(thinking, None)));
    }
    for segment in split_all(message.content.as_deref().unwrap_or_default()) {
        r.content.push(match segment {
            ThinkSegment::Thinking(t) => Content::Thinking(ThinkingContent::new(t, None)),
            ThinkSegment::Text(t) => Content::text(t),
        });
    }
    let calls = message.tool_calls.unwrap_or_default();
    let called = !calls.is_empty();
    r.content.extend(calls.into_iter().map(|c| Content::ToolUse(decode_tool_call(c))));
    r.stop_reason = stop_reason(line.done_reason.as_deref(), called);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_response(v: &Value) -> ModelResponse {
        super::decode_response(Line::read(v).unwrap())
    }

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
        assert_eq!((calls[1].id.as_str(), &*calls[1].input), ("call_9", &json!({"x": 2})));
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
