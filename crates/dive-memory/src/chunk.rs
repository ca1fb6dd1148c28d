//! Chunkers: how long-term memory splits a message's text before embedding it.

/// Splits text into the pieces that are embedded one by one.
pub trait Chunker: Send + Sync {
    /// The chunks, in order; none for a text with nothing in it.
    fn chunk(&self, text: &str) -> Vec<String>;
}

/// The whole text as one chunk (the default).
#[derive(Debug, Clone, Copy, Default)]
pub struct WholeText;

impl Chunker for WholeText {
    fn chunk(&self, text: &str) -> Vec<String> {
        if text.trim().is_empty() { Vec::new() } else { vec![text.to_owned()] }
    }
}

/// Windows of at most `size` characters, each starting `size - overlap` characters after the
/// previous one, cut at a word boundary when one is near.
///
/// ```
/// use dive_memory::{Chunker, FixedSize};
/// let chunks = FixedSize::new(10, 3).chunk("aaaa bbbb cccc dddd");
/// assert_eq!(chunks, ["aaaa bbbb", "bbbb cccc", "cccc dddd"]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct FixedSize {
    size: usize,
    overlap: usize,
}

impl FixedSize {
    /// Chunks of `size` characters (at least 1) overlapping by `overlap` (less than `size`).
    #[must_use]
    pub fn new(size: usize, overlap: usize) -> Self {
        let size = size.max(1);
        Self { size, overlap: overlap.min(size - 1) }
    }
}

impl Chunker for FixedSize {
    fn chunk(&self, text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut out = Vec::new();
        let mut start = 0;
        while start < chars.len() {
            let mut end = (start + self.size).min(chars.len());
            if end < chars.len() {
                // Back off to the last space in the window's second half, if any.
                if let Some(space) = (start + self.size / 2..end).rev().find(|&i| chars[i].is_whitespace()) {
                    end = space;
                }
            }
            let piece: String = chars[start..end].iter().collect();
            if !piece.trim().is_empty() {
                out.push(piece.trim().to_owned());
            }
            if end >= chars.len() {
                break;
            }
            let mut next = end.saturating_sub(self.overlap).max(start + 1);
            // Start the next chunk on a word, not inside one (back to the word's start).
            while next > start + 1 && !chars[next - 1].is_whitespace() {
                next -= 1;
            }
            start = next;
        }
        out
    }
}

/// Whole sentences packed into chunks of at most `max` characters (a longer sentence is a
/// chunk of its own), the last `overlap` sentences of a chunk repeated at the start of the
/// next.
///
/// ```
/// use dive_memory::{Chunker, Sentences};
/// let chunks = Sentences::new(30, 1).chunk("One is here. Two is here. Three is here.");
/// assert_eq!(chunks, ["One is here. Two is here.", "Two is here. Three is here."]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Sentences {
    max: usize,
    overlap: usize,
}

impl Sentences {
    /// Chunks of at most `max` characters, `overlap` sentences shared between neighbours.
    #[must_use]
    pub fn new(max: usize, overlap: usize) -> Self {
        Self { max: max.max(1), overlap }
    }
}

/// Sentences: text up to and including `.`, `!` or `?` followed by whitespace (or the end).
pub(crate) fn split_sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?') && chars.peek().is_none_or(|(_, n)| n.is_whitespace()) {
            let end = i + c.len_utf8();
            let s = text[start..end].trim();
            if !s.is_empty() {
                out.push(s);
            }
            start = end;
        }
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

fn char_len(parts: &[&str]) -> usize {
    parts.iter().map(|p| p.chars().count()).sum::<usize>() + parts.len().saturating_sub(1)
}

impl Chunker for Sentences {
    fn chunk(&self, text: &str) -> Vec<String> {
        let sentences = split_sentences(text);
        let mut out = Vec::new();
        let mut current: Vec<&str> = Vec::new();
        let mut fresh = 0; // sentences in `current` not yet in an emitted chunk
        for s in sentences {
            let mut candidate = current.clone();
            candidate.push(s);
            if !current.is_empty() && char_len(&candidate) > self.max && fresh > 0 {
                out.push(current.join(" "));
                let keep = self.overlap.min(current.len());
                current = current[current.len() - keep..].to_vec();
                // Drop overlap that would not leave room for the new sentence.
                while !current.is_empty() && char_len(&current) + 1 + s.chars().count() > self.max {
                    current.remove(0);
                }
                fresh = 0;
            }
            current.push(s);
            fresh += 1;
        }
        if fresh > 0 {
            out.push(current.join(" "));
        }
        out
    }
}

/// Splits on paragraphs (`\n\n`), then lines, then sentences, then words, going one level
/// deeper only for a piece still over `size` characters, and packs neighbouring pieces back
/// together up to `size`.
///
/// ```
/// use dive_memory::{Chunker, Recursive};
/// let text = "First paragraph is short.\n\nSecond paragraph. It has two sentences that run long.";
/// let chunks = Recursive::new(40).chunk(text);
/// assert_eq!(chunks, ["First paragraph is short.", "Second paragraph.", "It has two sentences that run long."]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Recursive {
    size: usize,
}

impl Recursive {
    /// Chunks of at most `size` characters (a single word longer than that stays whole).
    #[must_use]
    pub fn new(size: usize) -> Self {
        Self { size: size.max(1) }
    }

    fn split<'a>(&self, text: &'a str, level: usize, out: &mut Vec<&'a str>) {
        if text.chars().count() <= self.size || level > 3 {
            if !text.trim().is_empty() {
                out.push(text.trim());
            }
            return;
        }
        let pieces: Vec<&str> = match level {
            0 => text.split("\n\n").collect(),
            1 => text.split('\n').collect(),
            2 => split_sentences(text),
            _ => text.split_whitespace().collect(),
        };
        for piece in pieces {
            self.split(piece, level + 1, out);
        }
    }
}

impl Chunker for Recursive {
    fn chunk(&self, text: &str) -> Vec<String> {
        let mut pieces = Vec::new();
        self.split(text, 0, &mut pieces);
        let mut out: Vec<String> = Vec::new();
        for piece in pieces {
            match out.last_mut() {
                Some(last) if last.chars().count() + 1 + piece.chars().count() <= self.size => {
                    last.push(' ');
                    last.push_str(piece);
                }
                _ => out.push(piece.to_owned()),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_size_covers_the_text_with_overlap() {
        let text = "the quick brown fox jumps over the lazy dog again and again";
        let chunks = FixedSize::new(20, 8).chunk(text);
        assert!(chunks.iter().all(|c| c.chars().count() <= 20), "{chunks:?}");
        for w in text.split_whitespace() {
            assert!(chunks.iter().any(|c| c.contains(w)), "{w} lost in {chunks:?}");
        }
        // Neighbours share a word.
        for pair in chunks.windows(2) {
            let a: Vec<&str> = pair[0].split_whitespace().collect();
            assert!(pair[1].split_whitespace().any(|w| a.contains(&w)), "no overlap in {pair:?}");
        }
        assert!(FixedSize::new(5, 0).chunk("   ").is_empty());
    }

    #[test]
    fn sentences_never_split_a_sentence() {
        let text = "Alpha beta. Gamma delta epsilon! Zeta? Eta theta iota kappa lambda mu nu.";
        let chunks = Sentences::new(25, 0).chunk(text);
        assert_eq!(
            chunks,
            ["Alpha beta.", "Gamma delta epsilon!", "Zeta?", "Eta theta iota kappa lambda mu nu."]
        );
        assert_eq!(split_sentences("v1.2 is out. Yes"), ["v1.2 is out.", "Yes"]);
    }

    #[test]
    fn recursive_goes_down_to_words_only_when_needed() {
        let chunks = Recursive::new(10).chunk("aaaa bbbb cccc");
        assert_eq!(chunks, ["aaaa bbbb", "cccc"]);
        assert!(WholeText.chunk("").is_empty());
    }
}
