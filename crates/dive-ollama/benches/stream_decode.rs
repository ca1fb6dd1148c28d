//! Stream decoding cost: a long thinking + text + tool-call `/api/chat` NDJSON stream, fed in
//! 37-byte chunks (and one read per line) through `decode_ndjson_lines` and
//! `dive_ollama::line_events` (each line read straight into typed structs, with the `<think>`
//! splitter and accumulator: the provider's path), reported as bytes/s and lines/s.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dive_ollama::line_events;
use dive_provider::{decode_ndjson, decode_ndjson_lines};
use futures::StreamExt;
use serde_json::json;

const THINKING_LINES: usize = 3000;
const TEXT_LINES: usize = 3000;

/// The stream and its number of lines.
fn long_stream() -> (Vec<u8>, u64) {
    let mut s = String::new();
    let mut n = 0u64;
    let mut push = |v: serde_json::Value| {
        s.push_str(&v.to_string());
        s.push('\n');
        n += 1;
    };
    let line = |message: serde_json::Value| json!({"model": "qwen3:8b", "created_at": "2026-12-01T04:00:00.000000Z", "message": message, "done": false});
    for i in 0..THINKING_LINES {
        push(line(json!({"role": "assistant", "content": "", "thinking": format!(" step {i}: consider")})));
    }
    for i in 0..TEXT_LINES {
        push(line(json!({"role": "assistant", "content": format!(" word{i} and")})));
    }
    push(line(json!({"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "write_file", "arguments": {"path": "a.txt", "content": "x".repeat(4000)}}}]})));
    push(
        json!({"model": "qwen3:8b", "created_at": "2026-12-01T04:00:01Z", "message": {"role": "assistant", "content": ""},
        "done": true, "done_reason": "stop", "prompt_eval_count": 5000, "eval_count": 6100}),
    );
    (s.into_bytes(), n)
}

fn decode(chunks: &[Bytes]) -> u64 {
    // Bytes clones share the buffer; the provider's stream owns its input ('static).
    let owned: Vec<Bytes> = chunks.to_vec();
    let input = futures::stream::iter(owned.into_iter().map(Ok::<_, std::io::Error>));
    let lines = decode_ndjson_lines("ollama", input);
    let mut events = line_events(Box::pin(lines), None);
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
    let (bytes, lines) = long_stream();
    let chunks: Vec<Bytes> = bytes.chunks(37).map(Bytes::copy_from_slice).collect();
    let per_line: Vec<Bytes> = bytes.split_inclusive(|b| *b == b'\n').map(Bytes::copy_from_slice).collect();
    assert_eq!(decode(&chunks), decode(&per_line));

    let mut group = c.benchmark_group("ollama_stream_decode");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("bytes_37_byte_chunks", |b| b.iter(|| decode(black_box(&chunks))));
    group.throughput(Throughput::Elements(lines));
    group.bench_function("lines_37_byte_chunks", |b| b.iter(|| decode(black_box(&chunks))));
    group.bench_function("lines_one_read_per_line", |b| b.iter(|| decode(black_box(&per_line))));
    group.finish();

    let mut parts = c.benchmark_group("ollama_stream_parts");
    parts.throughput(Throughput::Elements(lines));
    parts.bench_function("ndjson_framing_only", |b| {
        b.iter(|| {
            let input = futures::stream::iter(chunks.iter().cloned().map(Ok::<_, std::io::Error>));
            futures::executor::block_on(decode_ndjson("ollama", input).fold(0u64, |n, v| async move {
                black_box(v.unwrap());
                n + 1
            }))
        })
    });
    parts.bench_function("ndjson_lines_framing_only", |b| {
        b.iter(|| {
            let input = futures::stream::iter(chunks.iter().cloned().map(Ok::<_, std::io::Error>));
            futures::executor::block_on(decode_ndjson_lines("ollama", input).fold(0u64, |n, v| async move {
                black_box(v.unwrap());
                n + 1
            }))
        })
    });
    parts.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
