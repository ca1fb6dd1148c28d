//! `decode_sse` on arbitrary bytes in arbitrary reads: no panic, any split gives the events of
//! one whole read, and UTF-8 input gives the events `sse-stream` gives.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/dive-provider/tests/support/sse_reference.rs"]
mod sse_reference;
use sse_reference::{decode_in_reads, reference};

fuzz_target!(|input: &[u8]| {
    // The first byte says how many of the next bytes are cut offsets; the rest is the stream.
    let Some((&count, rest)) = input.split_first() else { return };
    let count = usize::from(count % 16).min(rest.len());
    let (cut_bytes, stream) = rest.split_at(count);
    let cuts: Vec<usize> = cut_bytes.iter().map(|b| usize::from(*b)).collect();

    let whole = decode_in_reads(stream, &[]);
    assert_eq!(decode_in_reads(stream, &cuts), whole, "a split into reads changed the events");
    let every_byte: Vec<usize> = (1..stream.len()).collect();
    assert_eq!(decode_in_reads(stream, &every_byte), whole, "one-byte reads changed the events");
    if let Ok(text) = std::str::from_utf8(stream) {
        assert_eq!(whole, reference(text), "sse-stream dispatches other events");
    }
});
