//! [`InMemoryVectorStore`]: brute-force cosine over vectors held contiguously in memory, with
//! a BM25 keyword index.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use dive_core::{BoxFuture, MemoryError, ScoredRecord, SearchOptions, VectorRecord, VectorStore};

use crate::bm25::Bm25;
use crate::similarity::{dot, norm, top_k};
use crate::store::check_dimension;

/// Records in slots: slot `i` has its vector at `vectors[i * dim..(i + 1) * dim]` (one
/// contiguous arena, so a scan streams memory), its norm at `norms[i]`, and the rest of the
/// record (its `vector` left empty) at `records[i]`.
#[derive(Debug, Default)]
struct Inner {
    dimension: Option<usize>,
    vectors: Vec<f32>,
    norms: Vec<f32>,
    records: Vec<VectorRecord>,
    slots: HashMap<String, usize>,
    keywords: Bm25,
}

impl Inner {
    fn vector(&self, slot: usize) -> &[f32] {
        let dim = self.dimension.unwrap_or(0);
        &self.vectors[slot * dim..(slot + 1) * dim]
    }

    /// The record of a slot, with its vector.
    fn record(&self, slot: usize) -> VectorRecord {
        let mut r = self.records[slot].clone();
        r.vector = self.vector(slot).to_vec();
        r
    }

    fn put(&mut self, mut r: VectorRecord) {
        self.keywords.insert(&r.id, &r.indexed_text());
        let vector = std::mem::take(&mut r.vector);
        let n = norm(&vector);
        match self.slots.get(&r.id) {
            Some(&slot) => {
                let dim = vector.len();
                self.vectors[slot * dim..(slot + 1) * dim].copy_from_slice(&vector);
                self.norms[slot] = n;
                self.records[slot] = r;
            }
            None => {
                self.slots.insert(r.id.clone(), self.records.len());
                self.vectors.extend_from_slice(&vector);
                self.norms.push(n);
                self.records.push(r);
            }
        }
    }

    /// Removes a slot by moving the last one into it.
    fn remove(&mut self, id: &str) {
        let Some(slot) = self.slots.remove(id) else { return };
        self.keywords.remove(id);
        let last = self.records.len() - 1;
        let dim = self.dimension.unwrap_or(0);
        if slot != last {
            self.vectors.copy_within(last * dim..(last + 1) * dim, slot * dim);
            self.norms[slot] = self.norms[last];
            self.records.swap(slot, last);
            self.slots.insert(self.records[slot].id.clone(), slot);
        }
        self.vectors.truncate(last * dim);
        self.norms.truncate(last);
        self.records.truncate(last);
    }
}

/// Records in memory: an O(n) cosine scan over one contiguous arena of vectors per search,
/// BM25 keyword search kept up to date on every write. Clones share the same records.
///
/// ```
/// use dive_core::{Message, SearchOptions, VectorRecord, VectorStore};
/// use dive_memory::InMemoryVectorStore;
/// # futures::executor::block_on(async {
/// let store = InMemoryVectorStore::new();
/// store.upsert(vec![VectorRecord::new("a", vec![1.0, 0.0], Message::user("east"))]).await.unwrap();
/// let hits = store.search(&[0.9, 0.1], 1, &SearchOptions::default()).await.unwrap();
/// assert_eq!(hits[0].record.id, "a");
/// # });
/// ```
#[derive(Debug, Clone, Default)]
pub struct InMemoryVectorStore {
    inner: Arc<RwLock<Inner>>,
}

impl InMemoryVectorStore {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// How many records it holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.inner.read().unwrap_or_else(PoisonError::into_inner).records.len()
    }

    /// Whether it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn upsert_now(&self, records: Vec<VectorRecord>) -> Result<(), MemoryError> {
        let mut inner = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        let mut dimension = inner.dimension;
        for r in &records {
            check_dimension(dimension, r.vector.len())?;
            dimension = Some(r.vector.len());
        }
        inner.dimension = dimension;
        for r in records {
            inner.put(r);
        }
        Ok(())
    }

    fn search_now(
        &self,
        vector: &[f32],
        k: usize,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredRecord>, MemoryError> {
        let inner = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        if inner.records.is_empty() {
            return Ok(Vec::new());
        }
        check_dimension(inner.dimension, vector.len())?;
        let qn = norm(vector);
        let filtered = !options.filter.is_empty();
        let mut scored: Vec<(f32, usize)> = Vec::with_capacity(inner.records.len());
        for (slot, n) in inner.norms.iter().enumerate() {
            if filtered && !inner.records[slot].matches(&options.filter) {
                continue;
            }
            let s = if qn == 0.0 || *n == 0.0 { 0.0 } else { dot(vector, inner.vector(slot)) / (qn * n) };
            if options.min_score.is_none_or(|m| s >= m) {
                scored.push((s, slot));
            }
        }
        // Ties are broken by id, not by slot (slots move on delete).
        let mut best = top_k(scored, k.saturating_add(k.min(64)));
        best.sort_by(|a, b| {
            b.0.total_cmp(&a.0).then_with(|| inner.records[a.1].id.cmp(&inner.records[b.1].id))
        });
        best.truncate(k);
        Ok(best.into_iter().map(|(s, slot)| ScoredRecord::new(inner.record(slot), s)).collect())
    }

    fn keyword_now(&self, query: &str, k: usize, options: &SearchOptions) -> Vec<ScoredRecord> {
        let inner = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        let scored: Vec<(f32, &str)> = inner
            .keywords
            .scores(query)
            .into_iter()
            .filter(|(id, _)| {
                inner.slots.get(*id).is_some_and(|&slot| inner.records[slot].matches(&options.filter))
            })
            .map(|(id, s)| (s, id))
            .collect();
        top_k(scored, k)
            .into_iter()
            .filter_map(|(s, id)| inner.slots.get(id).map(|&slot| ScoredRecord::new(inner.record(slot), s)))
            .collect()
    }
}

impl VectorStore for InMemoryVectorStore {
    fn upsert(&self, records: Vec<VectorRecord>) -> BoxFuture<'_, Result<(), MemoryError>> {
        Box::pin(std::future::ready(self.upsert_now(records)))
    }

    fn search<'a>(
        &'a self,
        vector: &'a [f32],
        k: usize,
        options: &'a SearchOptions,
    ) -> BoxFuture<'a, Result<Vec<ScoredRecord>, MemoryError>> {
        Box::pin(std::future::ready(self.search_now(vector, k, options)))
    }

    fn delete<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, Result<(), MemoryError>> {
        let mut inner = self.inner.write().unwrap_or_else(PoisonError::into_inner);
        for id in ids {
            inner.remove(id);
        }
        if inner.records.is_empty() {
            inner.dimension = None;
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn keyword_search<'a>(
        &'a self,
        query: &'a str,
        k: usize,
        options: &'a SearchOptions,
    ) -> BoxFuture<'a, Result<Vec<ScoredRecord>, MemoryError>> {
        Box::pin(std::future::ready(Ok(self.keyword_now(query, k, options))))
    }
}

#[cfg(test)]
mod tests {
    use dive_core::Message;

    use super::*;

    #[test]
    fn deleting_moves_the_last_slot_and_keeps_every_record_findable() {
        let store = InMemoryVectorStore::new();
        let records: Vec<VectorRecord> = (0..5)
            .map(|i| {
                VectorRecord::new(format!("r{i}"), vec![1.0, i as f32], Message::user(format!("note {i}")))
            })
            .collect();
        store.upsert_now(records).unwrap();
        futures::executor::block_on(store.delete(&["r1".to_owned()])).unwrap();
        let inner = store.inner.read().unwrap();
        assert_eq!(inner.records.len(), 4);
        for (id, &slot) in &inner.slots {
            assert_eq!(&inner.records[slot].id, id);
            let i: f32 = id[1..].parse().unwrap();
            assert_eq!(inner.vector(slot), [1.0, i], "slot {slot} holds {id}'s vector");
        }
        drop(inner);
        let hits = store.search_now(&[0.0, 1.0], 1, &SearchOptions::default()).unwrap();
        assert_eq!(hits[0].record.id, "r4");
        assert_eq!(hits[0].record.vector, [1.0, 4.0], "a hit carries its vector");
    }
}
