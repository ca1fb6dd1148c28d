//! Recorded vendor streams (`tests/fixtures/recorded/`, sources in its README): what the
//! decoders make of them, with every expected value read from the stream itself or from
//! OpenAI's documentation, never from our decoder's output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::decode_fixture;
use dive_core::LlmErrorKind;

#[tokio::test]
async fn in_stream_insufficient_quota_is_a_terminal_quota_error() {
    // The stream is HTTP 200; the error arrives as `{"type":"error","error":{"type":
    // "insufficient_quota","code":"insufficient_quota","message":…}}` after two events.
    let (_, error) = decode_fixture("recorded/responses_insufficient_quota.sse").await;
    let error = error.expect("the error event must end the stream with an error");
    assert_eq!(error.kind, LlmErrorKind::QuotaExhausted);
    assert_eq!(error.error_type.as_deref(), Some("insufficient_quota"));
    assert!(error.message.starts_with("You exceeded your current quota"), "{}", error.message);
    assert!(!error.kind.is_retryable(), "a quota error is terminal");
}

#[tokio::test]
async fn flat_error_event_and_failed_response_are_typed() {
    // The flat shape of older documents, and `response.failed` carrying `response.error`
    // as `{code, message}` (the shape of the recorded stream's last event).
    use dive_provider::SseEvent;
    use std::collections::VecDeque;
    let mut mapper = dive_openai::responses::ResponsesMapper::new("openai");
    let mut flat = SseEvent::default();
    flat.event = "error".into();
    flat.data = r#"{"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null}"#.into();
    let e = dive_provider::StreamMapper::map(&mut mapper, flat, &mut VecDeque::new()).unwrap_err();
    assert_eq!(
        (e.kind, e.error_type.as_deref(), e.message.as_str()),
        (LlmErrorKind::RateLimited, Some("rate_limit_exceeded"), "slow down")
    );

    let recorded =
        std::fs::read_to_string(common::fixture_path("recorded/responses_insufficient_quota.sse")).unwrap();
    let failed = recorded.split("\n\n").find(|e| e.starts_with("event: response.failed")).unwrap();
    let mut event = SseEvent::default();
    event.event = "response.failed".into();
    event.data = failed.lines().find_map(|l| l.strip_prefix("data: ")).unwrap().into();
    let mut mapper = dive_openai::responses::ResponsesMapper::new("openai");
    let e = dive_provider::StreamMapper::map(&mut mapper, event, &mut VecDeque::new()).unwrap_err();
    assert_eq!((e.kind, e.error_type.as_deref()), (LlmErrorKind::QuotaExhausted, Some("insufficient_quota")));
}

#[tokio::test]
async fn responses_usage_comes_from_response_completed() {
    // usage: {"input_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens":10,
    // "output_tokens_details":{"reasoning_tokens":0}}; the text is "Hello, World!".
    let (acc, error) = decode_fixture("recorded/responses_hello_world.sse").await;
    assert!(error.is_none(), "{error:?}");
    let r = acc.into_response();
    assert_eq!(r.text_content(), "Hello, World!");
    assert_eq!((r.usage.input_tokens, r.usage.output_tokens, r.usage.cache_read_input_tokens), (12, 10, 0));
    assert_eq!(r.id, "resp_68d7eff889908196bde536de7b601b7d07152cb8c6ac9072");
}

#[tokio::test]
async fn chat_usage_comes_from_the_final_usage_chunk() {
    // With `stream_options.include_usage` every chunk carries `"usage": null` and one last chunk
    // with empty `choices` carries the whole request's usage (14 prompt, 3 completion).
    let (acc, error) = decode_fixture("recorded/chat_usage_final_chunk.sse").await;
    assert!(error.is_none(), "{error:?}");
    let r = acc.into_response();
    assert_eq!(r.text_content(), "我是助手。");
    assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (14, 3));
    assert_eq!(r.stop_reason, "stop");
}
