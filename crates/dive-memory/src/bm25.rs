//! An in-memory BM25 keyword index (Okapi BM25, k1 = 1.2, b = 0.75), kept up to date on each
//! insert and removal.

use std::collections::{BTreeMap, HashMap};

/// Words of a text: lowercased runs of letters and digits.
pub(crate) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// Term frequencies per document, postings per term.
#[derive(Debug, Default)]
pub(crate) struct Bm25 {
    /// document id → (term → count), and its length in words.
    docs: HashMap<String, (HashMap<String, u32>, u32)>,
    /// term → ids of documents holding it.
    postings: HashMap<String, BTreeMap<String, u32>>,
    total_len: u64,
}

impl Bm25 {
    pub(crate) fn insert(&mut self, id: &str, text: &str) {
        self.remove(id);
        let mut tf: HashMap<String, u32> = HashMap::new();
        let mut len = 0u32;
        for w in words(text) {
            *tf.entry(w).or_default() += 1;
            len += 1;
        }
        for (term, n) in &tf {
            self.postings.entry(term.clone()).or_default().insert(id.to_owned(), *n);
        }
        self.total_len += u64::from(len);
        self.docs.insert(id.to_owned(), (tf, len));
    }

    pub(crate) fn remove(&mut self, id: &str) {
        if let Some((tf, len)) = self.docs.remove(id) {
            for term in tf.keys() {
                if let Some(p) = self.postings.get_mut(term) {
                    p.remove(id);
                    if p.is_empty() {
                        self.postings.remove(term);
                    }
                }
            }
            self.total_len -= u64::from(len);
        }
    }

    /// Every matching document's score (ids with at least one query word).
    #[allow(clippy::cast_precision_loss)]
    pub(crate) fn scores(&self, query: &str) -> HashMap<&str, f32> {
        let n = self.docs.len() as f32;
        let avg = if self.docs.is_empty() { 1.0 } else { self.total_len as f32 / n };
        let mut terms: Vec<String> = words(query).collect();
        terms.sort_unstable();
        terms.dedup();
        let mut out: HashMap<&str, f32> = HashMap::new();
        for term in &terms {
            let Some(posting) = self.postings.get(term) else { continue };
            let df = posting.len() as f32;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for (id, tf) in posting {
                let len = self.docs.get(id).map_or(0, |d| d.1) as f32;
                let tf = *tf as f32;
                let s = idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg));
                *out.entry(id.as_str()).or_default() += s;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rarer_and_more_words_score_higher_and_removal_forgets() {
        let mut index = Bm25::default();
        index.insert("a", "rust memory safety");
        index.insert("b", "rust rust compiler");
        index.insert("c", "python memory");
        let s = index.scores("memory safety");
        assert!(s["a"] > s["c"], "{s:?}");
        assert!(!s.contains_key("b"));
        index.remove("a");
        assert!(!index.scores("safety").contains_key("a"));
        index.insert("c", "golang");
        assert!(index.scores("python").is_empty(), "re-inserting replaces the old text");
    }
}
