//! Stream decoding cost: a long thinking + text + tool-use Messages API stream, fed in
//! 37-byte chunks through `dive_provider::decode_sse` and the Anthropic event mapper (with its
//! accumulator), reported as bytes/s and events/s; and the cost of one text delta
//! (`anthropic_text_delta`, time per delta): bytes → framing → mapping, one read per event,
//! with and without the `Events` adapter and its accumulator.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use serde_json::json;

const THINKING_DELTAS: usize = 3000;
const TEXT_DELTAS: usize = 3000;
const JSON_DELTAS: usize = 1000;

fn event(kind: &str, data: serde_json::Value) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

/// The stream and its number of SSE events.
fn long_stream() -> (Vec<u8>, u64) {
    let mut s = String::new();
    let mut n = 0u64;
    let mut push = |kind: &str, data: serde_json::Value| {
        s.push_str(&event(kind, data));
        n += 1;
    };
    push(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_bench", "type": "message",
        "role": "assistant", "model": "claude-sonnet-5-5", "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 5000, "output_tokens": 1}}}),
    );
    push(
        "content_block_start",
        json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
    );
    for i in 0..THINKING_DELTAS {
        push(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "thinking_delta", "thinking": format!(" step {i}: consider")}}),
        );
    }
    push(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 0,
        "delta": {"type": "signature_delta", "signature": "EqQBCkYIBxgCKkDx".repeat(20)}}),
    );
    push("content_block_stop", json!({"type": "content_block_stop", "index": 0}));
    push("ping", json!({"type": "ping"}));
    push(
        "content_block_start",
        json!({"type": "content_block_start", "index": 1,
        "content_block": {"type": "text", "text": ""}}),
    );
    for i in 0..TEXT_DELTAS {
        push(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1,
            "delta": {"type": "text_delta", "text": format!(" word{i} and")}}),
        );
    }
    push("content_block_stop", json!({"type": "content_block_stop", "index": 1}));
    push(
        "content_block_start",
        json!({"type": "content_block_start", "index": 2,
        "content_block": {"type": "tool_use", "id": "toolu_bench", "name": "write_file", "input": {}}}),
    );
    push(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 2,
        "delta": {"type": "input_json_delta", "partial_json": "{\"content\": \""}}),
    );
    for i in 0..JSON_DELTAS {
        push(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": format!("line {i}\\n")}}),
        );
    }
    push(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": 2,
        "delta": {"type": "input_json_delta", "partial_json": "\"}"}}),
    );
    push("content_block_stop", json!({"type": "content_block_stop", "index": 2}));
    push(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null},
        "usage": {"output_tokens": 12000}}),
    );
    push("message_stop", json!({"type": "message_stop"}));
    (s.into_bytes(), n)
}

fn decode(chunks: &[Bytes]) -> u64 {
    // Bytes clones share the buffer; the provider's stream owns its input ('static).
    let owned: Vec<Bytes> = chunks.to_vec();
    let input = futures::stream::iter(owned.into_iter().map(Ok::<_, std::io::Error>));
    let sse = dive_provider::decode_sse("anthropic", input);
    let mut events = dive_anthropic::events(Box::pin(sse), None);
    futures::executor::block_on(async {
        let mut n = 0;
        while let Some(e) = events.next().await {
            black_box(e.unwrap());
            n += 1;
        }
        n
    })
}

fn bench(c: &mut Criterion) {
    let (bytes, events) = long_stream();
    let chunks: Vec<Bytes> = bytes.chunks(37).map(Bytes::copy_from_slice).collect();
    assert_eq!(decode(&chunks), events, "every event, pings included, comes out");

    let mut group = c.benchmark_group("anthropic_stream_decode");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("bytes", |b| b.iter(|| decode(black_box(&chunks))));
    group.throughput(Throughput::Elements(events));
    group.bench_function("events", |b| b.iter(|| decode(black_box(&chunks))));
    // A realistic network shape at 100 tokens/s: each event arrives in its own read.
    let per_event: Vec<Bytes> = bytes
        .split_inclusive(|b| *b == b'\n')
        .map(Bytes::copy_from_slice)
        .collect::<Vec<_>>()
        .chunks(3)
        .map(|c| c.concat().into())
        .collect();
    assert_eq!(decode(&per_event), events);
    group.bench_function("events_one_read_per_event", |b| b.iter(|| decode(black_box(&per_event))));
    group.finish();

    // Where the time goes: SSE framing alone, and event mapping alone.
    let mut parts = c.benchmark_group("anthropic_stream_parts");
    parts.throughput(Throughput::Elements(events));
    parts.bench_function("sse_framing_only", |b| {
        b.iter(|| {
            let input = futures::stream::iter(chunks.iter().cloned().map(Ok::<_, std::io::Error>));
            let sse = dive_provider::decode_sse("anthropic", input);
            futures::executor::block_on(sse.fold(0u64, |n, e| async move {
                black_box(e.unwrap());
                n + 1
            }))
        })
    });
    let framed: Vec<dive_provider::SseEvent> = futures::executor::block_on(
        dive_provider::decode_sse(
            "anthropic",
            futures::stream::iter(chunks.iter().cloned().map(Ok::<_, std::io::Error>)),
        )
        .map(Result::unwrap)
        .collect(),
    );
    parts.bench_function("event_mapping_only", |b| {
        b.iter(|| {
            for e in &framed {
                black_box(dive_anthropic::map_event(e).unwrap());
            }
        })
    });
    parts.finish();
}

const DELTAS: u64 = 2000;

/// A text answer of `DELTAS` text deltas in the API's byte shape (short tokens, one in ten
/// with JSON escapes), one read per event as a server writes them.
fn text_stream() -> Vec<Bytes> {
    let mut reads = vec![
        event(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_bench", "type": "message",
            "role": "assistant", "model": "claude-sonnet-5-5", "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": {"input_tokens": 5000, "output_tokens": 1}}}),
        ),
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
    ];
    for i in 0..DELTAS {
        // The wire's own key order (`json!` would sort the keys).
        let text = if i % 10 == 9 { format!(r#"\"{i}\"\n"#) } else { format!(" word{i}") };
        reads.push(format!(
            "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"{text}\"}}}}\n\n"
        ));
    }
    reads.push(event("content_block_stop", json!({"type": "content_block_stop", "index": 0})));
    reads.push(event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null},
        "usage": {"output_tokens": 2000}}),
    ));
    reads.push(event("message_stop", json!({"type": "message_stop"})));
    // Static reads: cloning and dropping one touches no reference count, so the time per delta
    // is the decoder's (a body's reads are handed over once; the clone an iteration makes is
    // the benchmark's own).
    reads.into_iter().map(|r| Bytes::from_static(Box::leak(r.into_bytes().into_boxed_slice()))).collect()
}

/// Framing and the mapper alone (no `Events` adapter, no accumulator): the events out.
fn frame_and_map(reads: &[Bytes]) -> usize {
    use dive_provider::StreamMapper;
    let input = futures::stream::iter(reads.iter().cloned().map(Ok::<_, std::io::Error>));
    let mut sse = dive_provider::decode_sse("anthropic", input);
    let mut mapper = dive_anthropic::MessagesMapper::new();
    let mut out = std::collections::VecDeque::new();
    futures::executor::block_on(async {
        let mut n = 0;
        while let Some(e) = sse.next().await {
            // The mapper as the adapter calls it: the frame's last event returned.
            let last = mapper.map_last(&mut e.unwrap(), &mut out).unwrap();
            n += out.len() + usize::from(last.is_some());
            drop(black_box(last));
            out.drain(..).for_each(|e| drop(black_box(e)));
        }
        n
    })
}

fn text_delta(c: &mut Criterion) {
    let reads = text_stream();
    let events = DELTAS as usize + 5;
    assert_eq!(decode(&reads), events as u64);
    assert_eq!(frame_and_map(&reads), events);
    let mut g = c.benchmark_group("anthropic_text_delta");
    g.throughput(Throughput::Elements(DELTAS));
    g.bench_function("full_path", |b| b.iter(|| decode(black_box(&reads))));
    g.bench_function("framing_and_mapping", |b| b.iter(|| frame_and_map(black_box(&reads))));
    g.finish();
}

criterion_group!(benches, bench, text_delta);
criterion_main!(benches);
