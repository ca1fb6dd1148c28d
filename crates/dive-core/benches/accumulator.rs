//! Throughput of `ResponseAccumulator` over a 10,000-delta stream (text and tool-input deltas).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dive_core::{
    Content, ContentDelta, MessageDelta, ModelResponse, ResponseAccumulator, StreamEvent, TextContent,
    ToolUse, Usage,
};
use std::hint::black_box;

const DELTAS: usize = 10_000;

fn stream() -> Vec<StreamEvent> {
    let mut events = vec![StreamEvent::message_start(ModelResponse::default())];
    events.push(StreamEvent::block_start(0, Content::Text(TextContent::new(""))));
    for i in 0..DELTAS / 2 {
        events.push(StreamEvent::ContentBlockDelta {
            index: 0,
            delta: ContentDelta::TextDelta { text: format!("token{i} ") },
        });
    }
    events.push(StreamEvent::ContentBlockStop { index: 0 });
    events.push(StreamEvent::block_start(
        1,
        Content::ToolUse(ToolUse::new("call_1", "write", serde_json::json!({}))),
    ));
    events.push(StreamEvent::ContentBlockDelta {
        index: 1,
        delta: ContentDelta::InputJsonDelta { partial_json: "{\"text\":\"".into() },
    });
    for _ in 0..DELTAS / 2 - 2 {
        events.push(StreamEvent::ContentBlockDelta {
            index: 1,
            delta: ContentDelta::InputJsonDelta { partial_json: "abc ".into() },
        });
    }
    events.push(StreamEvent::ContentBlockDelta {
        index: 1,
        delta: ContentDelta::InputJsonDelta { partial_json: "\"}".into() },
    });
    events.push(StreamEvent::ContentBlockStop { index: 1 });
    events.push(StreamEvent::message_delta(
        MessageDelta::stop("tool_use"),
        Some(Usage::new(10, DELTAS as u64)),
    ));
    events.push(StreamEvent::MessageStop);
    events
}

fn bench(c: &mut Criterion) {
    let events = stream();
    let mut group = c.benchmark_group("accumulator");
    group.throughput(Throughput::Elements(events.len() as u64));
    group.bench_function("10k_deltas", |b| {
        b.iter(|| {
            let mut acc = ResponseAccumulator::new();
            for e in &events {
                let _ = acc.add(black_box(e));
            }
            black_box(acc.into_response())
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
