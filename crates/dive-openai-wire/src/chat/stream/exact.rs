//! The byte-shape fast path for Chat Completions text chunks: most of a stream is chunks
//! whose one choice carries only `content`, in the flat shape OpenAI writes every time. Such a
//! chunk is read here without the JSON parser, and its text cut out of the event's own buffer;
//! once one has been read, the next ones of the same bytes around the text (the same id,
//! model and fingerprint) are read by comparing those bytes ([`ContentShape`]). Anything else —
//! another choice shape, an unknown or repeated key, whitespace, a `null` where a string was
//! expected — falls back to the serde path in `stream.rs`; the property test below holds the
//! two to the same answers.

use dive_provider::{ExactJson, ExactShape, ExactStr, ShapeHoles, ShapeValue};

/// The content's tag in the shape's holes.
const CONTENT: u8 = 0;
/// `obfuscation`'s: random padding, other in every chunk, read and dropped.
const PADDING: u8 = 1;

/// The shape of the last text chunk [`exact_content`] read, to read the next ones of that shape.
#[derive(Debug, Default)]
pub(super) struct ContentShape {
    shape: ExactShape,
}

impl ContentShape {
    /// The `content` of `data` when it is a text chunk: read by the learned shape when it has
    /// it, else by [`exact_content`] (and its shape learned). `None` for any other chunk.
    pub(super) fn read(&mut self, data: &[u8]) -> Option<ExactStr> {
        let mut content = None;
        let read = self.shape.read(data, |tag, value| {
            match (tag, value) {
                (CONTENT, ShapeValue::Str(s)) => content = Some(s),
                (PADDING, ShapeValue::Str(_)) => {}
                _ => return None,
            }
            Some(())
        });
        if read.is_some()
            && let Some(content) = content
        {
            return Some(content);
        }
        self.shape.learn_with(data, |holes| exact_content(data, holes))
    }
}

/// The one choice of a text chunk, as the API writes it, up to the text.
const CHOICE: &str = r#""choices":[{"index":0,"delta":{"content":"#;
/// The rest of that choice after the text.
const CHOICE_END: &str = r#"},"logprobs":null,"finish_reason":null}]"#;

/// The `content` of `data` when it is a text chunk in the API's flat shape: `id`, `object`
/// (`chat.completion.chunk`), `created`, `model`, `service_tier`, `system_fingerprint`,
/// `usage` (`null`) and `obfuscation`, each at most once, in any order, and one choice that
/// carries only `content` and no finish reason. `None` for anything else. The content and
/// `obfuscation` are recorded in `holes`.
pub(super) fn exact_content(data: &[u8], holes: &mut ShapeHoles) -> Option<ExactStr> {
    fn once(seen: &mut u16, bit: u16) -> Option<()> {
        if *seen & bit != 0 {
            return None; // a repeated key: serde's to judge
        }
        *seen |= bit;
        Some(())
    }
    let mut j = ExactJson::new(data);
    j.lit("{")?;
    let mut seen = 0u16;
    let mut content = None;
    loop {
        if j.lit(CHOICE).is_some() {
            once(&mut seen, 1)?;
            content = Some(holes.string(&mut j, CONTENT)?);
            j.lit(CHOICE_END)?;
        } else if j.lit(r#""object":"chat.completion.chunk""#).is_some() {
            once(&mut seen, 2)?;
        } else if j.lit(r#""created":"#).is_some() {
            once(&mut seen, 4)?;
            j.uint()?;
        } else if j.lit(r#""usage":null"#).is_some() {
            once(&mut seen, 8)?;
        } else {
            let keys = [
                r#""id":"#,
                r#""model":"#,
                r#""service_tier":"#,
                r#""system_fingerprint":"#,
                r#""obfuscation":"#,
            ];
            let key = keys.iter().position(|k| j.lit(k).is_some())?;
            once(&mut seen, 16 << key)?;
            if keys[key] == r#""obfuscation":"# {
                holes.string(&mut j, PADDING)?;
            } else {
                j.string_at()?;
            }
        }
        if j.lit(",").is_none() {
            break;
        }
    }
    j.lit("}")?;
    j.is_end().then_some(())?;
    content
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use dive_provider::{SseEvent, StreamMapper};
    use proptest::prelude::*;

    use super::*;
    use crate::Dialect;
    use crate::chat::stream::ChatMapper;

    fn sse(data: &str) -> SseEvent {
        let mut e = SseEvent::default();
        e.event = "message".into();
        e.data = data.as_bytes().to_vec();
        e
    }

    /// Both paths from the same start: a first chunk, then each of `data`.
    fn run(exact: bool, data: &[&str]) -> Result<Vec<dive_core::StreamEvent>, String> {
        let mut m = ChatMapper::new("openai", Dialect::openai());
        m.exact = exact;
        let mut out = VecDeque::new();
        m.map(
            sse(
                r#"{"id":"c","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
            ),
            &mut out,
        )
        .unwrap();
        out.clear();
        for data in data {
            m.map(sse(data), &mut out).map_err(|e| e.message)?;
        }
        Ok(out.into())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1500))]

        /// A chunk, and the same chunk again with other content and padding (read by the
        /// learned shape), decode as serde decodes them.
        #[test]
        fn the_fast_path_agrees_with_serde(
            text in proptest::collection::vec((any::<char>(), any::<bool>()), 0..16),
            next_text in proptest::collection::vec((any::<char>(), any::<bool>()), 0..16),
            fields in proptest::collection::vec(0usize..12, 0..9),
            spaced in any::<bool>(),
        ) {
            let chunk = |text: &[(char, bool)], padding: &str| {
                let content = dive_test::json_string_escaping(text);
                let parts: Vec<String> = fields.iter().map(|f| match f {
                    0 | 1 => format!(r#""choices":[{{"index":0,"delta":{{"content":{content}}},"logprobs":null,"finish_reason":null}}]"#),
                    2 => r#""id":"chatcmpl-9nhARrdUiJWEMd5plwV1Gc9NCjb9M""#.to_owned(),
                    3 => r#""object":"chat.completion.chunk""#.to_owned(),
                    4 => r#""created":1721631035"#.to_owned(),
                    5 => r#""model":"gpt-4o-2024-05-13""#.to_owned(),
                    6 => r#""system_fingerprint":"fp_18cc0f1fa0""#.to_owned(),
                    7 => r#""service_tier":"default""#.to_owned(),
                    8 => r#""usage":null"#.to_owned(),
                    9 => format!(r#""obfuscation":"{padding}""#),
                    10 => format!(r#""choices":[{{"index":0,"delta":{{"content":{content}}},"logprobs":null,"finish_reason":"stop"}}]"#),
                    _ => r#""usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}"#.to_owned(),
                }).collect();
                let data = format!("{{{}}}", parts.join(","));
                if spaced { data.replace(",\"", ", \"") } else { data }
            };
            let (data, next) = (chunk(&text, "x1"), chunk(&next_text, "Zq9"));
            prop_assert_eq!(run(true, &[&data, &next]), run(false, &[&data, &next]), "{} then {}", data, next);
            let mut keys: Vec<usize> = fields.iter().map(|f| if *f == 1 { 0 } else { *f }).collect();
            keys.sort_unstable();
            keys.dedup();
            if !spaced && keys.len() == fields.len() && fields.iter().any(|f| *f < 2) && fields.iter().all(|f| *f < 10) {
                prop_assert!(exact_content(data.as_bytes(), &mut ShapeHoles::default()).is_some(), "the fast path refused {}", data);
                let mut shape = ContentShape::default();
                shape.read(data.as_bytes()).unwrap();
                prop_assert!(shape.read(next.as_bytes()).is_some(), "the learned shape refused {} after {}", next, data);
            }
        }
    }

    #[test]
    fn the_recorded_text_chunk_takes_the_fast_path() {
        let data = r#"{"id":"chatcmpl-9nhARrdUiJWEMd5plwV1Gc9NCjb9M","object":"chat.completion.chunk","created":1721631035,"model":"gpt-4o-2024-05-13","system_fingerprint":"fp_18cc0f1fa0","choices":[{"index":0,"delta":{"content":"我是"},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        assert_eq!(
            exact_content(data.as_bytes(), &mut ShapeHoles::default()).unwrap().to_string_in(data),
            "我是"
        );
        assert_eq!(run(true, &[data, data]), run(false, &[data, data]));
    }
}
