//! Hybrid retrieval: vector and keyword rankings fused by reciprocal rank fusion, with an
//! optional recency decay.

use std::collections::HashMap;
use std::time::Duration;

use dive_core::ScoredRecord;

/// The metadata key holding when a record was stored, in milliseconds since the Unix epoch
/// (long-term memory writes it; recency decay reads it).
pub const CREATED_AT_KEY: &str = "created_at";

/// How vector and keyword results are combined.
///
/// ```
/// use std::time::Duration;
/// use dive_memory::Hybrid;
/// let hybrid = Hybrid::new().with_recency(Duration::from_secs(7 * 24 * 3600));
/// assert_eq!(hybrid.rrf_k, 60.0);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Hybrid {
    /// The RRF constant: a hit at rank `r` (from 1) in a list adds `weight / (rrf_k + r)`.
    pub rrf_k: f32,
    /// Weight of the vector ranking.
    pub vector_weight: f32,
    /// Weight of the keyword ranking.
    pub keyword_weight: f32,
    /// How many candidates each ranking contributes, as a multiple of `k`.
    pub candidates: usize,
    /// Halves a hit's fused score every this much age (none: no decay).
    pub half_life: Option<Duration>,
}

impl Default for Hybrid {
    fn default() -> Self {
        Self::new()
    }
}

impl Hybrid {
    /// RRF with k = 60, equal weights, 4 × k candidates per ranking, no decay.
    #[must_use]
    pub fn new() -> Self {
        Self { rrf_k: 60.0, vector_weight: 1.0, keyword_weight: 1.0, candidates: 4, half_life: None }
    }

    /// Decays scores by age with this half-life.
    #[must_use]
    pub fn with_recency(mut self, half_life: Duration) -> Self {
        self.half_life = Some(half_life);
        self
    }

    /// Weights of the two rankings.
    #[must_use]
    pub fn with_weights(mut self, vector: f32, keyword: f32) -> Self {
        self.vector_weight = vector;
        self.keyword_weight = keyword;
        self
    }

    /// Fuses two rankings (each best first) into one, best first; the score of each hit is its
    /// fused (and decayed) score. `now_ms` is the current time for the decay.
    #[must_use]
    pub fn fuse(
        &self,
        vector: Vec<ScoredRecord>,
        keyword: Vec<ScoredRecord>,
        now_ms: i64,
    ) -> Vec<ScoredRecord> {
        let mut fused: HashMap<String, (f32, ScoredRecord)> = HashMap::new();
        for (list, weight) in [(vector, self.vector_weight), (keyword, self.keyword_weight)] {
            for (rank, hit) in list.into_iter().enumerate() {
                #[allow(clippy::cast_precision_loss)]
                let add = weight / (self.rrf_k + (rank + 1) as f32);
                fused.entry(hit.record.id.clone()).or_insert_with(|| (0.0, hit)).0 += add;
            }
        }
        let mut out: Vec<ScoredRecord> = fused
            .into_values()
            .map(|(score, hit)| {
                let score = score * self.decay(&hit, now_ms);
                ScoredRecord::new(hit.record, score)
            })
            .collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.record.id.cmp(&b.record.id)));
        out
    }

    /// The decay factor of a hit: 1 without a half-life or a creation time.
    #[must_use]
    pub fn decay(&self, hit: &ScoredRecord, now_ms: i64) -> f32 {
        let (Some(half), Some(created)) =
            (self.half_life, hit.record.metadata.get(CREATED_AT_KEY).and_then(serde_json::Value::as_i64))
        else {
            return 1.0;
        };
        #[allow(clippy::cast_precision_loss)]
        let age = (now_ms - created).max(0) as f64 / 1000.0;
        let half = half.as_secs_f64().max(f64::MIN_POSITIVE);
        #[allow(clippy::cast_possible_truncation)]
        let factor = 0.5f64.powf(age / half) as f32;
        factor
    }
}

#[cfg(test)]
mod tests {
    use dive_core::{Message, VectorRecord};

    use super::*;

    fn hit(id: &str, created: i64) -> ScoredRecord {
        ScoredRecord::new(
            VectorRecord::new(id, vec![1.0], Message::user(id)).with_metadata(CREATED_AT_KEY, created),
            0.0,
        )
    }

    #[test]
    fn a_hit_in_both_rankings_beats_a_hit_in_one() {
        let fused = Hybrid::new().fuse(vec![hit("a", 0), hit("b", 0)], vec![hit("b", 0), hit("c", 0)], 0);
        let ids: Vec<&str> = fused.iter().map(|h| h.record.id.as_str()).collect();
        assert_eq!(ids, ["b", "a", "c"]);
        assert!((fused[0].score - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-6);
    }

    #[test]
    fn recency_halves_per_half_life() {
        let day = 86_400_000;
        let h = Hybrid::new().with_recency(Duration::from_secs(86_400));
        assert!((h.decay(&hit("old", 0), 2 * day) - 0.25).abs() < 1e-6);
        let fused = h.fuse(vec![hit("old", 0), hit("new", 2 * day)], vec![], 2 * day);
        assert_eq!(fused[0].record.id, "new", "a fresh second hit beats a two-half-lives-old first hit");
        assert_eq!(Hybrid::new().decay(&hit("x", 0), 10 * day), 1.0);
    }
}
