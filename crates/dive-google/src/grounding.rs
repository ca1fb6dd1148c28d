//! Gemini `groundingMetadata` → citations on the text blocks its supports point at.
//!
//! A grounding support names a segment of the answer (`partIndex`, byte offsets
//! `startIndex`..`endIndex`, and its `text`) and the grounding chunks (web pages, retrieved
//! documents, places) that back it. Each (segment, chunk) pair becomes one [`Citation`] of
//! type `google_grounding` on the text block holding the segment:
//! `{"type": "google_grounding", "cited_text", "start_index", "end_index", "chunk_index",
//! "source", "url", "title", "confidence"}` (offsets are bytes of the block's text; `source` is
//! the chunk's kind: `web`, `retrievedContext`, `maps`, …). The whole `groundingMetadata`
//! stays on the response's metadata as well, verbatim.

use dive_core::Citation;
use serde_json::{Value, json};

/// The citation type of a Gemini grounding support.
pub(crate) const GROUNDING_CITATION: &str = "google_grounding";

fn index(v: &Value, key: &str) -> Option<usize> {
    v.get(key).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok())
}

/// Where a segment lies: the position among `blocks` and its byte range in that text.
fn locate(segment: &Value, blocks: &[Option<&str>]) -> Option<(usize, usize, usize)> {
    let start = index(segment, "startIndex").unwrap_or(0);
    let end = index(segment, "endIndex")?;
    let text = segment.get("text").and_then(Value::as_str);
    let fits = |t: &str| t.get(start..end).is_some_and(|slice| text.is_none_or(|s| s == slice));
    let part = index(segment, "partIndex").unwrap_or(0);
    let texts = || blocks.iter().enumerate().filter_map(|(i, b)| b.map(|t| (i, t)));
    if let Some(Some(t)) = blocks.get(part)
        && fits(t)
    {
        return Some((part, start, end));
    }
    // Streamed parts are merged into fewer blocks, so a part index may not name a block:
    // the offsets, then the segment's own text, find it.
    if let Some((i, _)) = texts().find(|(_, t)| fits(t)) {
        return Some((i, start, end));
    }
    let text = text.filter(|s| !s.is_empty())?;
    texts().find_map(|(i, t)| t.find(text).map(|at| (i, at, at + text.len())))
}

/// The citations of a candidate's `groundingMetadata`, each with the position (among
/// `blocks`, one entry a block, `Some(text)` for text blocks) of the block it belongs to.
pub(crate) fn grounding_citations(metadata: &Value, blocks: &[Option<&str>]) -> Vec<(usize, Citation)> {
    let chunks = metadata.get("groundingChunks").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let mut out = Vec::new();
    for support in metadata.get("groundingSupports").and_then(Value::as_array).into_iter().flatten() {
        let Some(segment) = support.get("segment") else { continue };
        let Some((block, start, end)) = locate(segment, blocks) else {
            tracing::debug!("a Gemini grounding support matches no text block; kept in metadata only");
            continue;
        };
        let scores = support.get("confidenceScores").and_then(Value::as_array);
        let indices = support.get("groundingChunkIndices").and_then(Value::as_array).into_iter().flatten();
        for (n, chunk_index) in indices.filter_map(Value::as_u64).enumerate() {
            let mut c = Citation::new(GROUNDING_CITATION);
            c.cited_text = segment.get("text").and_then(Value::as_str).map(str::to_owned);
            c.fields.insert("start_index".into(), json!(start));
            c.fields.insert("end_index".into(), json!(end));
            c.fields.insert("chunk_index".into(), json!(chunk_index));
            let chunk = usize::try_from(chunk_index).ok().and_then(|i| chunks.get(i));
            if let Some((source, body)) = chunk.and_then(Value::as_object).and_then(|m| m.iter().next()) {
                c.fields.insert("source".into(), json!(source));
                for (from, to) in [("uri", "url"), ("title", "title")] {
                    if let Some(v) = body.get(from).filter(|v| !v.is_null()) {
                        c.fields.insert(to.into(), v.clone());
                    }
                }
            }
            if let Some(score) = scores.and_then(|s| s.get(n)) {
                c.fields.insert("confidence".into(), score.clone());
            }
            out.push((block, c));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_bytes_and_text_finds_merged_parts() {
        let meta = json!({
            "groundingChunks": [{"web": {"uri": "https://a.example", "title": "a"}}],
            "groundingSupports": [
                {"segment": {"startIndex": 6, "endIndex": 12, "text": "52°F."}, "groundingChunkIndices": [0],
                 "confidenceScores": [0.9]},
                {"segment": {"partIndex": 3, "startIndex": 0, "endIndex": 4, "text": "Rain"}, "groundingChunkIndices": [0]},
                {"segment": {"startIndex": 0, "endIndex": 4, "text": "none"}, "groundingChunkIndices": [0]}
            ]
        });
        let blocks = [None, Some("High: 52°F. Rain later.")];
        let c = grounding_citations(&meta, &blocks);
        assert_eq!(c.len(), 2, "the third support matches no text");
        assert_eq!(c[0].0, 1);
        assert_eq!(c[0].1.fields["start_index"], 6);
        assert_eq!(c[0].1.fields["end_index"], 12);
        assert_eq!(
            (c[0].1.fields["url"].as_str(), c[0].1.fields["confidence"].as_f64()),
            (Some("https://a.example"), Some(0.9))
        );
        assert_eq!(
            (c[1].1.fields["start_index"].as_u64(), c[1].1.fields["end_index"].as_u64()),
            (Some(13), Some(17))
        );
    }
}
