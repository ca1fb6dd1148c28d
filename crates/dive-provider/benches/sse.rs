//! SSE framing alone, read sizes against each other: a 256 KB stream (small delta events and one
//! 40 KB event) and that 40 KB event by itself, fed one read per event, in 7-byte reads and in
//! 1-byte reads, through Dive's framer (`dive_provider::decode_sse`) and `sse-stream`.
//! (`eventsource-stream`, the framer before, was measured here up to commit 7c26f42; it has left
//! the workspace since.) Reads are borrowed slices, so only the
//! framers are timed; `dive, Bytes reads` adds the reference count a reqwest body's reads cost.
//! `sse-stream` yields its raw blocks; `sse-stream as decode_sse` adds what adopting it would
//! take (the items `decode_sse` yields, the standard's dispatch rules, Dive's end of body).
//! Figures: docs/benchmarks.md.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::result_large_err)]

use std::time::Duration;

use bytes::Bytes;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use futures::executor::block_on;

/// One Anthropic-style delta event of about 150 bytes.
fn small_event(i: usize) -> String {
    format!(
        "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"token {i:06} of the answer\"}}}}\n\n"
    )
}

/// A 40 KB event: a tool call's whole input in one `data:` line.
fn big_event() -> String {
    let input = "a".repeat(40 * 1024 - 100);
    format!(
        "event: content_block_start\ndata: {{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{{\"input\":\"{input}\"}}}}\n\n"
    )
}

/// The events of a 256 KB stream: small events with the 40 KB one in the middle.
fn stream_events() -> Vec<String> {
    let mut events = Vec::new();
    let mut total = big_event().len();
    let mut i = 0;
    while total < 256 * 1024 {
        let e = small_event(i);
        total += e.len();
        events.push(e);
        i += 1;
    }
    events.insert(events.len() / 2, big_event());
    events
}

/// The stream cut into reads: one per event, or every `size` bytes.
fn reads(events: &[String], size: Option<usize>) -> Vec<Bytes> {
    let whole = Bytes::from(events.concat());
    match size {
        None => {
            let mut start = 0;
            events
                .iter()
                .map(|e| {
                    start += e.len();
                    whole.slice(start - e.len()..start)
                })
                .collect()
        }
        Some(n) => (0..whole.len()).step_by(n).map(|i| whole.slice(i..(i + n).min(whole.len()))).collect(),
    }
}

/// Borrowed reads: the framers' own cost, without a reference count per read.
fn borrowed(reads: &[Bytes]) -> impl futures::Stream<Item = Result<&[u8], std::io::Error>> + '_ {
    futures::stream::iter(reads.iter().map(|r| Ok(r.as_ref())))
}

/// Events and data bytes, so nothing is optimised away and every candidate can be checked.
fn dive(reads: &[Bytes]) -> (usize, usize) {
    block_on(
        dive_provider::decode_sse("bench", borrowed(reads))
            .fold((0, 0), |(n, b), e| async move { (n + 1, b + e.unwrap().data.len()) }),
    )
}

/// Dive fed `Bytes` clones, as a reqwest body hands them (one reference count a read).
fn dive_bytes(reads: &[Bytes]) -> (usize, usize) {
    let input = futures::stream::iter(reads.iter().cloned().map(Ok::<_, std::io::Error>));
    block_on(
        dive_provider::decode_sse("bench", input)
            .fold((0, 0), |(n, b), e| async move { (n + 1, b + e.unwrap().data.len()) }),
    )
}

fn sse_stream(reads: &[Bytes]) -> (usize, usize) {
    block_on(sse_stream::SseByteStream::new(borrowed(reads)).fold((0, 0), |(n, b), e| async move {
        let data = e.unwrap().data.map_or(0, |d| d.len());
        (n + 1, b + data)
    }))
}

/// `sse-stream` as `decode_sse` would have to wrap it: the same items (`SseEvent` or
/// `ProviderError`), the last event ID kept, blocks without data dropped, and a blank line
/// after a clean end so the last event is dispatched as Dive's framer does.
fn sse_stream_as_decode_sse(reads: &[Bytes]) -> (usize, usize) {
    let input = borrowed(reads).chain(futures::stream::once(async { Ok(&b"\n\n"[..]) }));
    let mut last_id = String::new();
    let events = sse_stream::SseByteStream::new(input).filter_map(move |block| {
        let item = match block {
            Ok(block) => {
                if let Some(id) = block.id {
                    last_id = id;
                }
                block.data.map(|data| {
                    let mut e = dive_provider::SseEvent::default();
                    e.event =
                        block.event.filter(|t| !t.is_empty()).unwrap_or_else(|| "message".to_owned()).into();
                    e.data = data.into_bytes();
                    e.id.clone_from(&last_id);
                    e.retry = block.retry.map(Duration::from_millis);
                    Ok(e)
                })
            }
            Err(e) => Some(Err(dive_provider::ProviderError::new(
                "bench",
                dive_core::LlmErrorKind::Decode,
                format!("malformed SSE: {e}"),
            ))),
        };
        std::future::ready(item)
    });
    block_on(events.fold((0, 0), |(n, b), e: Result<_, dive_provider::ProviderError>| async move {
        (n + 1, b + e.unwrap().data.len())
    }))
}

type Candidate = fn(&[Bytes]) -> (usize, usize);

fn group(c: &mut Criterion, name: &str, events: &[String]) {
    let expected =
        (events.len(), events.iter().map(|e| e.find("\n\n").unwrap() - e.find("data: ").unwrap() - 6).sum());
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(events.iter().map(|e| e.len() as u64).sum()));
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    let candidates: [(&str, Candidate); 4] = [
        ("dive", dive),
        ("dive, Bytes reads", dive_bytes),
        ("sse-stream", sse_stream),
        ("sse-stream as decode_sse", sse_stream_as_decode_sse),
    ];
    for (read, size) in [("whole events", None), ("7-byte reads", Some(7)), ("1-byte reads", Some(1))] {
        let reads = reads(events, size);
        for (candidate, run) in candidates {
            assert_eq!(run(&reads), expected, "{candidate} on {name}, {read}");
            g.bench_with_input(BenchmarkId::new(candidate, read), &reads, |b, reads| b.iter(|| run(reads)));
        }
    }
    g.finish();
}

fn framing(c: &mut Criterion) {
    group(c, "sse 40 KB event", &[big_event()]);
    group(c, "sse 256 KB stream", &stream_events());
}

criterion_group!(benches, framing);
criterion_main!(benches);
