//! [`ThinkSplitter`]: separates `<think>…</think>` reasoning from answer text in a `content`
//! string that arrives in pieces, with tags split across pieces at any character.

const OPEN: &str = "<think>";
const CLOSE: &str = "</think>";

/// One piece of split content.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ThinkSegment {
    /// Reasoning text (inside `<think>…</think>`).
    Thinking(String),
    /// Answer text.
    Text(String),
}

/// Splits streamed `content` into thinking and text.
///
/// Text that might be the start of a tag (`<thi`) is held back until the next piece decides
/// it; [`finish`](Self::finish) releases it. Whitespace right after a closing tag is dropped,
/// since models put a blank line there that belongs to neither part.
///
/// ```
/// use dive_ollama::{ThinkSegment, ThinkSplitter};
/// let mut s = ThinkSplitter::new();
/// let mut out = s.push("<thi");
/// out.extend(s.push("nk>hmm</th"));
/// out.extend(s.push("ink>\n\nHello"));
/// out.extend(s.finish());
/// assert_eq!(out, vec![ThinkSegment::Thinking("hmm".into()), ThinkSegment::Text("Hello".into())]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ThinkSplitter {
    in_think: bool,
    pending: String,
    skip_whitespace: bool,
}

impl ThinkSplitter {
    /// A splitter outside any `<think>` block.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the text seen so far ends inside an unclosed `<think>` block.
    #[must_use]
    pub fn in_think(&self) -> bool {
        self.in_think
    }

    /// Feeds the next piece; returns what is decided so far (adjacent pieces of one kind are
    /// not merged across calls).
    pub fn push(&mut self, piece: &str) -> Vec<ThinkSegment> {
        let mut buf = std::mem::take(&mut self.pending);
        buf.push_str(piece);
        let mut out = Vec::new();
        let mut rest = buf.as_str();
        loop {
            let tag = if self.in_think { CLOSE } else { OPEN };
            if let Some(pos) = rest.find(tag) {
                self.emit(&rest[..pos], &mut out);
                self.in_think = !self.in_think;
                self.skip_whitespace = !self.in_think;
                rest = &rest[pos + tag.len()..];
                continue;
            }
            // Keep back the longest suffix that could begin the tag. Tags are ASCII and start
            // with '<', so the cut is always on a character boundary.
            let keep =
                (1..tag.len().min(rest.len() + 1)).rev().find(|&n| rest.ends_with(&tag[..n])).unwrap_or(0);
            let (now, later) = rest.split_at(rest.len() - keep);
            self.emit(now, &mut out);
            self.pending = later.to_owned();
            return out;
        }
    }

    /// Releases held-back text at the end of the content.
    pub fn finish(&mut self) -> Vec<ThinkSegment> {
        let pending = std::mem::take(&mut self.pending);
        let mut out = Vec::new();
        self.emit(&pending, &mut out);
        out
    }

    fn emit(&mut self, text: &str, out: &mut Vec<ThinkSegment>) {
        let text = if self.skip_whitespace && !self.in_think { text.trim_start() } else { text };
        if text.is_empty() {
            return;
        }
        if self.in_think {
            out.push(ThinkSegment::Thinking(text.to_owned()));
        } else {
            self.skip_whitespace = false;
            out.push(ThinkSegment::Text(text.to_owned()));
        }
    }
}

/// Splits a whole `content` string; adjacent segments of one kind are merged.
pub(crate) fn split_all(content: &str) -> Vec<ThinkSegment> {
    let mut s = ThinkSplitter::new();
    let mut parts = s.push(content);
    parts.extend(s.finish());
    merge(parts)
}

/// Merges adjacent segments of one kind.
fn merge(parts: Vec<ThinkSegment>) -> Vec<ThinkSegment> {
    let mut merged: Vec<ThinkSegment> = Vec::new();
    for p in parts {
        match (merged.last_mut(), p) {
            (Some(ThinkSegment::Text(a)), ThinkSegment::Text(b))
            | (Some(ThinkSegment::Thinking(a)), ThinkSegment::Thinking(b)) => a.push_str(&b),
            (_, p) => merged.push(p),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(s: &str) -> ThinkSegment {
        ThinkSegment::Text(s.into())
    }
    fn th(s: &str) -> ThinkSegment {
        ThinkSegment::Thinking(s.into())
    }

    #[test]
    fn whole_strings_split() {
        assert_eq!(split_all("plain"), vec![t("plain")]);
        assert_eq!(split_all("<think>a</think>b"), vec![th("a"), t("b")]);
        assert_eq!(split_all("x <think>a</think>\n\n y"), vec![t("x "), th("a"), t("y")]);
        assert_eq!(split_all("<think>unclosed"), vec![th("unclosed")]);
        assert_eq!(split_all("a < b and <thin"), vec![t("a < b and <thin")]);
        assert_eq!(split_all("é<think>ü</think>ß"), vec![t("é"), th("ü"), t("ß")]);
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_same_split(cuts in proptest::collection::vec(0usize..60, 0..8)) {
            let text = "Intro é <think>step 1 </thin k> step 2</think>\n Answer <b>bold</b> <think>again</think>end";
            let whole = split_all(text);
            let mut cuts: Vec<usize> = cuts.into_iter().filter(|c| *c < text.len() && text.is_char_boundary(*c)).collect();
            cuts.sort_unstable();
            cuts.dedup();
            let mut s = ThinkSplitter::new();
            let mut parts = Vec::new();
            let mut start = 0;
            for c in cuts.into_iter().chain([text.len()]) {
                parts.extend(s.push(&text[start..c]));
                start = c;
            }
            parts.extend(s.finish());
            prop_assert_eq!(merge(parts), whole);
        }
    }
}
