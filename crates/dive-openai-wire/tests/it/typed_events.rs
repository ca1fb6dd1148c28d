//! The typed stream decoding stays as lenient as reading JSON values was: a field of a shape
//! the mapper does not read is skipped, never a decode error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;

use dive_core::StreamEvent;
use dive_openai_wire::Dialect;
use dive_openai_wire::chat::ChatMapper;
use dive_openai_wire::responses::ResponsesMapper;
use dive_provider::{SseEvent, StreamMapper};

fn event(name: &str, data: &str) -> SseEvent {
    let mut e = SseEvent::default();
    e.event = name.into();
    e.data = data.into();
    e
}

#[test]
fn a_responses_event_with_a_non_text_delta_is_skipped() {
    let mut mapper = ResponsesMapper::new("openai");
    let mut out = VecDeque::new();
    let odd = r#"{"type":"response.future_thing.delta","output_index":0,"delta":{"bytes":[1,2]}}"#;
    mapper.map(event("response.future_thing.delta", odd), &mut out).unwrap();
    assert!(out.is_empty(), "{out:?}");
}

#[test]
fn a_chat_chunk_with_content_of_another_shape_is_skipped_and_text_still_reads() {
    let mut mapper = ChatMapper::new("openai", Dialect::openai());
    let mut out = VecDeque::new();
    let odd = r#"{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":7,"tool_calls":null}}]}"#;
    mapper.map(event("", odd), &mut out).unwrap();
    let text = r#"{"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"Hi \u00e9"},"finish_reason":null}]}"#;
    mapper.map(event("", text), &mut out).unwrap();
    let deltas: Vec<_> = out
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ContentBlockDelta { delta: dive_core::ContentDelta::TextDelta { text }, .. } => {
                Some(text.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["Hi é"]);
    assert!(matches!(out[0], StreamEvent::MessageStart { .. }));
}
