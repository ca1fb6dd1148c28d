//! Cosine similarity and top-k selection shared by the vector stores.

use std::cmp::Ordering;

/// The Euclidean norm.
#[must_use]
pub fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

/// Cosine similarity from a dot product and the two norms (0 when either norm is 0).
#[must_use]
pub fn cosine_with_norms(a: &[f32], b: &[f32], norm_a: f32, norm_b: f32) -> f32 {
    if norm_a == 0.0 || norm_b == 0.0 {
        return 0.0;
    }
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    dot / (norm_a * norm_b)
}

/// Cosine similarity (0 when either vector is all zeros).
///
/// ```
/// assert!((dive_memory::cosine(&[1.0, 1.0], &[2.0, 2.0]) - 1.0).abs() < 1e-6);
/// ```
#[must_use]
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    cosine_with_norms(a, b, norm(a), norm(b))
}

/// Descending by score, ties by key so results are deterministic.
pub(crate) fn by_score_desc<K: Ord>(a: &(f32, K), b: &(f32, K)) -> Ordering {
    b.0.partial_cmp(&a.0).unwrap_or(Ordering::Equal).then_with(|| a.1.cmp(&b.1))
}

/// The `k` best `(score, key)` pairs, best first, in O(n) plus O(k log k).
pub(crate) fn top_k<K: Ord>(mut scored: Vec<(f32, K)>, k: usize) -> Vec<(f32, K)> {
    if k == 0 {
        return Vec::new();
    }
    if scored.len() > k {
        scored.select_nth_unstable_by(k - 1, by_score_desc);
        scored.truncate(k);
    }
    scored.sort_by(by_score_desc);
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_is_the_best_k_in_order() {
        let scored: Vec<(f32, usize)> = [0.1, 0.9, 0.5, 0.7, 0.3].into_iter().zip(0..).collect();
        assert_eq!(top_k(scored.clone(), 3).into_iter().map(|p| p.1).collect::<Vec<_>>(), [1, 3, 2]);
        assert_eq!(top_k(scored.clone(), 10).len(), 5);
        assert!(top_k(scored, 0).is_empty());
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }
}
