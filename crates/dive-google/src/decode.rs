//! `GenerateContentResponse` JSON → [`ModelResponse`] (whole responses and stream chunks
//! share the part and usage decoders).

use dive_core::{
    Content, ImageContent, LlmErrorKind, MediaSource, ModelResponse, Pricing, TextContent, ThinkingContent,
    ToolUse, UnknownContent, Usage, new_id,
};
use dive_provider::ProviderError;
use serde_json::{Map, Value, json};

use crate::PROVIDER;
use crate::grounding::grounding_citations;
use crate::meta::{PART_KIND, part_metadata};

fn count(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// Converts `usageMetadata`. Gemini's `promptTokenCount` includes cached tokens and
/// `candidatesTokenCount` excludes thoughts; dive-core's buckets are disjoint input
/// buckets and output including reasoning, so: input = prompt + tool-use prompt − cached,
/// cache reads = cached, output = candidates + thoughts, reasoning = thoughts.
pub(crate) fn decode_usage(v: &Value) -> Usage {
    let cached = count(v, "cachedContentTokenCount");
    let prompt = count(v, "promptTokenCount") + count(v, "toolUsePromptTokenCount");
    let thoughts = count(v, "thoughtsTokenCount");
    Usage::new(prompt.saturating_sub(cached), count(v, "candidatesTokenCount") + thoughts)
        .with_cache(cached, 0)
        .with_reasoning(thoughts)
}

/// Sets `usage.cost` from the catalog prices, when known.
pub(crate) fn price(usage: &mut Usage, pricing: Option<&Pricing>) {
    if let Some(p) = pricing {
        usage.cost = Some(p.cost_of(usage));
    }
}

/// Gives tool calls without a Gemini id a stable one: `call_<responseId>_<n>` (n counts the
/// calls of the response from 0), or a fresh unique prefix when the response has no id.
#[derive(Debug, Default)]
pub(crate) struct CallIds {
    prefix: Option<String>,
    next: usize,
}

impl CallIds {
    /// Uses the response id as the prefix, if none was fixed yet.
    pub(crate) fn set_response_id(&mut self, id: &str) {
        if self.prefix.is_none() && !id.is_empty() {
            self.prefix = Some(format!("call_{id}"));
        }
    }

    fn next_id(&mut self) -> String {
        let prefix = self.prefix.get_or_insert_with(|| new_id("call")).clone();
        let id = format!("{prefix}_{}", self.next);
        self.next += 1;
        id
    }
}

fn unknown_part(part: Map<String, Value>) -> Content {
    let mut raw = Map::new();
    raw.insert("type".into(), json!(PART_KIND));
    raw.insert("part".into(), Value::Object(part));
    Content::Unknown(UnknownContent::from_raw(raw))
}

/// One part → one content block.
pub(crate) fn decode_part(part: Value, ids: &mut CallIds) -> Content {
    let Value::Object(mut part) = part else { return unknown_part(Map::new()) };
    let sig = part.get("thoughtSignature").and_then(Value::as_str).map(str::to_owned);
    let sig = sig.as_deref();
    if let Some(Value::Object(mut call)) = part.remove("functionCall") {
        let api_id = call.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
        let name = call.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        let args = call.remove("args").filter(Value::is_object).unwrap_or_else(|| json!({}));
        let has_id = api_id.is_some();
        let mut tool = ToolUse::new(api_id.unwrap_or_else(|| ids.next_id()), name, args);
        if sig.is_some() || has_id {
            tool.metadata = part_metadata(sig, has_id);
        }
        return Content::ToolUse(tool);
    }
    if let Some(text) = part.get("text").and_then(Value::as_str) {
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            let mut t = ThinkingContent::new(text, None);
            t.metadata = part_metadata(sig, false);
            return Content::Thinking(t);
        }
        let mut t = TextContent::new(text);
        if sig.is_some() {
            t.metadata = part_metadata(sig, false);
        }
        return Content::Text(t);
    }
    if sig.is_none()
        && let Some(blob) = part.get("inlineData")
        && let (Some(mime), Some(data)) =
            (blob.get("mimeType").and_then(Value::as_str), blob.get("data").and_then(Value::as_str))
        && mime.starts_with("image/")
    {
        return Content::Image(ImageContent::new(MediaSource::base64(mime, data)));
    }
    unknown_part(part)
}

/// The error for a `functionCall` that carries arguments but no function name: such a call
/// cannot be run or answered, so it never reaches the engine.
pub(crate) fn nameless_call(call: &Value) -> ProviderError {
    let keys: Vec<&str> =
        call.as_object().map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default();
    ProviderError::new(
        PROVIDER,
        LlmErrorKind::Decode,
        format!(
            "Gemini sent a function call without a function name (fields: {}); \
             it cannot be run, so the response was rejected: retry the request",
            keys.join(", ")
        ),
    )
}

/// Whether a `functionCall` holds nothing at all (`{}`), the form that ends a call whose
/// arguments were streamed.
pub(crate) fn is_empty_call(call: &Value) -> bool {
    call.as_object().is_some_and(|m| m.iter().all(|(k, v)| k == "willContinue" || v.is_null()))
}

/// Adds the citations of a candidate's `groundingMetadata` to the text blocks they cite.
pub(crate) fn attach_grounding(metadata: &Value, content: &mut [Content]) {
    let blocks: Vec<Option<&str>> =
        content.iter().map(|c| if let Content::Text(t) = c { Some(t.text.as_str()) } else { None }).collect();
    let citations = grounding_citations(metadata, &blocks);
    for (block, citation) in citations {
        if let Some(Content::Text(t)) = content.get_mut(block) {
            t.citations.push(citation);
        }
    }
}

/// Decodes a whole `GenerateContentResponse`.
///
/// # Errors
/// `Decode` when a function call has no name (see [`nameless_call`]).
pub(crate) fn decode_response(v: Value) -> Result<ModelResponse, ProviderError> {
    let Value::Object(mut m) = v else { return Ok(ModelResponse::default()) };
    let mut r = ModelResponse::default();
    let mut ids = CallIds::default();
    r.id = m.get("responseId").and_then(Value::as_str).unwrap_or_default().to_owned();
    ids.set_response_id(&r.id);
    r.model = m.get("modelVersion").and_then(Value::as_str).unwrap_or_default().to_owned();
    r.usage = m.get("usageMetadata").map(decode_usage).unwrap_or_default();
    let candidate = m
        .get_mut("candidates")
        .and_then(Value::as_array_mut)
        .and_then(|c| c.first_mut())
        .map(Value::take)
        .unwrap_or_default();
    let (stop_reason, stop_details) = finish(&candidate, m.get("promptFeedback"));
    r.stop_reason = stop_reason;
    r.stop_details = stop_details;
    candidate_metadata(&candidate, &mut r.metadata);
    if let Some(Value::Array(parts)) = candidate.get("content").and_then(|c| c.get("parts")).cloned() {
        for part in parts {
            if let Some(call) = part.get("functionCall") {
                if is_empty_call(call) {
                    continue;
                }
                if call.get("name").and_then(Value::as_str).is_none_or(str::is_empty) {
                    return Err(nameless_call(call));
                }
            }
            r.content.push(decode_part(part, &mut ids));
        }
    }
    if let Some(grounding) = r.metadata.get("groundingMetadata") {
        attach_grounding(grounding, &mut r.content);
    }
    Ok(r)
}

/// The lowercased finish reason (or prompt block reason) and the details that explain it
/// (`finishMessage`, `safetyRatings`, or the whole `promptFeedback` of a blocked prompt).
pub(crate) fn finish(candidate: &Value, feedback: Option<&Value>) -> (String, Option<Value>) {
    if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
        let mut details = Map::new();
        for key in ["finishMessage", "safetyRatings"] {
            if let Some(v) = candidate.get(key).filter(|v| !v.is_null()) {
                details.insert(key.into(), v.clone());
            }
        }
        let details = (!details.is_empty()).then_some(Value::Object(details));
        return (reason.to_lowercase(), details);
    }
    if let Some(block) = feedback.and_then(|f| f.get("blockReason")).and_then(Value::as_str) {
        return (block.to_lowercase(), feedback.cloned());
    }
    (String::new(), None)
}

/// Grounding, citation and URL-context metadata of a candidate, kept on the response.
pub(crate) fn candidate_metadata(candidate: &Value, out: &mut Map<String, Value>) {
    for key in ["groundingMetadata", "citationMetadata", "urlContextMetadata"] {
        // Streams repeat an empty `groundingMetadata: {}` on every chunk before the real one.
        if let Some(v) =
            candidate.get(key).filter(|v| !v.is_null() && v.as_object().is_none_or(|m| !m.is_empty()))
        {
            out.insert(key.into(), v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_buckets_are_disjoint() {
        let u = decode_usage(&json!({"promptTokenCount": 120, "cachedContentTokenCount": 100,
            "candidatesTokenCount": 7, "thoughtsTokenCount": 30, "totalTokenCount": 157}));
        assert_eq!(
            (u.input_tokens, u.cache_read_input_tokens, u.output_tokens, u.reasoning_tokens),
            (20, 100, 37, 30)
        );
        assert_eq!(u.total_tokens(), 157);
    }

    #[test]
    fn calls_get_stable_ids_and_unknown_parts_stay_verbatim() {
        let r = decode_response(
            json!({"responseId": "r1", "candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "a", "args": {"x": 1}}, "thoughtSignature": "c2ln"},
            {"functionCall": {"name": "b"}},
            {"functionCall": {"name": "c", "id": "srv-1"}},
            {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
        ]}, "finishReason": "STOP"}]}),
        )
        .unwrap();
        let ids: Vec<_> = r.tool_uses().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["call_r1_0", "call_r1_1", "srv-1"]);
        assert_eq!(r.stop_reason, "stop");
        assert_eq!(r.tool_uses().next().unwrap().metadata["google"]["thought_signature"], "c2ln");
        assert_eq!(
            serde_json::to_value(&r.content[3]).unwrap(),
            json!({"type": "google_part", "part": {"executableCode": {"language": "PYTHON", "code": "print(1)"}}})
        );
    }

    #[test]
    fn blocked_prompt_reports_its_reason() {
        let r = decode_response(json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}})).unwrap();
        assert_eq!(r.stop_reason, "prohibited_content");
        assert_eq!(r.stop_kind(), dive_core::StopKind::Refusal);
    }

    #[test]
    fn nameless_calls_never_become_tool_calls() {
        let e = decode_response(json!({"candidates": [{"content": {"parts": [
            {"functionCall": {"args": {"city": "Paris"}}}]}, "finishReason": "STOP"}]}))
        .unwrap_err();
        assert_eq!(e.kind, LlmErrorKind::Decode);
        assert!(e.message.contains("without a function name (fields: args)"), "{}", e.message);
        // The empty form that ends a streamed call is no call at all.
        let r = decode_response(json!({"candidates": [{"content": {"parts": [
            {"text": "ok"}, {"functionCall": {}}]}, "finishReason": "STOP"}]}))
        .unwrap();
        assert_eq!((r.content.len(), r.tool_uses().count()), (1, 0));
    }
}
