//! The framer case by case against the event-stream rules of the HTML Living Standard
//! ("Parsing an event stream", "Interpreting an event stream"); the expected values come from
//! the standard's text and its worked examples, quoted where used.

use std::collections::VecDeque;
use std::time::Duration;

use super::SseEvent;
use super::framer::Framer;

/// What the standard dispatches: every read fed, then the stream ends with nothing more.
fn spec(reads: &[&[u8]]) -> Vec<SseEvent> {
    let mut framer = Framer::default();
    let mut out = VecDeque::new();
    for read in reads {
        framer.feed(read, &mut out).unwrap();
    }
    out.into()
}

/// What Dive dispatches: the same, then `finish` at the clean end of the body.
fn dive(reads: &[&[u8]]) -> Vec<SseEvent> {
    let mut framer = Framer::default();
    let mut out = VecDeque::new();
    for read in reads {
        framer.feed(read, &mut out).unwrap();
    }
    out.extend(framer.finish());
    out.into()
}

fn data(events: &[SseEvent]) -> Vec<String> {
    events.iter().map(|e| e.text().into_owned()).collect()
}

#[test]
fn lf_crlf_and_cr_each_end_a_line() {
    let events = spec(&[b"data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\ndata: e\r\n\n"]);
    assert_eq!(data(&events), ["a", "b", "c", "d\ne"]);
}

#[test]
fn a_cr_ending_one_read_and_an_lf_starting_the_next_are_one_line_end() {
    // Read as two line ends, "\r" + "\n" would be a blank line and split the event in two.
    let events = spec(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]);
    assert_eq!(data(&events), ["a\nb"]);
    // A lone CR at the end of a read still ends its line when the next read starts elsewhere.
    assert_eq!(data(&spec(&[b"data: a\r", b"\r"])), ["a"]);
    // An empty read between the CR and the LF changes nothing.
    assert_eq!(data(&spec(&[b"data: a\r", b"", b"\ndata: b\n\n"])), ["a\nb"]);
}

#[test]
fn one_leading_bom_is_ignored_even_split_across_reads_and_only_once() {
    assert_eq!(data(&spec(&["\u{feff}data: a\n\n".as_bytes()])), ["a"]);
    assert_eq!(data(&spec(&[b"\xEF", b"\xBB", b"\xBFdata: a\n\n"])), ["a"]);
    // "One leading U+FEFF BYTE ORDER MARK character must be ignored if any are present": a second
    // one makes the field name "\u{feff}data", which is no field.
    assert!(spec(&["\u{feff}\u{feff}data: a\n\n".as_bytes()]).is_empty());
    assert_eq!(data(&spec(&["data: a\n\n\u{feff}data: b\n\n".as_bytes()])), ["a"]);
}

#[test]
fn comment_lines_are_ignored_anywhere() {
    let events = spec(&[b": keep-alive\n\n:\ndata: a\n: inside an event\ndata: b\n\n"]);
    assert_eq!(data(&events), ["a\nb"]);
}

#[test]
fn the_standards_stock_example_joins_data_lines_with_lf() {
    // "data: YHOO / data: +2 / data: 10" fires one event whose data is "YHOO\n+2\n10".
    let events = spec(&[b"data: YHOO\ndata: +2\ndata: 10\n\n"]);
    assert_eq!(data(&events), ["YHOO\n+2\n10"]);
    assert_eq!(events[0].event, "message");
}

#[test]
fn the_standards_id_example_sets_and_resets_the_last_event_id() {
    // The second block sets the last event ID to "1"; the third has "an "id" field, this time
    // with no value, which resets the last event ID to the empty string"; the last block fires
    // data " third event" (one of its two spaces removed) only if a blank line follows it.
    let stream: &[u8] =
        b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n";
    let events = spec(&[stream]);
    assert_eq!(data(&events), ["first event", "second event"]);
    assert_eq!((events[0].id.as_str(), events[1].id.as_str()), ("1", ""));
    // "The last still has to end with a blank line, the end of the stream is not enough to
    // trigger the dispatch of the last event." Dive dispatches it at a clean end of the body.
    let events = dive(&[stream]);
    assert_eq!(data(&events), ["first event", "second event", " third event"]);
}

#[test]
fn the_standards_empty_data_example() {
    // "The first block fires events with the data set to the empty string, as would the last
    // block if it was followed by a blank line. The middle block fires an event with the data
    // set to a single newline character. The last block is discarded because it is not
    // followed by a blank line."
    let stream: &[u8] = b"data\n\ndata\ndata\n\ndata:";
    assert_eq!(data(&spec(&[stream])), ["", "\n"]);
    assert_eq!(data(&dive(&[stream])), ["", "\n", ""]);
}

#[test]
fn the_standards_two_identical_events_example() {
    // "data:test" and "data: test" "would cause two identical events to be fired".
    let events = spec(&[b"data:test\n\ndata: test\n\n"]);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0], events[1]);
    assert_eq!(events[0].data, b"test");
}

#[test]
fn only_one_space_after_the_colon_is_removed_and_other_colons_stay() {
    let events = spec(&[b"data:  two\n\ndata:\ttab\n\ndata: {\"a\":1}\n\n"]);
    assert_eq!(data(&events), [" two", "\ttab", "{\"a\":1}"]);
}

#[test]
fn the_final_lf_of_the_data_buffer_is_removed_once() {
    let events = spec(&[b"data: a\ndata:\n\n"]);
    assert_eq!(data(&events), ["a\n"]);
}

#[test]
fn a_blank_line_with_an_empty_data_buffer_dispatches_nothing_and_resets_the_type() {
    let events = spec(&[b"event: add\nid: 3\nretry: 10\n\ndata: b\n\n"]);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event, "message", "the event type buffer was reset by the blank line");
    // The last event ID and the reconnection time are not per event: the earlier block set them.
    assert_eq!((events[0].id.as_str(), events[0].retry), ("3", Some(Duration::from_millis(10))));
}

#[test]
fn event_sets_the_type_of_one_event_and_an_empty_one_means_message() {
    let events = spec(&[b"event: add\ndata: a\n\ndata: b\n\nevent\ndata: c\n\nevent:\ndata: d\n\n"]);
    let types: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(types, ["add", "message", "message", "message"]);
}

#[test]
fn the_last_event_id_persists_and_an_id_containing_nul_is_ignored() {
    let events = spec(&[b"id: 7\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid: 8\ndata: d\n\n"]);
    let ids: Vec<&str> = events.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["7", "7", "7", "8"]);
}

#[test]
fn retry_takes_digits_only_and_persists() {
    let events = spec(&[
        b"retry: 1500\ndata: a\n\nretry: 15x\ndata: b\n\nretry: -1\nretry: 1.5\nretry:\nretry:  20\ndata: c\n\n",
        b"retry\ndata: d\n\nretry: 99999999999999999999999\ndata: e\n\nretry: 0\ndata: f\n\n",
    ]);
    let retries: Vec<Option<u64>> =
        events.iter().map(|e| e.retry.map(|d| u64::try_from(d.as_millis()).unwrap())).collect();
    assert_eq!(retries, [Some(1500), Some(1500), Some(1500), Some(1500), Some(1500), Some(0)]);
    assert_eq!(spec(&[b"data: a\n\n"])[0].retry, None);
}

#[test]
fn unknown_fields_are_ignored() {
    let events = spec(&[b"foo: bar\nDATA: loud\ndata : spaced\ndata: a\n\n"]);
    assert_eq!(data(&events), ["a"]);
}

#[test]
fn an_event_without_its_blank_line_at_the_end_follows_the_standard_or_dives_choice() {
    // Terminated last line, no blank line (a real Gemini or OpenAI-compatible ending).
    let stream: &[u8] = b"data: a\n\ndata: b\n";
    assert_eq!(data(&spec(&[stream])), ["a"]);
    assert_eq!(data(&dive(&[stream])), ["a", "b"]);
    // No line end at all after the last line.
    assert_eq!(data(&spec(&[b"data: a\n\ndata: [DONE]"])), ["a"]);
    assert_eq!(data(&dive(&[b"data: a\n\ndata: [DONE]"])), ["a", "[DONE]"]);
    // A trailing CR is a complete line end: nothing is left for the end.
    assert_eq!(data(&dive(&[b"data: a\r"])), ["a"]);
    // Nothing pending: the end adds nothing, and a pending event without data dispatches nothing.
    assert_eq!(data(&dive(&[b"data: a\n\n"])), ["a"]);
    assert_eq!(data(&dive(&[b"data: a\n\nevent: x\nid: 2\n"])), ["a"]);
    assert!(dive(&[b": only a comment"]).is_empty());
}

#[test]
fn bytes_that_are_not_utf8_become_replacement_characters() {
    let events = spec(&[b"event: a\xFFb\nid: \xC3\ndata: x\xF0\x9F\x98y\ndata: \xC3\n\n"]);
    assert_eq!(events[0].event, "a\u{fffd}b");
    assert_eq!(events[0].id, "\u{fffd}");
    // The data is handed over as it came; decoded, it is what the standard decodes.
    assert_eq!(events[0].data, b"x\xF0\x9F\x98y\n\xC3");
    assert_eq!(events[0].text(), "x\u{fffd}y\n\u{fffd}");
    // A character split between reads is whole again.
    assert_eq!(data(&spec(&[b"data: h\xC3", b"\xA9\n\n"])), ["h\u{e9}"]);
}

#[test]
fn an_event_larger_than_the_limit_is_refused() {
    let mut framer = Framer::default();
    let mut out = VecDeque::new();
    let mb = vec![b'x'; 1024 * 1024];
    framer.feed(b"data: ", &mut out).unwrap();
    let mut refused = false;
    for _ in 0..=super::framer::MAX_EVENT_BYTES / mb.len() {
        if framer.feed(&mb, &mut out).is_err() {
            refused = true;
            break;
        }
    }
    assert!(refused && out.is_empty());
}

#[test]
fn events_of_one_name_share_it_and_a_new_name_replaces_it() {
    let events = spec(&[
        b"event: delta\ndata: 1\n\nevent: delta\ndata: 2\n\nevent: stop\ndata: 3\n\n",
        b"data: 4\n\nevent:\ndata: 5\n\n",
    ]);
    let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(names, ["delta", "delta", "stop", "message", "message"]);
    assert!(std::ptr::eq(events[0].event.as_str(), events[1].event.as_str()), "the repeated name is shared");
    assert!(std::ptr::eq(events[3].event.as_str(), events[4].event.as_str()), "`message` is shared");
}
