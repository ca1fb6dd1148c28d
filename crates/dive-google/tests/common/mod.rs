//! Helpers shared by the integration tests: fixtures, decoding a fixture through the real
//! SSE decoder and `dive_google::events`, and a client that never reaches the network.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::{Path, PathBuf};

use bytes::Bytes;
use dive_core::{EventStream, LlmError, StreamEvent};
use dive_google::Gemini;
use futures::StreamExt;

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

pub fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
}

/// A client for encoding only (its base URL is a closed port).
pub fn offline(model: &str) -> Gemini {
    Gemini::builder()
        .api_key("AIza-interop-not-a-key")
        .base_url("http://127.0.0.1:9")
        .model(model)
        .build()
        .unwrap()
}

/// Decodes SSE bytes fed in `chunk`-byte pieces: the events, the stream they were read from
/// (its response, or what it kept of a failed one) and the error that ended it, if any.
pub fn decode_bytes(bytes: &[u8], chunk: usize) -> (Vec<StreamEvent>, EventStream, Option<LlmError>) {
    let chunks: Vec<Result<Bytes, std::io::Error>> =
        bytes.chunks(chunk.max(1)).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    let sse = dive_provider::decode_sse("google", futures::stream::iter(chunks));
    let pricing = dive_google::model_info("gemini-3.5-flash").and_then(|m| m.pricing.clone());
    let mut events = dive_google::events(Box::pin(sse), pricing).into_event_stream();
    let mut seen = Vec::new();
    let mut error = None;
    futures::executor::block_on(async {
        while let Some(item) = events.next().await {
            match item {
                Ok(event) => seen.push(event),
                Err(e) => error = Some(e),
            }
        }
    });
    (seen, events, error)
}

/// Decodes a fixture file in 37-byte pieces.
pub fn decode_fixture(name: &str) -> (Vec<StreamEvent>, EventStream, Option<LlmError>) {
    decode_bytes(&std::fs::read(fixture(name)).unwrap(), 37)
}

/// A recorded fixture under `tests/fixtures/recorded/`.
pub fn recorded(name: &str) -> PathBuf {
    fixture(&format!("recorded/{name}"))
}

/// Decodes a recording kept as one JSON chunk a line (the `*.chunks.txt` form of the
/// Vercel AI SDK's fixtures), framed as the `data:` events Gemini sends, in 37-byte pieces.
pub fn decode_chunk_lines(name: &str) -> (Vec<StreamEvent>, EventStream, Option<LlmError>) {
    let text = std::fs::read_to_string(recorded(name)).unwrap();
    let sse: String =
        text.lines().filter(|l| !l.trim().is_empty()).map(|l| format!("data: {l}\r\n\r\n")).collect();
    decode_bytes(sse.as_bytes(), 37)
}
