//! The byte-shape fast path for Chat Completions text and tool-argument chunks: most of a
//! stream is chunks whose one choice carries only `content`, or only a piece of one tool
//! call's `arguments`, in the flat shape OpenAI writes every time. Such a chunk is read here
//! without the JSON parser, and its text cut out of the event's own buffer; once one has been
//! read, the next ones of the same bytes around the text (the same id, model, fingerprint and
//! tool call) are read by comparing those bytes ([`ChunkShape`]). Anything else — another
//! choice shape, an unknown or repeated key, whitespace, a `null` where a string was
//! expected — falls back to the serde path in `stream.rs`; the property tests below hold the
//! two to the same answers.

use dive_provider::{ExactJson, ExactShape, ExactStr, ShapeHoles, ShapeValue};

/// The text's tag in the shape's holes (the content, or the arguments' piece).
const TEXT: u8 = 0;
/// `obfuscation`'s: random padding, other in every chunk, read and dropped.
const PADDING: u8 = 1;

/// What a chunk read here carries.
#[derive(Debug)]
pub(super) enum ExactChunk {
    /// A piece of the message's text.
    Content(ExactStr),
    /// A piece of the arguments of the tool call at `tool` (the chunk's tool-call `index`).
    Arguments { tool: u64, arguments: ExactStr },
}

/// The shape of the last chunk [`exact_chunk`] read, to read the next ones of that shape.
#[derive(Debug, Default)]
pub(super) struct ChunkShape {
    shape: ExactShape,
    /// The learned chunk's tool-call index (part of the shape), for an arguments chunk.
    tool: Option<u64>,
}

impl ChunkShape {
    /// `data` when it is a text or tool-argument chunk: read by the learned shape when it has
    /// it, else by [`exact_chunk`] (and its shape learned). `None` for any other chunk.
    pub(super) fn read(&mut self, data: &[u8]) -> Option<ExactChunk> {
        let mut text = None;
        let read = self.shape.read(data, |tag, value| {
            match (tag, value) {
                (TEXT, ShapeValue::Str(s)) => text = Some(s),
                (PADDING, ShapeValue::Str(_)) => {}
                _ => return None,
            }
            Some(())
        });
        if read.is_some()
            && let Some(text) = text
        {
            return Some(match self.tool {
                None => ExactChunk::Content(text),
                Some(tool) => ExactChunk::Arguments { tool, arguments: text },
            });
        }
        let chunk = self.shape.learn_with(data, |holes| exact_chunk(data, holes))?;
        self.tool = match &chunk {
            ExactChunk::Content(_) => None,
            ExactChunk::Arguments { tool, .. } => Some(*tool),
        };
        Some(chunk)
    }
}

/// The one choice of a text chunk, as the API writes it, up to the text.
const CHOICE: &str = r#""choices":[{"index":0,"delta":{"content":"#;
/// The one choice of a tool-argument chunk, up to the tool call's index.
const TOOL_CHOICE: &str = r#""choices":[{"index":0,"delta":{"tool_calls":[{"index":"#;
/// Between that index and the arguments' piece.
const ARGUMENTS: &str = r#","function":{"arguments":"#;
/// The rest of a tool-argument choice after the piece, up to where a text choice's rest starts.
const TOOL_END: &str = "}}]";
/// The rest of either choice after its text.
const CHOICE_END: &str = r#"},"logprobs":null,"finish_reason":null}]"#;

/// The text or tool-argument piece of `data` when it is such a chunk in the API's flat shape:
/// `id`, `object` (`chat.completion.chunk`), `created`, `model`, `service_tier`,
/// `system_fingerprint`, `usage` (`null`) and `obfuscation`, each at most once, in any order,
/// and one choice that carries only `content`, or only one tool call's index and `arguments`,
/// and no finish reason. `None` for anything else. The text and `obfuscation` are recorded
/// in `holes`; the tool call's index is not (it is part of the shape).
pub(super) fn exact_chunk(data: &[u8], holes: &mut ShapeHoles) -> Option<ExactChunk> {
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
    let mut chunk = None;
    loop {
        if j.lit(CHOICE).is_some() {
            once(&mut seen, 1)?;
            chunk = Some(ExactChunk::Content(holes.string(&mut j, TEXT)?));
            j.lit(CHOICE_END)?;
        } else if j.lit(TOOL_CHOICE).is_some() {
            once(&mut seen, 1)?;
            let tool = j.uint()?;
            j.lit(ARGUMENTS)?;
            let arguments = holes.string(&mut j, TEXT)?;
            j.lit(TOOL_END)?;
            j.lit(CHOICE_END)?;
            chunk = Some(ExactChunk::Arguments { tool, arguments });
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
    chunk
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
                prop_assert!(exact_chunk(data.as_bytes(), &mut ShapeHoles::default()).is_some(), "the fast path refused {}", data);
                let mut shape = ChunkShape::default();
                shape.read(data.as_bytes()).unwrap();
                prop_assert!(shape.read(next.as_bytes()).is_some(), "the learned shape refused {} after {}", next, data);
            }
        }
    }

    #[test]
    fn the_recorded_text_chunk_takes_the_fast_path() {
        let data = r#"{"id":"chatcmpl-9nhARrdUiJWEMd5plwV1Gc9NCjb9M","object":"chat.completion.chunk","created":1721631035,"model":"gpt-4o-2024-05-13","system_fingerprint":"fp_18cc0f1fa0","choices":[{"index":0,"delta":{"content":"我是"},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        let Some(ExactChunk::Content(text)) = exact_chunk(data.as_bytes(), &mut ShapeHoles::default()) else {
            panic!("the recorded text chunk was refused");
        };
        assert_eq!(text.to_string_in(data), "我是");
        assert_eq!(run(true, &[data, data]), run(false, &[data, data]));
    }

    /// The first chunk of a tool call (its id and name; always the serde path's), with these
    /// other fields.
    fn call_start(tool: u64) -> String {
        format!(
            r#"{{"id":"chatcmpl-7","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{tool},"id":"call_{tool}","type":"function","function":{{"name":"get_weather","arguments":""}}}}]}},"logprobs":null,"finish_reason":null}}],"usage":null}}"#
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1500))]

        /// Pieces of a tool call's arguments, read by the fast path (first by the reader, then
        /// by the learned shape) or by serde, decode alike: for a call that is open or not,
        /// another call's index, escapes and empty pieces, other fields in any order.
        #[test]
        fn argument_pieces_agree_with_serde(
            pieces in proptest::collection::vec(
                (proptest::collection::vec((any::<char>(), any::<bool>()), 0..12), 0u64..3),
                1..5,
            ),
            open in proptest::collection::vec(0u64..3, 0..3),
            fields in proptest::collection::vec(0usize..9, 0..8),
            spaced in any::<bool>(),
        ) {
            let chunk = |text: &[(char, bool)], tool: u64, padding: &str| {
                let arguments = dive_test::json_string_escaping(text);
                let parts: Vec<String> = fields.iter().map(|f| match f {
                    0 | 1 => format!(r#""choices":[{{"index":0,"delta":{{"tool_calls":[{{"index":{tool},"function":{{"arguments":{arguments}}}}}]}},"logprobs":null,"finish_reason":null}}]"#),
                    2 => r#""id":"chatcmpl-7""#.to_owned(),
                    3 => r#""object":"chat.completion.chunk""#.to_owned(),
                    4 => r#""created":1764556800"#.to_owned(),
                    5 => r#""model":"gpt-5.5-2026-10-01""#.to_owned(),
                    6 => r#""system_fingerprint":"fp_a1""#.to_owned(),
                    7 => r#""usage":null"#.to_owned(),
                    _ => format!(r#""obfuscation":"{padding}""#),
                }).collect();
                let data = format!("{{{}}}", parts.join(","));
                if spaced { data.replace(",\"", ", \"") } else { data }
            };
            let mut data: Vec<String> = open.iter().map(|&tool| call_start(tool)).collect();
            for (i, (text, tool)) in pieces.iter().enumerate() {
                data.push(chunk(text, *tool, &"p".repeat(i + 1)));
            }
            data.push("[DONE]".to_owned());
            let data: Vec<&str> = data.iter().map(String::as_str).collect();
            prop_assert_eq!(run(true, &data), run(false, &data), "{:?}", data);
        }
    }

    #[test]
    fn the_recorded_argument_pieces_take_the_fast_path() {
        let start = r#"{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1764556800,"model":"gpt-5.5-2026-10-01","service_tier":"default","system_fingerprint":"fp_a1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_Paris01","type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        let first = r#"{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1764556800,"model":"gpt-5.5-2026-10-01","service_tier":"default","system_fingerprint":"fp_a1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        let second = r#"{"id":"chatcmpl-7","object":"chat.completion.chunk","created":1764556800,"model":"gpt-5.5-2026-10-01","service_tier":"default","system_fingerprint":"fp_a1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":" \"Paris\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}"#;
        let mut shape = ChunkShape::default();
        for (data, want) in [(first, "{\"city\":"), (second, " \"Paris\"}")] {
            let Some(ExactChunk::Arguments { tool: 0, arguments }) = shape.read(data.as_bytes()) else {
                panic!("the recorded piece was refused: {data}");
            };
            assert_eq!(arguments.to_string_in(data), want);
        }
        assert_eq!(run(true, &[start, first, second]), run(false, &[start, first, second]));
    }
}
