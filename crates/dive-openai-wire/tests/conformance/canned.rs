//! The canned replies of both OpenAI wire formats for dive-test's provider conformance suite,
//! shared by every OpenAI-format vendor crate's conformance test (each includes this file
//! with `#[path]`), so the bytes are written once.
#![allow(dead_code, clippy::unwrap_used)]

use std::time::Duration;

use dive_core::LlmErrorKind;
use dive_provider::{HttpProvider, RetryPolicy, WireFormat};
use dive_test::provider::{CannedReplies, ProviderReport, ProviderSetup, provider_conformance};
use serde_json::json;

/// Runs the suite on the provider `HttpProvider<W>` (its vendor's defaults, `model`), with the
/// canned replies of its wire format; priced when the vendor's catalog prices `model`.
pub async fn run<W: WireFormat + Default>(
    model: &str,
    canned: fn(&str, bool) -> CannedReplies,
) -> ProviderReport {
    let make = |s: &ProviderSetup<'_>| {
        let retry = RetryPolicy::default().with_base_delay(Duration::from_millis(2)).with_jitter(0.0);
        HttpProvider::<W>::builder()
            .api_key(s.api_key)
            .base_url(s.base_url)
            .model(model)
            .retry_policy(retry)
            .build()
            .unwrap()
    };
    let priced = W::default().vendor().model_info(model).is_some_and(|m| m.pricing.is_some());
    provider_conformance(make, canned(model, priced)).await
}

/// A Chat Completions reply and stream for `model` ("done", 1000 in / 100 out).
pub fn chat(model: &str, priced: bool) -> CannedReplies {
    let reply = json!({"id": "chatcmpl-c", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}});
    let chunk = |delta: serde_json::Value, finish: Option<&str>| {
        json!({"id": "chatcmpl-c", "object": "chat.completion.chunk", "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let usage = json!({"id": "chatcmpl-c", "object": "chat.completion.chunk", "model": model, "choices": [],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}});
    let frames = [
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"content": "do"}), None),
        chunk(json!({"content": "ne"}), None),
        chunk(json!({}), Some("stop")),
        usage,
    ];
    let mut stream: String = frames.iter().map(|f| format!("data: {f}\n\n")).collect();
    stream.push_str("data: [DONE]\n\n");
    let mut c = CannedReplies::new(serde_json::to_vec(&reply).unwrap(), "done", (1000, 100));
    c.stream = CannedReplies::sse_frames(&stream);
    c.first_event_frames = 1;
    c.stream_error = (
        br#"data: {"error":{"type":"rate_limit_exceeded","message":"slow down"}}

"#
        .to_vec(),
        LlmErrorKind::RateLimited,
    );
    c.priced = priced;
    c
}

/// A Responses API reply and stream for `model` ("done", 1000 in / 100 out).
pub fn responses(model: &str, priced: bool) -> CannedReplies {
    let usage = json!({"input_tokens": 1000, "output_tokens": 100, "total_tokens": 1100});
    let message = json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
        "content": [{"type": "output_text", "text": "done", "annotations": []}]});
    let reply = json!({"id": "resp_1", "object": "response", "model": model, "status": "completed",
        "output": [message], "usage": usage});
    let events = [
        (
            "response.created",
            json!({"type": "response.created", "response": {"id": "resp_1", "model": model, "status": "in_progress", "output": []}}),
        ),
        (
            "response.output_item.added",
            json!({"type": "response.output_item.added", "output_index": 0,
            "item": {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}}),
        ),
        (
            "response.content_part.added",
            json!({"type": "response.content_part.added", "output_index": 0, "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []}}),
        ),
        (
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "do"}),
        ),
        (
            "response.output_text.delta",
            json!({"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "ne"}),
        ),
        (
            "response.content_part.done",
            json!({"type": "response.content_part.done", "output_index": 0, "content_index": 0}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": message}),
        ),
        ("response.completed", json!({"type": "response.completed", "response": reply})),
    ];
    let stream: String =
        events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect();
    let mut c = CannedReplies::new(serde_json::to_vec(&reply).unwrap(), "done", (1000, 100));
    c.stream = CannedReplies::sse_frames(&stream);
    c.first_event_frames = 1;
    c.stream_error = (
        br#"event: error
data: {"type":"error","code":"rate_limit_exceeded","message":"slow down"}

"#
        .to_vec(),
        LlmErrorKind::RateLimited,
    );
    c.priced = priced;
    c
}
