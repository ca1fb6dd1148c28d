//! Stream decoding cost: a long `streamGenerateContent` stream (thought chunks, text chunks,
//! parallel function calls), fed in 37-byte chunks through `dive_provider::decode_sse`, the chunk
//! decoder and the accumulator, reported as bytes/s and chunks/s; and the cost of one text
//! chunk (`gemini_text_delta`, time per chunk): bytes → framing → mapping, one read per chunk,
//! with and without the `Events` adapter and its accumulator.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dive_google::{ChunkDecoder, events};
use futures::StreamExt;
use serde_json::json;

const THOUGHT_CHUNKS: usize = 2000;
const TEXT_CHUNKS: usize = 3000;

/// The stream and its number of SSE events (chunks).
fn long_stream() -> (Vec<u8>, u64) {
    let mut s = String::new();
    let mut n = 0u64;
    let mut push = |parts: serde_json::Value, finish: Option<&str>| {
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        if let Some(f) = finish {
            candidate["finishReason"] = json!(f);
        }
        let chunk = json!({"candidates": [candidate], "modelVersion": "gemini-3.5-flash", "responseId": "bench",
            "usageMetadata": {"promptTokenCount": 5000, "candidatesTokenCount": n, "totalTokenCount": 5000 + n}});
        s.push_str(&format!("data: {chunk}\n\n"));
        n += 1;
    };
    for i in 0..THOUGHT_CHUNKS {
        push(json!([{"text": format!(" step {i}: consider"), "thought": true}]), None);
    }
    push(
        json!([{"text": " done", "thought": true, "thoughtSignature": "EqQBCkYIBxgCKkDx".repeat(20)}]),
        None,
    );
    for i in 0..TEXT_CHUNKS {
        push(json!([{"text": format!(" word{i} and")}]), None);
    }
    let calls: Vec<_> = (0..4)
        .map(|i| json!({"functionCall": {"name": "write_file", "args": {"path": format!("f{i}.txt"), "content": "x".repeat(200)}}}))
        .collect();
    push(json!(calls), Some("STOP"));
    (s.into_bytes(), n)
}

fn decode(chunks: &[Bytes]) -> usize {
    // Bytes clones share the buffer; the provider's stream owns its input ('static).
    let owned: Vec<Bytes> = chunks.to_vec();
    let input = futures::stream::iter(owned.into_iter().map(Ok::<_, std::io::Error>));
    let sse = dive_provider::decode_sse("google", input);
    let mut events = events(Box::pin(sse), None);
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
    let (bytes, chunks_count) = long_stream();
    let chunks: Vec<Bytes> = bytes.chunks(37).map(Bytes::copy_from_slice).collect();
    // start + 2 block starts/stops + one delta a chunk + signature + 4 calls (start, stop) + delta + stop
    let expected = 1 + (THOUGHT_CHUNKS + 1) + 1 + 2 + TEXT_CHUNKS + 1 + 1 + 8 + 1 + 1;
    assert_eq!(decode(&chunks), expected);

    let mut group = c.benchmark_group("gemini_stream_decode");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("bytes", |b| b.iter(|| decode(black_box(&chunks))));
    group.throughput(Throughput::Elements(chunks_count));
    group.bench_function("chunks", |b| b.iter(|| decode(black_box(&chunks))));
    group.finish();

    // Where the time goes: the chunk decoder alone, on pre-framed payloads.
    let payloads: Vec<String> = String::from_utf8(bytes.clone())
        .unwrap()
        .split("\n\n")
        .filter_map(|e| e.strip_prefix("data: ").map(str::to_owned))
        .collect();
    let mut parts = c.benchmark_group("gemini_stream_parts");
    parts.throughput(Throughput::Elements(chunks_count));
    parts.bench_function("chunk_decoder_only", |b| {
        b.iter(|| {
            let mut d = ChunkDecoder::new();
            payloads.iter().map(|p| d.chunk(black_box(p)).unwrap().len()).sum::<usize>()
        })
    });
    parts.finish();
}

const DELTAS: u64 = 2000;

/// A text answer of `DELTAS` chunks of one text part each, in the API's byte shape (its key
/// order and spacing; short tokens, one in ten with JSON escapes), one read per chunk.
fn text_stream() -> Vec<Bytes> {
    (0..DELTAS)
        .map(|i| {
            let text = if i % 10 == 9 { format!(r#"\"{i}\"\n"#) } else { format!(" word{i}") };
            let finish = if i + 1 == DELTAS { r#","finishReason": "STOP""# } else { "" };
            format!(
                "data: {{\"candidates\": [{{\"content\": {{\"parts\": [{{\"text\": \"{text}\"}}],\"role\": \"model\"}}{finish},\"index\": 0}}],\"usageMetadata\": {{\"promptTokenCount\": 17,\"candidatesTokenCount\": {i},\"totalTokenCount\": {}}},\"modelVersion\": \"gemini-3.5-flash\",\"responseId\": \"ZWt0aGVyZS1yZXNwb25zZQ\"}}\n\n",
                17 + i
            )
        })
        // Static reads: cloning and dropping one touches no reference count, so the time per
        // chunk is the decoder's (a body's reads are handed over once; the clone an iteration
        // makes is the benchmark's own).
        .map(|r| Bytes::from_static(Box::leak(r.into_bytes().into_boxed_slice())))
        .collect()
}

/// Framing and the chunk decoder alone (no `Events` adapter, no accumulator): the events out.
fn frame_and_map(reads: &[Bytes]) -> usize {
    use dive_provider::StreamMapper;
    let input = futures::stream::iter(reads.iter().cloned().map(Ok::<_, std::io::Error>));
    let mut sse = dive_provider::decode_sse("google", input);
    let mut decoder = ChunkDecoder::new();
    let mut out = std::collections::VecDeque::new();
    futures::executor::block_on(async {
        let mut n = 0;
        while let Some(e) = sse.next().await {
            // The mapper as the adapter calls it: the frame's last event returned.
            let last = decoder.map_last(&mut e.unwrap(), &mut out).unwrap();
            n += out.len() + usize::from(last.is_some());
            drop(black_box(last));
            out.drain(..).for_each(|e| drop(black_box(e)));
        }
        decoder.end(&mut out).unwrap();
        n + out.len()
    })
}

fn text_delta(c: &mut Criterion) {
    let reads = text_stream();
    let events = frame_and_map(&reads);
    assert!(events > DELTAS as usize);
    assert_eq!(decode(&reads), events);
    let mut g = c.benchmark_group("gemini_text_delta");
    g.throughput(Throughput::Elements(DELTAS));
    g.bench_function("full_path", |b| b.iter(|| decode(black_box(&reads))));
    g.bench_function("framing_and_mapping", |b| b.iter(|| frame_and_map(black_box(&reads))));
    g.finish();
}

criterion_group!(benches, bench, text_delta);
criterion_main!(benches);
