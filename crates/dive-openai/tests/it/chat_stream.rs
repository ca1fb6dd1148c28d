//! Chat Completions streams decoded from fixtures: text, parallel tool calls, usage with
//! cached and reasoning tokens, refusals; `[DONE]` without a finish reason is a normal end,
//! a bare EOF is an interruption.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use dive_core::{Content, EventStream, LlmError, LlmErrorKind, ModelResponse, StopKind};
use dive_openai::Dialect;
use dive_openai::chat::{ChatEvents, ChatMapper};
use futures::StreamExt;
use serde_json::json;

/// The response of a stream, or the error that ended it with what the stream kept.
async fn run(sse: &str) -> Result<ModelResponse, (LlmError, EventStream)> {
    let chunks = vec![Ok::<_, std::io::Error>(Bytes::from(sse.to_owned()))];
    let events = dive_provider::decode_sse("openai", futures::stream::iter(chunks));
    let pricing = dive_openai::model_info("gpt-5.5").and_then(|m| m.pricing.clone());
    let mut stream =
        ChatEvents::new("openai", Box::pin(events), ChatMapper::new("openai", Dialect::openai()), pricing)
            .into_event_stream();
    while let Some(event) = stream.next().await {
        if let Err(e) = event {
            return Err((e, stream));
        }
    }
    assert!(stream.is_complete());
    Ok(stream.into_response())
}

#[tokio::test]
async fn text_and_parallel_tool_calls() {
    let r = run(include_str!("../fixtures/chat_text_parallel_tools.sse")).await.unwrap();
    assert_eq!(r.id, "chatcmpl-7");
    assert_eq!(r.text_content(), "Let me check the weather — in both cities.");
    let calls: Vec<_> = r.tool_uses().map(|c| (c.id.as_str(), c.input.clone().into_value())).collect();
    assert_eq!(
        calls,
        vec![("call_Paris01", json!({"city": "Paris"})), ("call_Oslo02", json!({"city": "Oslo"}))]
    );
    assert_eq!(r.stop_kind(), StopKind::ToolUse);
    assert_eq!(
        (
            r.usage.input_tokens,
            r.usage.cache_read_input_tokens,
            r.usage.output_tokens,
            r.usage.reasoning_tokens
        ),
        (176, 1024, 96, 64)
    );
    assert_eq!(r.usage.service_tier.as_deref(), Some("default"));
    let cost = r.usage.cost.unwrap();
    let expected = (176.0 * 1.25 + 1024.0 * 0.125 + 96.0 * 10.0) / 1e6;
    assert!((cost.total - expected).abs() < 1e-12, "{cost:?}");
}

#[tokio::test]
async fn refusal_is_a_refusal_block() {
    let r = run(include_str!("../fixtures/chat_refusal.sse")).await.unwrap();
    assert!(matches!(&r.content[..], [Content::Refusal(x)] if x.refusal == "I can't help with that."));
}

#[tokio::test]
async fn done_without_finish_reason_is_a_normal_end() {
    let sse = "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\ndata: [DONE]\n\n";
    let r = run(sse).await.unwrap();
    assert_eq!((r.text_content().as_str(), r.stop_kind()), ("ok", StopKind::Finished));
}

#[tokio::test]
async fn bare_eof_is_an_interruption_with_the_finished_part() {
    let sse = "data: {\"id\":\"c\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"partial\"},\"finish_reason\":\"stop\"}]}\n\n";
    let (err, kept) = run(sse).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::StreamInterrupted);
    assert!(kept.has_started());
    assert_eq!(kept.into_partial_response(true).text_content(), "partial", "the text so far, on request");
}

#[tokio::test]
async fn error_chunk_is_typed() {
    let sse =
        "data: {\"error\":{\"type\":\"server_error\",\"code\":\"server_error\",\"message\":\"boom\"}}\n\n";
    let (err, _) = run(sse).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Server);
}

#[tokio::test]
async fn in_stream_insufficient_quota_is_a_terminal_quota_error() {
    // The shape OpenAI-compatible servers send mid-stream, with a 200 status already given.
    let sse = "data: {\"error\":{\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\",\"message\":\"You exceeded your current quota, please check your plan and billing details.\"}}\n\n";
    let (err, _) = run(sse).await.unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::QuotaExhausted);
    assert!(err.to_string().contains("exceeded your current quota"), "{err}");
}
