//! The `Events` adapter over a mapper that returns a frame's last event
//! (`StreamMapper::map_last`) instead of queueing it: the events come out in the frame's order,
//! are priced and checked as queued ones are, and the last one still waits for the body's end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;

use dive_core::{
    Content, ContentDelta, LlmErrorKind, MessageDelta, ModelResponse, Pricing, StreamEvent, Usage,
};
use dive_provider::{Events, ProviderError, StreamMapper};
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};

/// Frames (JSON strings) name what to make: `text:<t>` (a delta, its block opened first), `usage`, `stop`.
#[derive(Debug, Default)]
struct LastReturning {
    open: bool,
}

impl StreamMapper for LastReturning {
    type Frame = Value;

    fn map(&mut self, frame: Value, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        dive_provider::map_by_last(self, frame, out)
    }

    fn map_last(
        &mut self,
        frame: &mut Value,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Option<StreamEvent>, ProviderError> {
        let frame = frame.as_str().unwrap_or_default();
        if let Some(text) = frame.strip_prefix("text:") {
            if !self.open {
                self.open = true;
                out.push_back(StreamEvent::message_start(ModelResponse::default()));
                out.push_back(StreamEvent::block_start(0, Content::text("")));
            }
            let delta = ContentDelta::TextDelta { text: text.to_owned() };
            return Ok(Some(StreamEvent::ContentBlockDelta { index: 0, delta }));
        }
        Ok(match frame {
            "usage" => {
                let mut delta = MessageDelta::default();
                delta.stop_reason = Some("stop".into());
                out.push_back(StreamEvent::ContentBlockStop { index: 0 });
                Some(StreamEvent::message_delta(delta, Some(Usage::new(1_000_000, 0))))
            }
            "stop" => Some(StreamEvent::MessageStop),
            _ => None,
        })
    }
}

type Body = mpsc::UnboundedSender<Result<Value, ProviderError>>;

fn events() -> (Body, Events<LastReturning>) {
    let (tx, rx) = mpsc::unbounded();
    let events = Events::new("toy", Box::pin(rx), LastReturning::default(), Some(Pricing::new(3.0, 15.0)));
    (tx, events)
}

fn kind(event: &StreamEvent) -> &'static str {
    match event {
        StreamEvent::MessageStart { .. } => "message_start",
        StreamEvent::ContentBlockStart { .. } => "block_start",
        StreamEvent::ContentBlockDelta { .. } => "delta",
        StreamEvent::ContentBlockStop { .. } => "block_stop",
        StreamEvent::MessageDelta { .. } => "message_delta",
        StreamEvent::MessageStop => "message_stop",
        _ => "other",
    }
}

#[tokio::test]
async fn returned_events_follow_the_queued_ones_priced_and_the_last_waits_for_the_body() {
    let (mut body, mut events) = events();
    for frame in ["text:Hel", "text:lo", "ping", "usage", "stop"] {
        body.send(Ok(json!(frame))).await.unwrap();
    }
    let mut seen = Vec::new();
    let mut cost = None;
    for _ in 0..6 {
        let event = events.next().await.unwrap().unwrap();
        if let StreamEvent::MessageDelta { usage: Some(usage), .. } = &event {
            cost = usage.cost.as_ref().map(|c| c.total);
        }
        if let StreamEvent::ContentBlockDelta { delta: ContentDelta::TextDelta { text }, .. } = &event {
            seen.push(text.clone());
        }
        seen.push(kind(&event).to_owned());
    }
    assert_eq!(
        seen,
        ["message_start", "block_start", "Hel", "delta", "lo", "delta", "block_stop", "message_delta"]
    );
    assert_eq!(cost, Some(3.0), "a returned message delta is priced like a queued one");
    // The returned `message_stop` is held while the body is still open …
    assert!(futures::poll!(events.next()).is_pending());
    drop(body);
    // … and handed over once it ends, the stream whole.
    assert_eq!(kind(&events.next().await.unwrap().unwrap()), "message_stop");
    assert!(events.next().await.is_none());
}

#[tokio::test]
async fn a_break_after_a_returned_delta_is_an_interrupted_stream() {
    let (mut body, mut events) = events();
    body.send(Ok(json!("text:partial"))).await.unwrap();
    for _ in 0..3 {
        events.next().await.unwrap().unwrap();
    }
    body.send(Err(ProviderError::new("toy", LlmErrorKind::Network, "connection reset"))).await.unwrap();
    let error = events.next().await.unwrap().unwrap_err();
    assert_eq!(error.kind, LlmErrorKind::StreamInterrupted);
    assert!(events.next().await.is_none());
}

#[tokio::test]
async fn a_body_that_ends_without_its_last_event_is_interrupted() {
    let (mut body, mut events) = events();
    body.send(Ok(json!("text:cut"))).await.unwrap();
    drop(body);
    let mut kinds = Vec::new();
    let error = loop {
        match events.next().await.unwrap() {
            Ok(event) => kinds.push(kind(&event)),
            Err(e) => break e,
        }
    };
    assert_eq!(kinds, ["message_start", "block_start", "delta"]);
    assert_eq!(error.kind, LlmErrorKind::StreamInterrupted);
}
