//! The byte-shape fast path for Gemini text chunks: most of a stream is chunks whose one
//! candidate carries one text part, in the shape the API writes every time (the whole usage so
//! far, the model version and the response id repeated on each). Such a chunk is read here
//! without the JSON parser. Anything else — another part, a finish reason, metadata, an
//! unknown or repeated key, other spacing — falls back to the serde path in `stream.rs`; the
//! property test below holds the two to the same answers.

use dive_provider::{ExactJson, ExactStr};

use crate::response::UsageMetadata;

/// A text chunk read by [`exact_text`]: its text and its usage snapshot, if it had one.
#[derive(Debug)]
pub(super) struct TextChunk {
    pub text: ExactStr,
    pub usage: Option<UsageMetadata>,
}

/// An [`ExactJson`] cursor over one chunk, with the colon the chunk writes between a key and
/// its value: the Gemini API writes `": "`, Vertex AI `":"`; one chunk uses one throughout.
#[derive(Clone, Copy)]
struct Cursor<'a> {
    j: ExactJson<'a>,
    colon: &'static str,
}

impl<'a> Cursor<'a> {
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
pub(super) fn exact_text(data: &[u8]) -> Option<TextChunk> {
    let mut j = ExactJson::new(data);
    j.lit(r#"{"candidates":"#)?;
    let colon = if j.lit(" ").is_some() { ": " } else { ":" };
    let mut c = Cursor { j, colon };
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
fn candidate(c: &mut Cursor<'_>) -> Option<ExactStr> {
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
fn content(c: &mut Cursor<'_>) -> Option<ExactStr> {
    let mut text = None;
    let mut seen = 0u32;
    c.object(|c, key| match key {
        b"parts" => {
            once(&mut seen, 1)?;
            c.lit("[{")?;
            (c.key()? == b"text").then_some(())?;
            text = Some(c.j.string_at()?);
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

/// Its per-modality details (lists of counts the usage does not read).
const DETAILS: [&str; 4] =
    ["promptTokensDetails", "cacheTokensDetails", "candidatesTokensDetails", "toolUsePromptTokensDetails"];

/// A `usageMetadata` object of counters, per-modality details and `trafficType`.
fn usage_metadata(c: &mut Cursor<'_>) -> Option<UsageMetadata> {
    let mut u = UsageMetadata::default();
    let mut seen = 0u32;
    c.object(|c, key| {
        if let Some(at) = COUNTERS.iter().position(|k| k.as_bytes() == key) {
            once(&mut seen, 1 << at)?;
            let n = c.j.uint()?;
            match at {
                0 => u.prompt_token_count = n,
                1 => u.cached_content_token_count = n,
                2 => u.candidates_token_count = n,
                3 => u.thoughts_token_count = n,
                4 => u.tool_use_prompt_token_count = n,
                _ => u.total_token_count = Some(n),
            }
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
fn modality_counts(c: &mut Cursor<'_>) -> Option<()> {
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

    /// Both paths from the same start: a first chunk, then `data`.
    fn run(exact: bool, data: &str) -> Result<Vec<dive_core::StreamEvent>, String> {
        let mut d = ChunkDecoder::new();
        d.serde_only = !exact;
        d.chunk(r#"{"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"},"index": 0}],"responseId": "r1"}"#)
            .unwrap();
        let mut events = d.chunk(data).map_err(|e| e.message)?;
        // The usage the chunk left behind shows on the stop that follows.
        events.extend(d.chunk(r#"{"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"finishReason": "STOP"}]}"#).unwrap());
        Ok(events)
    }

    fn usage(keys: &[usize]) -> String {
        let members: Vec<&str> = keys
            .iter()
            .map(|k| match k {
                0 => r#""promptTokenCount": 17"#,
                1 => r#""candidatesTokenCount": 29"#,
                2 => r#""totalTokenCount": 469"#,
                3 => {
                    r#""promptTokensDetails": [{"modality": "TEXT","tokenCount": 17},{"modality": "IMAGE"}]"#
                }
                4 => r#""thoughtsTokenCount": 319"#,
                5 => r#""toolUsePromptTokenCount": 104"#,
                6 => r#""cachedContentTokenCount": 3"#,
                7 => r#""trafficType": "ON_DEMAND""#,
                _ => r#""candidatesTokenCount": 01"#,
            })
            .collect();
        format!("{{{}}}", members.join(","))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1500))]

        #[test]
        fn the_fast_path_agrees_with_serde(
            text in proptest::collection::vec((any::<char>(), any::<bool>()), 0..16),
            candidate_keys in proptest::collection::vec(0usize..5, 1..4),
            usage_keys in proptest::collection::vec(0usize..9, 0..6),
            top_keys in proptest::collection::vec(0usize..5, 0..4),
            compact in any::<bool>(),
        ) {
            let parts = format!(r#""parts": [{{"text": {}}}],"role": "model""#, dive_test::json_string_escaping(&text));
            let candidate: Vec<String> = candidate_keys.iter().map(|k| match k {
                0 | 1 => format!(r#""content": {{{parts}}}"#),
                2 => r#""index": 0"#.to_owned(),
                3 => r#""groundingMetadata": {}"#.to_owned(),
                _ => r#""finishReason": "STOP""#.to_owned(),
            }).collect();
            let top: Vec<String> = top_keys.iter().map(|k| match k {
                0 => format!(r#""usageMetadata": {}"#, usage(&usage_keys)),
                1 => r#""modelVersion": "gemini-2.5-pro""#.to_owned(),
                2 => r#""responseId": "wld8aaaZGLGwqtsPqv7A4AI""#.to_owned(),
                3 => r#""createTime": "2026-12-02T10:00:00Z""#.to_owned(),
                _ => r#""promptFeedback": {"blockReason": "SAFETY"}"#.to_owned(),
            }).collect();
            let mut members = vec![format!(r#""candidates": [{{{}}}]"#, candidate.join(","))];
            members.extend(top.iter().cloned());
            let mut data = format!("{{{}}}", members.join(","));
            if compact {
                data = data.replace("\": ", "\":");
            }
            prop_assert_eq!(run(true, &data), run(false, &data), "{}", data);
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
                prop_assert!(exact_text(data.as_bytes()).is_some(), "the fast path refused {}", data);
            }
        }
    }

    #[test]
    fn the_recorded_text_chunk_takes_the_fast_path() {
        let data = r#"{"candidates": [{"content": {"parts": [{"text": "San Francisco, CA** - Residents"}],"role": "model"},"index": 0,"groundingMetadata": {}}],"usageMetadata": {"promptTokenCount": 17,"candidatesTokenCount": 54,"totalTokenCount": 494,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 17}],"toolUsePromptTokenCount": 104,"toolUsePromptTokensDetails": [{"modality": "TEXT","tokenCount": 104}],"thoughtsTokenCount": 319},"modelVersion": "gemini-2.5-pro","responseId": "wld8aaaZGLGwqtsPqv7A4AI"}"#;
        let chunk = exact_text(data.as_bytes()).unwrap();
        assert_eq!(chunk.text.to_string_in(data), "San Francisco, CA** - Residents");
        let usage = chunk.usage.unwrap();
        assert_eq!((usage.prompt_token_count, usage.total_token_count), (17, Some(494)));
        assert_eq!((usage.thoughts_token_count, usage.tool_use_prompt_token_count), (319, 104));
        assert_eq!(run(true, data), run(false, data));
    }
}
