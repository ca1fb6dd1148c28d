//! `decode_sse` as providers use it: any split of the stream into reads gives the events of one
//! whole read, the events agree with `sse-stream` (an independent implementation of the same
//! standard), the end of the body is handled as documented, and a huge line fed a byte at a
//! time still decodes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bytes::Bytes;
use dive_core::LlmErrorKind;
use dive_provider::{ProviderError, SseEvent, decode_sse};
use futures::StreamExt;
use proptest::prelude::*;

#[path = "../support/sse_reference.rs"]
mod sse_reference;
use sse_reference::{decode_in_reads, reference};

fn decode(reads: Vec<Result<Bytes, std::io::Error>>) -> Vec<Result<SseEvent, ProviderError>> {
    futures::executor::block_on(decode_sse("test", futures::stream::iter(reads)).collect::<Vec<_>>())
}

/// One line of an event stream, without its line end.
fn line() -> impl Strategy<Value = String> {
    let text = "[^\r\n]{0,12}";
    prop_oneof![
        text.prop_map(|t| format!("data: {t}")),
        text.prop_map(|t| format!("data:{t}")),
        Just("data".to_owned()),
        "[a-z_]{0,8}".prop_map(|t| format!("event: {t}")),
        // A name that comes back, as a model's stream repeats its few names, and names that
        // differ from it only in their last bytes.
        Just("event: delta".to_owned()),
        "[a-z_]{0,2}".prop_map(|t| format!("event: delt{t}")),
        text.prop_map(|t| format!("id: {t}")),
        Just("id: has\0nul".to_owned()),
        "[0-9]{0,6}|[0-9x. -]{0,4}".prop_map(|t| format!("retry: {t}")),
        text.prop_map(|t| format!(":{t}")),
        Just(String::new()),
        Just(String::new()),
        text,
    ]
}

/// A whole stream: lines with mixed line ends, maybe a BOM, maybe no final line end.
fn stream() -> impl Strategy<Value = String> {
    let ending = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    (any::<bool>(), proptest::collection::vec((line(), ending), 0..24), any::<bool>()).prop_map(
        |(bom, lines, cut_last_end)| {
            let mut s = if bom { "\u{feff}".to_owned() } else { String::new() };
            let count = lines.len();
            for (i, (line, end)) in lines.into_iter().enumerate() {
                s.push_str(&line);
                if !(cut_last_end && i + 1 == count) {
                    s.push_str(end);
                }
            }
            s
        },
    )
}

proptest! {
    #[test]
    fn any_split_into_reads_gives_the_events_of_one_read(
        stream in stream(),
        noise in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..4),
        cuts in proptest::collection::vec(any::<usize>(), 0..40),
    ) {
        // Stray bytes (invalid UTF-8, CRs, NULs) anywhere too.
        let mut bytes = stream.into_bytes();
        for (at, byte) in noise {
            bytes.insert(at % (bytes.len() + 1), byte);
        }
        prop_assert_eq!(decode_in_reads(&bytes, &cuts), decode_in_reads(&bytes, &[]));
        let one_byte_reads: Vec<usize> = (1..bytes.len()).collect();
        prop_assert_eq!(decode_in_reads(&bytes, &one_byte_reads), decode_in_reads(&bytes, &[]));
    }

    #[test]
    fn events_agree_with_sse_stream(stream in stream(), cuts in proptest::collection::vec(any::<usize>(), 0..8)) {
        prop_assert_eq!(decode_in_reads(stream.as_bytes(), &cuts), reference(&stream));
    }
}

#[test]
fn a_clean_end_dispatches_the_last_event_and_a_broken_body_does_not() {
    let clean = decode(vec![Ok(Bytes::from_static(b"data: a\n\ndata: {\"done\":true}\n"))]);
    let data: Vec<String> = clean.into_iter().map(|e| e.unwrap().text().into_owned()).collect();
    assert_eq!(data, ["a", "{\"done\":true}"]);

    let broken = decode(vec![
        Ok(Bytes::from_static(b"data: a\n\ndata: {\"done\":")),
        Err(std::io::Error::other("connection reset")),
    ]);
    assert_eq!(broken.len(), 2, "the finished event, then the error, then nothing");
    assert_eq!(broken[0].as_ref().unwrap().data, b"a");
    let e = broken[1].as_ref().unwrap_err();
    assert_eq!(e.kind, LlmErrorKind::Network);
    assert!(e.message.contains("connection reset"), "{}", e.message);
}

#[test]
fn a_one_mebibyte_line_fed_one_byte_a_read_decodes() {
    // Before the framer scanned only new bytes, this took hours: every read re-scanned the line.
    let payload = "x".repeat(1024 * 1024);
    let stream = format!("event: big\ndata: {payload}\n\ndata: after\n\n");
    let reads: Vec<Result<Bytes, std::io::Error>> =
        stream.as_bytes().iter().map(|b| Ok(Bytes::copy_from_slice(&[*b]))).collect();
    let events: Vec<SseEvent> = decode(reads).into_iter().map(Result::unwrap).collect();
    assert_eq!(events.len(), 2);
    assert_eq!((events[0].event.as_str(), events[0].data.len()), ("big", payload.len()));
    assert_eq!(events[1].data, b"after");
}
