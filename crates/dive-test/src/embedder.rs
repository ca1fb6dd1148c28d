//! [`HashEmbedder`]: a deterministic, offline [`Embedder`] for tests and examples.

use dive_core::{BoxFuture, Embedder, MemoryError};

/// A deterministic embedder: each lowercased word (and each of its character trigrams, at a
/// lower weight) is hashed into one of `dimensions` buckets with a hashed sign, and the vector
/// is normalized to unit length. Texts that share words score closer than texts that do not;
/// the same text always gives the same vector; no network, no model.
///
/// ```
/// use dive_core::Embedder;
/// use dive_test::{HashEmbedder, cosine};
///
/// let e = HashEmbedder::new(64);
/// let v = futures::executor::block_on(e.embed(&[
///     "the cat sat on the mat".to_owned(),
///     "a cat on a mat".to_owned(),
///     "quarterly revenue grew".to_owned(),
/// ]))
/// .unwrap();
/// assert!(cosine(&v[0], &v[1]) > cosine(&v[0], &v[2]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashEmbedder {
    dimensions: usize,
}

impl HashEmbedder {
    /// An embedder of vectors of this length (at least 1).
    #[must_use]
    pub fn new(dimensions: usize) -> Self {
        Self { dimensions: dimensions.max(1) }
    }

    /// The vector of one text (all zeros for a text with no word).
    #[must_use]
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; self.dimensions];
        for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            let word = word.to_lowercase();
            self.add(&mut v, word.as_bytes(), 1.0);
            let chars: Vec<char> = format!("^{word}$").chars().collect();
            for tri in chars.windows(3) {
                let tri: String = tri.iter().collect();
                self.add(&mut v, tri.as_bytes(), 0.25);
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }

    fn add(&self, v: &mut [f32], feature: &[u8], weight: f32) {
        let h = fnv1a(feature);
        // Bucket from the low bits, sign from a high bit, so collisions cancel on average.
        let bucket = usize::try_from(h % self.dimensions as u64).unwrap_or(0);
        let sign = if (h >> 63) == 0 { 1.0 } else { -1.0 };
        v[bucket] += sign * weight;
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl Embedder for HashEmbedder {
    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, MemoryError>> {
        Box::pin(std::future::ready(Ok(texts.iter().map(|t| self.vector(t)).collect())))
    }
}

/// Cosine similarity of two vectors (0 when either is all zeros or the lengths differ).
///
/// ```
/// assert!((dive_test::cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-6);
/// assert_eq!(dive_test::cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
/// ```
#[must_use]
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 { 0.0 } else { dot / (na.sqrt() * nb.sqrt()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_text_same_vector_and_unit_length() {
        let e = HashEmbedder::new(128);
        let a = e.vector("Rust ownership rules");
        assert_eq!(a, e.vector("rust OWNERSHIP rules"));
        let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "norm {norm}");
        assert!(e.vector("   ").iter().all(|x| *x == 0.0));
    }

    #[test]
    fn shared_words_score_closer() {
        let e = HashEmbedder::new(256);
        let q = e.vector("where does ada live");
        let near = e.vector("ada lives in london");
        let far = e.vector("the build uses two cores");
        assert!(cosine(&q, &near) > cosine(&q, &far) + 0.1, "{} vs {}", cosine(&q, &near), cosine(&q, &far));
    }
}
