//! The byte-shape fast path for the Responses API's delta events: most of a stream is
//! `response.output_text.delta` (and reasoning-summary and function-argument deltas), a flat
//! object of a few known keys the API writes the same way every time. Such an event is read
//! here without the JSON parser, and its text cut out of the event's own buffer. Anything
//! else — a nested value, an unknown key, a repeated key, whitespace — falls back to the serde
//! path in `stream.rs`; the property test below holds the two to the same answers. Once an
//! event has been read, the next ones of the same bytes around the delta, the sequence number
//! and the padding (the same item, at the same indexes) are read by comparing those bytes
//! ([`DeltaShape`]).

use dive_provider::{ExactJson, ExactShape, ExactStr, ShapeHoles, ShapeValue};

/// The delta events read here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DeltaKind {
    /// `response.output_text.delta` and `response.refusal.delta`.
    Text,
    /// `response.reasoning_summary_text.delta`.
    Summary,
    /// `response.function_call_arguments.delta`.
    Arguments,
}

const TYPES: [(&str, DeltaKind); 4] = [
    (r#"{"type":"response.output_text.delta""#, DeltaKind::Text),
    (r#"{"type":"response.reasoning_summary_text.delta""#, DeltaKind::Summary),
    (r#"{"type":"response.function_call_arguments.delta""#, DeltaKind::Arguments),
    (r#"{"type":"response.refusal.delta""#, DeltaKind::Text),
];

/// The tags of the values in the shape's holes. The indexes are no holes: they stay the same
/// for a whole item, so they are compared with the bytes around them, one run fewer to
/// compare and no number to read an event.
const DELTA: u8 = 0;
/// `sequence_number` and `obfuscation`: other in every event, read and dropped.
const SKIPPED: u8 = 1;

/// The shape of the last delta event [`exact_delta`] read, to read the next ones of that shape.
#[derive(Debug)]
pub(super) struct DeltaShape {
    shape: ExactShape,
    /// The learned event's kind (its `type` is part of the shape).
    kind: DeltaKind,
    /// The learned event's `output_index` and `content_index` (part of the shape too).
    indexes: (Option<u64>, Option<u64>),
}

impl Default for DeltaShape {
    fn default() -> Self {
        Self { shape: ExactShape::default(), kind: DeltaKind::Text, indexes: (None, None) }
    }
}

impl DeltaShape {
    /// `data` when it is a delta event: read by the learned shape when it has it, else by
    /// [`exact_delta`] (and its shape learned). `None` for any other event.
    pub(super) fn read(&mut self, data: &[u8]) -> Option<ExactDelta> {
        let mut delta = None;
        let read = self.shape.read(data, |tag, value| {
            match (tag, value) {
                (DELTA, ShapeValue::Str(s)) => delta = Some(s),
                (SKIPPED, _) => {}
                _ => return None,
            }
            Some(())
        });
        if read.is_some()
            && let Some(delta) = delta
        {
            let (output_index, content_index) = self.indexes;
            return Some(ExactDelta { kind: self.kind, output_index, content_index, delta });
        }
        let event = self.shape.learn_with(data, |holes| exact_delta(data, holes))?;
        self.kind = event.kind;
        self.indexes = (event.output_index, event.content_index);
        Some(event)
    }
}

/// One delta event, read exactly.
#[derive(Debug)]
pub(super) struct ExactDelta {
    pub kind: DeltaKind,
    pub output_index: Option<u64>,
    pub content_index: Option<u64>,
    pub delta: ExactStr,
}

/// Reads `data` when it is a delta event in the API's flat shape: `type` first, then any of
/// `sequence_number`, `item_id`, `output_index`, `content_index`, `summary_index`, `delta`,
/// `logprobs` (empty) and `obfuscation`, each once, in any order, with no whitespace. `None`
/// for anything else, and for an event without its `delta`. The values that change from event
/// to event (the delta, the sequence number, the padding) are recorded in `holes`.
pub(super) fn exact_delta(data: &[u8], holes: &mut ShapeHoles) -> Option<ExactDelta> {
    let mut j = ExactJson::new(data);
    let kind = TYPES.iter().find_map(|(shape, kind)| j.lit(shape).map(|()| *kind))?;
    let (mut output_index, mut content_index, mut summary_index, mut sequence) = (None, None, None, None);
    let (mut delta, mut item, mut obfuscation, mut logprobs) = (None, None, None, false);
    while j.lit(",").is_some() {
        fn once<T>(slot: &mut Option<T>, value: Option<T>) -> Option<()> {
            if slot.is_some() {
                return None; // a repeated key: serde's to judge
            }
            *slot = Some(value?);
            Some(())
        }
        if j.lit(r#""output_index":"#).is_some() {
            once(&mut output_index, j.uint())?;
        } else if j.lit(r#""content_index":"#).is_some() {
            once(&mut content_index, j.uint())?;
        } else if j.lit(r#""summary_index":"#).is_some() {
            once(&mut summary_index, j.uint())?;
        } else if j.lit(r#""sequence_number":"#).is_some() {
            once(&mut sequence, holes.uint(&mut j, SKIPPED))?;
        } else if j.lit(r#""delta":"#).is_some() {
            once(&mut delta, holes.string(&mut j, DELTA))?;
        } else if j.lit(r#""item_id":"#).is_some() {
            once(&mut item, j.string_at())?;
        } else if j.lit(r#""obfuscation":"#).is_some() {
            once(&mut obfuscation, holes.string(&mut j, SKIPPED))?;
        } else if j.lit(r#""logprobs":[]"#).is_some() && !logprobs {
            logprobs = true;
        } else {
            return None;
        }
    }
    j.lit("}")?;
    j.is_end().then_some(())?;
    Some(ExactDelta { kind, output_index, content_index, delta: delta? })
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use dive_provider::{SseEvent, StreamMapper};
    use proptest::prelude::*;

    use super::*;
    use crate::responses::stream::ResponsesMapper;

    /// A mapper with both a text block and a reasoning block and a function call open, so
    /// every delta kind lands somewhere.
    fn mapper(exact: bool) -> ResponsesMapper {
        let mut m = ResponsesMapper::new("openai");
        m.exact = exact;
        let mut out = VecDeque::new();
        for data in [
            r#"{"type":"response.created","response":{"id":"r","model":"m"}}"#,
            r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"rs","type":"reasoning","summary":[]}}"#,
            r#"{"type":"response.output_item.added","output_index":1,"item":{"id":"msg","type":"message","role":"assistant","content":[]}}"#,
            r#"{"type":"response.content_part.added","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}"#,
            r#"{"type":"response.output_item.added","output_index":2,"item":{"id":"fc","type":"function_call","call_id":"c","name":"f","arguments":""}}"#,
        ] {
            m.map(sse(data), &mut out).unwrap();
        }
        m
    }

    fn sse(data: &str) -> SseEvent {
        let mut e = SseEvent::default();
        e.event = "message".into();
        e.data = data.as_bytes().to_vec();
        e
    }

    /// Both paths from the same start, over each of `data`.
    fn run(exact: bool, data: &[&str]) -> Result<Vec<dive_core::StreamEvent>, String> {
        let mut m = mapper(exact);
        let mut out = VecDeque::new();
        for data in data {
            m.map(sse(data), &mut out).map_err(|e| e.message)?;
        }
        Ok(out.into())
    }

    const TYPES: [&str; 5] = [
        "response.output_text.delta",
        "response.reasoning_summary_text.delta",
        "response.function_call_arguments.delta",
        "response.refusal.delta",
        "response.output_text.done",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1500))]

        /// An event, and the same event again with another delta, indexes and sequence
        /// number (read by the learned shape), decode as serde decodes them.
        #[test]
        fn the_fast_path_agrees_with_serde(
            ty in 0usize..TYPES.len(),
            text in proptest::collection::vec((any::<char>(), any::<bool>()), 0..16),
            next_text in proptest::collection::vec((any::<char>(), any::<bool>()), 0..16),
            fields in proptest::collection::vec(0usize..10, 0..8),
            output in 0u64..3,
            next_output in 0u64..3,
            spaced in any::<bool>(),
        ) {
            let event = |text: &[(char, bool)], output: u64, sequence: u64| {
                let mut data = format!(r#"{{"type":"{}""#, TYPES[ty]);
                let delta = dive_test::json_string_escaping(text);
                for f in &fields {
                    data.push_str(&match f {
                        0 => format!(r#","output_index":{output}"#),
                        1 => format!(r#","content_index":{}"#, output % 2),
                        2 => r#","summary_index":0"#.to_owned(),
                        3 => format!(r#","sequence_number":{sequence}"#),
                        4 => format!(r#","delta":{delta}"#),
                        5 => r#","item_id":"msg_1""#.to_owned(),
                        6 => r#","logprobs":[]"#.to_owned(),
                        7 => format!(r#","obfuscation":"jWSe9q{sequence}""#),
                        8 => r#","logprobs":[{"token":"a"}]"#.to_owned(),
                        _ => r#","unknown":{"x":1}"#.to_owned(),
                    });
                }
                data.push('}');
                if spaced { data.replace(",\"", ", \"") } else { data }
            };
            let (data, next) = (event(&text, output, 7), event(&next_text, next_output, 1008));
            let fast = run(true, &[&data, &next]);
            prop_assert_eq!(&fast, &run(false, &[&data, &next]), "{} then {}", data, next);
            // The API's own shape is taken by the fast path.
            let mut plain = fields.clone();
            plain.sort_unstable();
            plain.dedup();
            if ty < 4 && !spaced && plain.len() == fields.len() && fields.contains(&4) && fields.iter().all(|f| *f < 8) {
                prop_assert!(exact_delta(data.as_bytes(), &mut ShapeHoles::default()).is_some(), "the fast path refused {}", data);
                let mut shape = DeltaShape::default();
                shape.read(data.as_bytes()).unwrap();
                prop_assert!(shape.read(next.as_bytes()).is_some(), "the learned shape refused {} after {}", next, data);
            }
        }
    }

    #[test]
    fn the_recorded_text_delta_takes_the_fast_path() {
        let data = r#"{"type":"response.output_text.delta","sequence_number":6,"item_id":"msg_68d7eff9c3b8819683eb04cbeb3775d507152cb8c6ac9072","output_index":1,"content_index":0,"delta":"Hello","logprobs":[],"obfuscation":"jWSe9qxZ10e"}"#;
        let d = exact_delta(data.as_bytes(), &mut ShapeHoles::default()).unwrap();
        assert_eq!((d.kind, d.output_index, d.content_index), (DeltaKind::Text, Some(1), Some(0)));
        assert_eq!(d.delta.to_string_in(data), "Hello");
        assert_eq!(run(true, &[data, data]), run(false, &[data, data]));
    }
}
