//! What the SSE property tests and the `sse` fuzz target compare: `decode_sse` fed a stream in
//! given reads, and `sse-stream` (an independent implementation of the same standard) fed it
//! whole. Shared by `tests/it/sse.rs` and `fuzz/fuzz_targets/sse.rs`.

use std::time::Duration;

use bytes::Bytes;
use dive_provider::{SseEvent, decode_sse};
use futures::StreamExt;

/// An event's fields: type, data, last event ID, reconnection time.
pub type Fields = (String, String, String, Option<Duration>);

/// The fields of one event.
pub fn fields(e: &SseEvent) -> Fields {
    (e.event.to_string(), e.text().into_owned(), e.id.clone(), e.retry)
}

/// `stream` through `decode_sse`, cut before each offset in `cuts` (taken modulo the length
/// plus one, in any order).
pub fn decode_in_reads(stream: &[u8], cuts: &[usize]) -> Vec<Fields> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    cuts.sort_unstable();
    let mut reads = Vec::new();
    let mut start = 0;
    for cut in cuts.into_iter().chain([stream.len()]) {
        reads.push(Ok::<_, std::io::Error>(Bytes::copy_from_slice(&stream[start..cut])));
        start = cut;
    }
    let events =
        futures::executor::block_on(decode_sse("test", futures::stream::iter(reads)).collect::<Vec<_>>());
    events.into_iter().map(|e| fields(&e.unwrap())).collect()
}

/// The same stream through `sse-stream`, turned into what the standard dispatches to a page:
/// blocks without data dispatch nothing, the last event ID and the reconnection time persist,
/// an empty or missing type is `message`. A blank line appended at the end stands for Dive's
/// dispatch at the end of the body (`sse-stream` discards an unfinished last event).
pub fn reference(stream: &str) -> Vec<Fields> {
    let body = format!("{stream}\n\n");
    let reads = futures::stream::iter([Ok::<_, std::io::Error>(Bytes::from(body))]);
    let blocks: Vec<_> =
        futures::executor::block_on(sse_stream::SseByteStream::new(reads).collect::<Vec<_>>());
    let (mut id, mut retry) = (String::new(), None);
    let mut out = Vec::new();
    for block in blocks {
        let block = block.unwrap();
        if let Some(new) = block.id {
            id = new;
        }
        if let Some(ms) = block.retry {
            retry = Some(Duration::from_millis(ms));
        }
        if let Some(data) = block.data {
            let event = block.event.filter(|e| !e.is_empty()).unwrap_or_else(|| "message".to_owned());
            out.push((event, data, id.clone(), retry));
        }
    }
    out
}
