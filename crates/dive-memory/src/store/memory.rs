//! [`InMemoryVectorStore`]: brute-force cosine over records held in memory, with a BM25
//! keyword index.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use dive_core::{BoxFuture, MemoryError, ScoredRecord, SearchOptions, VectorRecord, VectorStore};

use crate::bm25::Bm25;
use crate::similarity::{cosine_with_norms, norm, top_k};
use crate::store::check_dimension;

#[derive(Debug, Default)]
struct Inner {
    dimension: Option<usize>,
    /// id → (record, its vector's norm).
    records: HashMap<String, (VectorRecord, f32)>,
    keywords: Bm25,
}

/// Records in memory: an O(n) cosine scan per search, BM25 keyword search kept up to date on
/// every write. Clones share the same records.
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
            inner.keywords.insert(&r.id, &r.indexed_text());
            let n = norm(&r.vector);
            inner.records.insert(r.id.clone(), (r, n));
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
        let scored: Vec<(f32, &str)> = inner
            .records
            .values()
            .filter(|(r, _)| r.matches(&options.filter))
            .map(|(r, n)| (cosine_with_norms(vector, &r.vector, qn, *n), r.id.as_str()))
            .filter(|(s, _)| options.min_score.is_none_or(|m| *s >= m))
            .collect();
        Ok(top_k(scored, k)
            .into_iter()
            .filter_map(|(s, id)| inner.records.get(id).map(|(r, _)| ScoredRecord::new(r.clone(), s)))
            .collect())
    }

    fn keyword_now(&self, query: &str, k: usize, options: &SearchOptions) -> Vec<ScoredRecord> {
        let inner = self.inner.read().unwrap_or_else(PoisonError::into_inner);
        let scored: Vec<(f32, &str)> = inner
            .keywords
            .scores(query)
            .into_iter()
            .filter(|(id, _)| inner.records.get(*id).is_some_and(|(r, _)| r.matches(&options.filter)))
            .map(|(id, s)| (s, id))
            .collect();
        top_k(scored, k)
            .into_iter()
            .filter_map(|(s, id)| inner.records.get(id).map(|(r, _)| ScoredRecord::new(r.clone(), s)))
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
            inner.records.remove(id);
            inner.keywords.remove(id);
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
