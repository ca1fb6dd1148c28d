//! Streamed usage: each `usageMetadata` is a whole snapshot of the call so far (the Gemini API
//! reference's `UsageMetadata`: `promptTokenCount` includes cached tokens, `candidatesTokenCount`
//! excludes thoughts). The last snapshot is the call's usage even where it is lower.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{ResponseAccumulator, Usage};
use dive_google::ChunkDecoder;
use serde_json::Value;

fn decode(chunks: &[String]) -> dive_core::ModelResponse {
    let mut decoder = ChunkDecoder::new();
    let mut acc = ResponseAccumulator::new();
    for c in chunks {
        for event in decoder.chunk(c).unwrap() {
            acc.add(&event).unwrap();
        }
    }
    acc.into_response()
}

#[test]
fn a_lower_prompt_count_in_the_last_chunk_is_the_call_usage() {
    // Gemini revises promptTokenCount between chunks; the last chunk's count is the one billed.
    let chunks = [
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]}}],"usageMetadata":{"promptTokenCount":120,"candidatesTokenCount":2,"totalTokenCount":122},"responseId":"r1","modelVersion":"gemini-3-flash"}"#,
        r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"lo"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":4,"totalTokenCount":104},"responseId":"r1","modelVersion":"gemini-3-flash"}"#,
    ]
    .map(str::to_owned);
    let r = decode(&chunks);
    assert_eq!(r.usage, Usage::new(100, 4));
}

#[test]
fn recorded_stream_takes_the_counts_of_its_final_chunk() {
    // vercel/ai packages/google/src/__fixtures__/google-stream-tool-call-arguments.chunks.txt:
    // every chunk but the last carries `usageMetadata: {"trafficType": "ON_DEMAND"}` (no counts);
    // the last one has promptTokenCount 26, candidatesTokenCount 23, thoughtsTokenCount 132.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/recorded/vercel-google-stream-tool-call-arguments.chunks.txt"
    );
    let chunks: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| serde_json::from_str::<Value>(l).is_ok())
        .map(str::to_owned)
        .collect();
    let r = decode(&chunks);
    assert_eq!((r.usage.input_tokens, r.usage.output_tokens, r.usage.reasoning_tokens), (26, 23 + 132, 132));
}
