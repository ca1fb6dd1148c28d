//! Cosine similarity and top-k selection shared by the vector stores.

use std::cmp::Ordering;

/// The Euclidean norm.
#[must_use]
pub fn norm(v: &[f32]) -> f32 {
    dot(v, v).sqrt()
}

/// The dot product, summed in eight independent lanes so the compiler can vectorize it (a
/// single running sum is one long dependency chain that floating-point rules forbid
/// reordering).
#[must_use]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut lanes = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for ((lane, p), q) in lanes.iter_mut().zip(x).zip(y) {
            *lane += p * q;
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f32>() + tail
}

/// Cosine similarity from a dot product and the two norms (0 when either norm is 0).
#[must_use]
pub fn cosine_with_norms(a: &[f32], b: &[f32], norm_a: f32, norm_b: f32) -> f32 {
    if norm_a == 0.0 || norm_b == 0.0 {
        return 0.0;
    }
    dot(a, b) / (norm_a * norm_b)
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
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..19).map(|i| (i % 3) as f32).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert_eq!(dot(&a, &b), plain, "lanes and tail add up to the plain sum (small integers are exact)");
    }
}
