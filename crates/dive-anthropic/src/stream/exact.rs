//! The byte-shape fast path for `content_block_delta`: most of a stream is text, thinking
//! and tool-input deltas the API writes in one fixed shape, read here without the JSON parser
//! (and the text cut out of the event's own buffer). Any other shape falls back to the serde
//! paths in `stream.rs`; the property test below holds the two to the same answers.

use dive_core::ContentDelta;
use dive_provider::{ExactJson, ExactStr};

/// The delta types that carry one string, and the key it is under.
#[derive(Debug, Clone, Copy)]
pub(super) enum TextKind {
    Text,
    InputJson,
    Thinking,
    Signature,
}

impl TextKind {
    /// `","<key>":` after the type's name, as the API writes it.
    const SHAPES: [(&'static str, TextKind); 4] = [
        (r#"text_delta","text":"#, TextKind::Text),
        (r#"input_json_delta","partial_json":"#, TextKind::InputJson),
        (r#"thinking_delta","thinking":"#, TextKind::Thinking),
        (r#"signature_delta","signature":"#, TextKind::Signature),
    ];

    pub(super) fn delta(self, text: String) -> ContentDelta {
        match self {
            TextKind::Text => ContentDelta::TextDelta { text },
            TextKind::InputJson => ContentDelta::InputJsonDelta { partial_json: text },
            TextKind::Thinking => ContentDelta::ThinkingDelta { thinking: text },
            TextKind::Signature => ContentDelta::SignatureDelta { signature: text },
        }
    }
}

/// The hottest path: a `content_block_delta` of a string-carrying type in exactly the bytes
/// the API sends (`{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`)
/// is read without the JSON parser. Anything else — another key order, whitespace, another
/// field — is `None`, and the event takes the serde paths. Returns the index, the type and
/// the text (see [`ExactStr`]).
pub(super) fn exact_delta(data: &[u8]) -> Option<(usize, TextKind, ExactStr)> {
    let mut j = ExactJson::new(data);
    j.lit(r#"{"type":"content_block_delta","index":"#)?;
    let index = usize::try_from(j.uint()?).ok()?;
    j.lit(r#","delta":{"type":""#)?;
    let kind = TextKind::SHAPES.iter().find_map(|(shape, kind)| j.lit(shape).map(|()| *kind))?;
    let text = j.string_at()?;
    j.lit("}}")?;
    j.is_end().then_some((index, kind, text))
}

/// [`exact_delta`] on data the caller owns: text without escapes is cut out of `data`'s own
/// buffer instead of copied. `None` leaves `data` as it was.
pub(super) fn exact_delta_owned(data: &mut Vec<u8>) -> Option<(usize, ContentDelta)> {
    let (index, kind, text) = exact_delta(data)?;
    Some((index, kind.delta(text.take_from(data))))
}

#[cfg(test)]
mod tests {
    use dive_core::StreamEvent;
    use dive_provider::SseEvent;
    use proptest::prelude::*;

    use super::*;
    use crate::stream::{Mapped, map_json};

    /// The serde path alone (the event read as a JSON tree), what the fast path must agree with.
    fn general(data: &str) -> Option<StreamEvent> {
        let mut e = SseEvent::default();
        e.event = "content_block_delta".into();
        e.data = data.as_bytes().to_vec();
        match map_json(&e) {
            Ok(Mapped::Event(event)) => Some(event),
            _ => None,
        }
    }

    /// The fast path, borrowed and owned; both must give the same event.
    fn fast(data: &str) -> Option<StreamEvent> {
        let borrowed = exact_delta(data.as_bytes()).map(|(index, kind, text)| {
            StreamEvent::ContentBlockDelta { index, delta: kind.delta(text.to_string_in(data)) }
        });
        let mut owned = data.as_bytes().to_vec();
        let cut = exact_delta_owned(&mut owned)
            .map(|(index, delta)| StreamEvent::ContentBlockDelta { index, delta });
        assert_eq!(borrowed, cut, "borrowed and owned fast paths differ on {data}");
        if cut.is_none() {
            assert_eq!(owned, data.as_bytes(), "a refused event is left as it was");
        }
        borrowed
    }

    /// A JSON string for `text`, each character written one of several valid ways (or, for a
    /// few choices, an invalid way: a raw control character, a bad escape).
    fn encode(text: &[(char, u8)]) -> String {
        let mut s = String::from("\"");
        for &(c, how) in text {
            match (how % 8, c) {
                (0, _) => {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf) {
                        s.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                (1, '/') => s.push_str("\\/"),
                (2, _) if how == 250 => s.push_str("\\x"), // not an escape
                (3, _) if how == 251 => s.push('\n'),      // a raw control character
                _ => s.push_str(
                    serde_json::to_string(&c.to_string())
                        .unwrap()
                        .get(1..)
                        .and_then(|q| q.strip_suffix('"'))
                        .unwrap(),
                ),
            }
        }
        s.push('"');
        s
    }

    const KINDS: [(&str, &str); 5] = [
        ("text_delta", "text"),
        ("input_json_delta", "partial_json"),
        ("thinking_delta", "thinking"),
        ("signature_delta", "signature"),
        ("citations_delta", "text"),
    ];

    /// The delta event in one of several layouts: the API's own, and variations the fast
    /// path must refuse or read the same.
    fn layout(which: u8, index: &str, kind: (&str, &str), text: &str) -> String {
        let (ty, key) = kind;
        match which % 7 {
            0 | 1 => format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"{ty}","{key}":{text}}}}}"#
            ),
            2 => format!(
                r#"{{"type": "content_block_delta", "index": {index}, "delta": {{"type": "{ty}", "{key}": {text}}}}}"#
            ),
            3 => format!(
                r#"{{"index":{index},"delta":{{"{key}":{text},"type":"{ty}"}},"type":"content_block_delta"}}"#
            ),
            4 => format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"{ty}","{key}":{text},"extra":1}}}}"#
            ),
            5 => format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"{ty}","{key}":{text}}}}} "#
            ),
            _ => format!(
                r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"{ty}","{key}":{text}}},"index":{index}}}"#
            ),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn the_fast_path_agrees_with_serde(
            text in proptest::collection::vec((any::<char>(), any::<u8>()), 0..24),
            index in prop_oneof![0u64..20, any::<u64>()],
            odd_index in 0u8..6,
            kind in 0usize..KINDS.len(),
            which in any::<u8>(),
        ) {
            let index = match odd_index {
                0 => format!("0{index}"),
                1 => format!("{index}.0"),
                2 => format!("-{index}"),
                _ => index.to_string(),
            };
            let data = layout(which, &index, KINDS[kind], &encode(&text));
            let fast = fast(&data);
            if fast.is_some() {
                prop_assert_eq!(&fast, &general(&data), "{}", data);
            }
            // The API's own shape of valid JSON with a string delta is always taken.
            let valid = serde_json::from_str::<serde_json::Value>(&data).is_ok();
            if which % 7 < 2 && valid && kind < 4 && index.len() <= 18 && general(&data).is_some() {
                prop_assert!(fast.is_some(), "the fast path refused {}", data);
            }
        }
    }

    #[test]
    fn recorded_deltas_take_the_fast_path() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/recorded");
        let mut taken = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "sse") {
                continue;
            }
            for data in
                std::fs::read_to_string(&path).unwrap().lines().filter_map(|l| l.strip_prefix("data: "))
            {
                if let Some(event) = fast(data) {
                    assert_eq!(Some(event), general(data), "{data}");
                    taken += 1;
                }
            }
        }
        assert!(taken > 0, "no recorded delta took the fast path");
    }
}
