//! The byte-shape fast path for Gemini text chunks: most of a stream is chunks whose one
//! candidate carries one text part, in the shape the API writes every time (the whole usage so
//! far, the model version and the response id repeated on each). Such a chunk is read here
//! without the JSON parser, and once one has been read, the next ones of the same bytes around
//! the text and the output's counters are read by comparing those bytes ([`TextShape`]); the
//! prompt's counters, the same on every chunk of a response, are among the bytes compared.
//! Anything else — another part, a finish reason, metadata, an unknown or repeated key, other
//! spacing — falls back to the serde path in `stream.rs`; the property test below holds the two
//! to the same answers.

use dive_provider::{ExactJson, ExactShape, ExactStr, ShapeHoles, ShapeValue};

use crate::response::UsageMetadata;

/// A text chunk read by [`exact_text`]: its text and its usage snapshot, if it had one.
#[derive(Debug)]
pub(super) struct TextChunk {
    pub text: ExactStr,
    pub usage: Option<UsageMetadata>,
}

/// The text's tag in the shape's holes; a counter's is 1 + its place in [`COUNTERS`].
const TEXT: u8 = 0;

/// The places in [`COUNTERS`] of the prompt's counters: one response's chunks all repeat them,
/// so they are no holes (one run of bytes fewer to compare and one number fewer to read each).
const PROMPT_COUNTERS: [usize; 3] = [0, 1, 4];

/// The shape of the last text chunk [`exact_text`] read, to read the next ones of that shape.
#[derive(Debug, Default)]
pub(super) struct TextShape {
    shape: ExactShape,
    /// The learned chunk's `usageMetadata`: its prompt's counters hold for every chunk of the
    /// shape (they are among its bytes), the output's are read from each chunk's holes.
    usage: Option<UsageMetadata>,
}

impl TextShape {
    /// The text and usage of `data` when it is a text chunk: read by the learned shape when it
    /// has it, else by [`exact_text`] (and its shape learned). `None` for any other chunk.
    pub(super) fn read(&mut self, data: &[u8]) -> Option<TextChunk> {
        let mut text = None;
        let mut usage = self.usage;
        let read = self.shape.read(data, |tag, value| {
            match (value, usage.as_mut()) {
                (ShapeValue::Str(s), _) if tag == TEXT => text = Some(s),
                (ShapeValue::Uint(n), Some(u)) => set_counter(u, usize::from(tag).checked_sub(1)?, n),
                _ => return None,
            }
            Some(())
        });
        if read.is_some()
            && let Some(text) = text
        {
            return Some(TextChunk { text, usage });
        }
        let chunk = self.shape.learn_with(data, |holes| exact_text(data, holes))?;
        self.usage = chunk.usage;
        Some(chunk)
    }
}

/// An [`ExactJson`] cursor over one chunk, with the colon the chunk writes between a key and
/// its value (the Gemini API writes `": "`, Vertex AI `":"`; one chunk uses one throughout),
/// recording the values it keeps as the holes of the chunk's shape.
struct Cursor<'a, 'h> {
    j: ExactJson<'a>,
    colon: &'static str,
    holes: &'h mut ShapeHoles,
}

impl<'a> Cursor<'a, '_> {
    /// Moves over `"name"` and the colon after it; returns the name.
    fn key(&mut self) -> Option<&'a [u8]> {
        let name = self.j.key()?;
        self.j.lit(self.colon)?;
        Some(name)
    }

    /// Moves over `literal`.
    fn lit(&mut self, literal: &str) -> Option<()> {
        self.j.lit(literal)
    }

    /// Reads `{`, then comma-separated members each read by `member` (which gets the key, with
    /// the cursor at its value), then `}`. `member` returns `None` to give up.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.lit("{")?;
        if self.lit("}").is_some() {
            return Some(());
        }
        loop {
            let key = self.key()?;
            member(self, key)?;
            if self.lit(",").is_none() {
                return self.lit("}");
            }
        }
    }
}

/// Marks `bit` as seen; `None` when it was seen before (a repeated key: serde's to judge).
fn once(seen: &mut u32, bit: u32) -> Option<()> {
    if *seen & bit != 0 {
        return None;
    }
    *seen |= bit;
    Some(())
}

/// The text and usage of `data` when it is a text chunk in the API's shape:
/// `{"candidates": [{"content": {"parts": [{"text": …}],"role": "model"},"index": 0}],
/// "usageMetadata": {…},"modelVersion": …,"responseId": …}`, with the candidate's `index` and
/// an empty `groundingMetadata` optional, the content's `parts` and `role` in either order,
/// the usage counters (and their per-modality details and `trafficType`) in any order, the
/// top-level keys after `candidates` (`usageMetadata`, `modelVersion`, `responseId`,
/// `createTime`) in any order, each key at most once. `None` for anything else.
/// The text and the counters are recorded in `holes`.
pub(super) fn exact_text(data: &[u8], holes: &mut ShapeHoles) -> Option<TextChunk> {
    let mut j = ExactJson::new(data);
    j.lit(r#"{"candidates":"#)?;
    let colon = if j.lit(" ").is_some() { ": " } else { ":" };
    let mut c = Cursor { j, colon, holes };
    c.lit("[")?;
    let text = candidate(&mut c)?;
    c.lit("]")?;
    let mut seen = 0u32;
    let mut usage = None;
    while c.lit(",").is_some() {
        let bit = match c.key()? {
            b"usageMetadata" => {
                once(&mut seen, 1)?;
                usage = Some(usage_metadata(&mut c)?);
                continue;
            }
            b"modelVersion" => 2,
            b"responseId" => 4,
            b"createTime" => 8,
            _ => return None,
        };
        once(&mut seen, bit)?;
        c.j.string_at()?;
    }
    c.lit("}")?;
    c.j.is_end().then_some(TextChunk { text, usage })
}

/// `{"content": {"parts": [{"text": …}],"role": "model"},"index": 0}`: the text.
fn candidate(c: &mut Cursor<'_, '_>) -> Option<ExactStr> {
    let mut text = None;
    let mut seen = 0u32;
    c.object(|c, key| match key {
        b"content" => {
            once(&mut seen, 1)?;
            text = Some(content(c)?);
            Some(())
        }
        b"index" => {
            once(&mut seen, 2)?;
            c.j.uint().map(drop)
        }
        // Streams repeat an empty `groundingMetadata` on every chunk before the real one.
        b"groundingMetadata" => {
            once(&mut seen, 4)?;
            c.lit("{}")
        }
        _ => None,
    })?;
    text
}

/// `{"parts": [{"text": …}],"role": "model"}`: the text.
fn content(c: &mut Cursor<'_, '_>) -> Option<ExactStr> {
    let mut text = None;
    let mut seen = 0u32;
    c.object(|c, key| match key {
        b"parts" => {
            once(&mut seen, 1)?;
            c.lit("[{")?;
            (c.key()? == b"text").then_some(())?;
            text = Some(c.holes.string(&mut c.j, TEXT)?);
            c.lit("}]")
        }
        b"role" => {
            once(&mut seen, 2)?;
            c.lit(r#""model""#)
        }
        _ => None,
    })?;
    text
}

/// The counters of `usageMetadata`, in the order of their bits in `seen`.
const COUNTERS: [&str; 6] = [
    "promptTokenCount",
    "cachedContentTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
    "toolUsePromptTokenCount",
    "totalTokenCount",
];

/// Sets the counter at `at` in [`COUNTERS`] (a place past them sets none).
fn set_counter(u: &mut UsageMetadata, at: usize, n: u64) {
    match at {
        0 => u.prompt_token_count = n,
        1 => u.cached_content_token_count = n,
        2 => u.candidates_token_count = n,
        3 => u.thoughts_token_count = n,
        4 => u.tool_use_prompt_token_count = n,
        5 => u.total_token_count = Some(n),
        _ => {}
    }
}

/// Its per-modality details (lists of counts the usage does not read).
const DETAILS: [&str; 4] =
    ["promptTokensDetails", "cacheTokensDetails", "candidatesTokensDetails", "toolUsePromptTokensDetails"];

/// A `usageMetadata` object of counters, per-modality details and `trafficType`.
fn usage_metadata(c: &mut Cursor<'_, '_>) -> Option<UsageMetadata> {
    let mut u = UsageMetadata::default();
    let mut seen = 0u32;
    c.object(|c, key| {
        if let Some(at) = COUNTERS.iter().position(|k| k.as_bytes() == key) {
            once(&mut seen, 1 << at)?;
            let n = if PROMPT_COUNTERS.contains(&at) {
                c.j.uint()?
            } else {
                c.holes.uint(&mut c.j, u8::try_from(at + 1).ok()?)?
            };
            set_counter(&mut u, at, n);
            Some(())
        } else if let Some(at) = DETAILS.iter().position(|k| k.as_bytes() == key) {
            once(&mut seen, 1 << (COUNTERS.len() + at))?;
            modality_counts(c)
        } else if key == b"trafficType" {
            once(&mut seen, 1 << (COUNTERS.len() + DETAILS.len()))?;
            c.j.string_at().map(drop)
        } else {
            None
        }
    })?;
    Some(u)
}

/// `[{"modality": "TEXT","tokenCount": 17},…]` (the count left out when zero).
fn modality_counts(c: &mut Cursor<'_, '_>) -> Option<()> {
    c.lit("[")?;
    loop {
        c.lit("{")?;
        (c.key()? == b"modality").then_some(())?;
        c.j.string_at()?;
        if c.lit(",").is_some() {
            (c.key()? == b"tokenCount").then_some(())?;
            c.j.uint()?;
        }
        c.lit("}")?;
        if c.lit(",").is_none() {
            return c.lit("]");
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::stream::ChunkDecoder;

    /// Both paths from the same start: a first chunk, then each of `data`.
    fn run(exact: bool, data: &[&str]) -> Result<Vec<dive_core::StreamEvent>, String> {
        let mut d = ChunkDecoder::new();
        d.serde_only = !exact;
        d.chunk(r#"{"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"},"index": 0}],"responseId": "r1"}"#)
            .unwrap();
        let mut events = Vec::new();
        for data in data {
            events.extend(d.chunk(data).map_err(|e| e.message)?);
        }
        // The usage the chunks left behind shows on the stop that follows.
        events.extend(d.chunk(r#"{"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"finishReason": "STOP"}]}"#).unwrap());
        Ok(events)
    }

    /// A `usageMetadata` of the counters `keys` (`8`: a number JSON does not allow), each
    /// output count `bump` more and each prompt count `prompt_bump` more.
    fn usage(keys: &[usize], bump: u64, prompt_bump: u64) -> String {
        let members: Vec<String> = keys
            .iter()
            .map(|k| match k {
                0 => format!(r#""promptTokenCount": {}"#, 17 + prompt_bump),
                1 => format!(r#""candidatesTokenCount": {}"#, 29 + bump),
                2 => format!(r#""totalTokenCount": {}"#, 469 + bump),
                3 => {
                    r#""promptTokensDetails": [{"modality": "TEXT","tokenCount": 17},{"modality": "IMAGE"}]"#
                        .to_owned()
                }
                4 => format!(r#""thoughtsTokenCount": {}"#, 319 + bump),
                5 => format!(r#""toolUsePromptTokenCount": {}"#, 104 + prompt_bump),
                6 => format!(r#""cachedContentTokenCount": {}"#, 3 + prompt_bump),
                7 => r#""trafficType": "ON_DEMAND""#.to_owned(),
                _ => r#""candidatesTokenCount": 01"#.to_owned(),
            })
            .collect();
        format!("{{{}}}", members.join(","))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1500))]

        /// A chunk, and the same chunk again with other text and counts (read by the learned
        /// shape, or learned anew when the prompt's counts changed), decode as serde decodes
        /// them.
        #[test]
        fn the_fast_path_agrees_with_serde(
            text in proptest::collection::vec((any::<char>(), any::<bool>()), 0..16),
            next_text in proptest::collection::vec((any::<char>(), any::<bool>()), 0..16),
            bump in 0u64..2000,
            prompt_bump in 0u64..2,
            candidate_keys in proptest::collection::vec(0usize..5, 1..4),
            usage_keys in proptest::collection::vec(0usize..9, 0..6),
            top_keys in proptest::collection::vec(0usize..5, 0..4),
            compact in any::<bool>(),
        ) {
            let chunk = |text: &[(char, bool)], bump: u64, prompt_bump: u64| {
                let parts = format!(r#""parts": [{{"text": {}}}],"role": "model""#, dive_test::json_string_escaping(text));
                let candidate: Vec<String> = candidate_keys.iter().map(|k| match k {
                    0 | 1 => format!(r#""content": {{{parts}}}"#),
                    2 => r#""index": 0"#.to_owned(),
                    3 => r#""groundingMetadata": {}"#.to_owned(),
                    _ => r#""finishReason": "STOP""#.to_owned(),
                }).collect();
                let top: Vec<String> = top_keys.iter().map(|k| match k {
                    0 => format!(r#""usageMetadata": {}"#, usage(&usage_keys, bump, prompt_bump)),
                    1 => r#""modelVersion": "gemini-2.5-pro""#.to_owned(),
                    2 => r#""responseId": "wld8aaaZGLGwqtsPqv7A4AI""#.to_owned(),
                    3 => r#""createTime": "2026-12-02T10:00:00Z""#.to_owned(),
                    _ => r#""promptFeedback": {"blockReason": "SAFETY"}"#.to_owned(),
                }).collect();
                let mut members = vec![format!(r#""candidates": [{{{}}}]"#, candidate.join(","))];
                members.extend(top.iter().cloned());
                let data = format!("{{{}}}", members.join(","));
                if compact { data.replace("\": ", "\":") } else { data }
            };
            let (data, next) = (chunk(&text, 0, 0), chunk(&next_text, bump, prompt_bump));
            prop_assert_eq!(run(true, &[&data, &next]), run(false, &[&data, &next]), "{} then {}", data, next);
            let unique = |keys: &[usize], alias: fn(usize) -> usize| {
                let mut k: Vec<usize> = keys.iter().map(|&k| alias(k)).collect();
                k.sort_unstable();
                k.dedup();
                k.len() == keys.len()
            };
            let expected = unique(&candidate_keys, |k| if k == 1 { 0 } else { k })
                && candidate_keys.iter().any(|&k| k < 2)
                && candidate_keys.iter().all(|&k| k < 4)
                && unique(&top_keys, |k| k)
                && top_keys.iter().all(|&k| k < 4)
                && (!top_keys.contains(&0) || (unique(&usage_keys, |k| k) && usage_keys.iter().all(|&k| k < 8)));
            if expected {
                prop_assert!(exact_text(data.as_bytes(), &mut ShapeHoles::default()).is_some(), "the fast path refused {}", data);
                let mut shape = TextShape::default();
                shape.read(data.as_bytes()).unwrap();
                let read = shape.read(next.as_bytes());
                prop_assert!(read.is_some(), "the learned shape refused {} after {}", next, data);
            }
        }
    }

    #[test]
    fn the_recorded_text_chunk_takes_the_fast_path() {
        let data = r#"{"candidates": [{"content": {"parts": [{"text": "San Francisco, CA** - Residents"}],"role": "model"},"index": 0,"groundingMetadata": {}}],"usageMetadata": {"promptTokenCount": 17,"candidatesTokenCount": 54,"totalTokenCount": 494,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 17}],"toolUsePromptTokenCount": 104,"toolUsePromptTokensDetails": [{"modality": "TEXT","tokenCount": 104}],"thoughtsTokenCount": 319},"modelVersion": "gemini-2.5-pro","responseId": "wld8aaaZGLGwqtsPqv7A4AI"}"#;
        let chunk = exact_text(data.as_bytes(), &mut ShapeHoles::default()).unwrap();
        assert_eq!(chunk.text.to_string_in(data), "San Francisco, CA** - Residents");
        let usage = chunk.usage.unwrap();
        assert_eq!((usage.prompt_token_count, usage.total_token_count), (17, Some(494)));
        assert_eq!((usage.thoughts_token_count, usage.tool_use_prompt_token_count), (319, 104));
        assert_eq!(run(true, &[data, data]), run(false, &[data, data]));
    }
}
