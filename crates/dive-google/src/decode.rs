//! `GenerateContentResponse` ([`Response`](crate::response::Response)) → [`ModelResponse`]
//! (whole responses and stream chunks share the part and usage decoders).

use dive_core::{
    Content, ImageContent, LlmErrorKind, MediaSource, ModelResponse, TextContent, ThinkingContent, ToolUse,
    UnknownContent, Usage, new_id,
};
use dive_provider::ProviderError;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::PROVIDER;
use crate::grounding::grounding_citations;
use crate::meta::{PART_KIND, part_metadata};
use crate::response::{Candidate, FunctionCall, Part, Response, UsageMetadata};

/// Converts `usageMetadata`. Gemini's `promptTokenCount` includes cached tokens and
/// `candidatesTokenCount` excludes thoughts; dive-core's buckets are disjoint input
/// buckets and output including reasoning, so: input = prompt + tool-use prompt − cached,
/// cache reads = cached, output = candidates + thoughts, reasoning = thoughts.
pub(crate) fn decode_usage(u: &UsageMetadata) -> Usage {
    let prompt = u.prompt_token_count + u.tool_use_prompt_token_count;
    Usage::new(
        prompt.saturating_sub(u.cached_content_token_count),
        u.candidates_token_count + u.thoughts_token_count,
    )
    .with_cache(u.cached_content_token_count, 0)
    .with_reasoning(u.thoughts_token_count)
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

/// A part this version does not model, kept verbatim.
fn unknown_part(raw: &RawValue) -> Content {
    let part: Map<String, Value> = serde_json::from_str(raw.get()).unwrap_or_default();
    let mut block = Map::new();
    block.insert("type".into(), json!(PART_KIND));
    block.insert("part".into(), Value::Object(part));
    Content::Unknown(UnknownContent::from_raw(block))
}

/// A named `functionCall` → a [`ToolUse`]; `args: false` leaves its input `{}` (a call whose
/// arguments are still streaming).
pub(crate) fn tool_use(call: FunctionCall<'_>, sig: Option<&str>, ids: &mut CallIds, args: bool) -> ToolUse {
    let api_id = call.id.filter(|s| !s.is_empty()).map(String::from);
    let name = call.name.map(String::from).unwrap_or_default();
    let input = call.args.filter(|a| args && a.is_object()).unwrap_or_else(|| json!({}));
    let has_id = api_id.is_some();
    let mut tool = ToolUse::new(api_id.unwrap_or_else(|| ids.next_id()), name, input);
    if sig.is_some() || has_id {
        tool.metadata = part_metadata(sig, has_id);
    }
    tool
}

/// One part (`raw`, read as `part`) → one content block.
pub(crate) fn decode_part(raw: &RawValue, part: Part<'_>, ids: &mut CallIds) -> Content {
    let sig = part.thought_signature.as_deref();
    let thought = part.is_thought();
    if let Some(call) = part.function_call {
        return Content::ToolUse(tool_use(call, sig, ids, true));
    }
    if let Some(text) = part.text {
        if thought {
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
        && let Some(blob) = part.inline_data
        && let (Some(mime), Some(data)) = (blob.mime_type, blob.data)
        && mime.starts_with("image/")
    {
        return Content::Image(ImageContent::new(MediaSource::base64(mime, data)));
    }
    unknown_part(raw)
}

/// A `functionCall` part without a function name, outside a streamed call: `Ok` for the
/// empty `{}` form that ends a call whose arguments were streamed (it is no call at all,
/// skipped), an error for one that carries anything else: such a call cannot be run or
/// answered, so it never reaches the engine.
pub(crate) fn unnamed_call(raw: &RawValue) -> Result<(), ProviderError> {
    let part: Value = serde_json::from_str(raw.get()).unwrap_or_default();
    let call = part.get("functionCall").cloned().unwrap_or_default();
    let fields: Vec<&str> =
        call.as_object().map(|m| m.keys().map(String::as_str).collect()).unwrap_or_default();
    let empty = call.as_object().is_some_and(|m| m.iter().all(|(k, v)| k == "willContinue" || v.is_null()));
    if empty {
        return Ok(());
    }
    Err(ProviderError::new(
        PROVIDER,
        LlmErrorKind::Decode,
        format!(
            "Gemini sent a function call without a function name (fields: {}); \
             it cannot be run, so the response was rejected: retry the request",
            fields.join(", ")
        ),
    ))
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

/// Decodes a whole `GenerateContentResponse` body.
///
/// # Errors
/// `Decode` when the body is not a response, or a function call has no name (see
/// [`unnamed_call`]).
pub(crate) fn decode_response(body: &[u8]) -> Result<ModelResponse, ProviderError> {
    let mut v: Response<'_> = serde_json::from_slice(body).map_err(|e| {
        ProviderError::new(PROVIDER, LlmErrorKind::Decode, format!("response is not JSON: {e}"))
    })?;
    let mut r = ModelResponse::default();
    let mut ids = CallIds::default();
    r.id = v.response_id.take().map(String::from).unwrap_or_default();
    ids.set_response_id(&r.id);
    r.model = v.model_version.take().map(String::from).unwrap_or_default();
    r.usage = v.usage_metadata.as_ref().map(decode_usage).unwrap_or_default();
    let candidate = v.take_candidate();
    let (stop_reason, stop_details) = finish(&candidate, v.prompt_feedback.as_ref());
    r.stop_reason = stop_reason;
    r.stop_details = stop_details;
    candidate_metadata(&candidate, &mut r.metadata);
    for raw in candidate.parts() {
        let part = Part::read(raw).map_err(|e| {
            ProviderError::new(PROVIDER, LlmErrorKind::Decode, format!("unreadable part: {e}"))
        })?;
        if part.function_call.as_ref().is_some_and(|c| !c.is_named()) {
            unnamed_call(raw)?;
            continue;
        }
        r.content.push(decode_part(raw, part, &mut ids));
    }
    if let Some(grounding) = r.metadata.get("groundingMetadata") {
        attach_grounding(grounding, &mut r.content);
    }
    Ok(r)
}

/// The lowercased finish reason (or prompt block reason) and the details that explain it
/// (`finishMessage`, `safetyRatings`, or the whole `promptFeedback` of a blocked prompt).
pub(crate) fn finish(candidate: &Candidate<'_>, feedback: Option<&Value>) -> (String, Option<Value>) {
    if let Some(reason) = candidate.finish_reason.as_deref() {
        let mut details = Map::new();
        for (key, v) in
            [("finishMessage", &candidate.finish_message), ("safetyRatings", &candidate.safety_ratings)]
        {
            if let Some(v) = v.as_ref().filter(|v| !v.is_null()) {
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
pub(crate) fn candidate_metadata(candidate: &Candidate<'_>, out: &mut Map<String, Value>) {
    for (key, v) in candidate.metadata() {
        // Streams repeat an empty `groundingMetadata: {}` on every chunk before the real one.
        if let Some(v) = v.filter(|v| !v.is_null() && v.as_object().is_none_or(|m| !m.is_empty())) {
            out.insert(key.into(), v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_response(v: Value) -> Result<ModelResponse, ProviderError> {
        super::decode_response(v.to_string().as_bytes())
    }

    #[test]
    fn usage_buckets_are_disjoint() {
        let u = decode_usage(
            &serde_json::from_value(json!({"promptTokenCount": 120, "cachedContentTokenCount": 100,
            "candidatesTokenCount": 7, "thoughtsTokenCount": 30, "totalTokenCount": 157}))
            .unwrap(),
        );
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
