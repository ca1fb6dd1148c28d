//! [`LongTerm`]: memory across conversations — messages chunked, embedded and kept in a
//! vector store, recalled by similarity (optionally fused with keywords and decayed by age).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use dive_core::{
    BoxFuture, Embedder, LongTermMemory, MemoryError, Message, ScoredRecord, SearchOptions,
    TEXT_METADATA_KEY, Timestamp, VectorRecord, VectorStore,
};
use serde_json::Value;

use crate::chunk::{Chunker, WholeText};
use crate::hybrid::{CREATED_AT_KEY, Hybrid};
use crate::text::embeddable_text;
use crate::tokens::{HeuristicEstimator, TokenEstimator};

/// Metadata key of the stored message's role.
pub const ROLE_KEY: &str = "role";
/// Metadata key of the content hash shared by every chunk of one message.
pub const MESSAGE_KEY: &str = "message";
/// Metadata key of a chunk's index within its message.
pub const CHUNK_KEY: &str = "chunk";

/// What a recall returns and how much of it.
///
/// ```
/// use dive_memory::Retrieval;
/// let r = Retrieval::new(5).with_min_score(0.3).with_token_budget(800).with_filter("user", "ada");
/// assert_eq!(r.k, 5);
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct Retrieval {
    /// At most this many memories (distinct messages).
    pub k: usize,
    /// Drop vector hits whose similarity is below this.
    pub min_score: Option<f32>,
    /// Stop at the first memory that would take the total over this many tokens.
    pub token_budget: Option<usize>,
    /// Metadata every memory must hold.
    pub filter: BTreeMap<String, Value>,
    estimator: Arc<dyn TokenEstimator>,
}

impl std::fmt::Debug for Retrieval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Retrieval")
            .field("k", &self.k)
            .field("min_score", &self.min_score)
            .field("token_budget", &self.token_budget)
            .field("filter", &self.filter)
            .finish_non_exhaustive()
    }
}

impl Default for Retrieval {
    fn default() -> Self {
        Self::new(3)
    }
}

impl Retrieval {
    /// The `k` best memories, no threshold, no budget, no filter.
    #[must_use]
    pub fn new(k: usize) -> Self {
        Self {
            k,
            min_score: None,
            token_budget: None,
            filter: BTreeMap::new(),
            estimator: Arc::new(HeuristicEstimator),
        }
    }

    /// A similarity threshold.
    #[must_use]
    pub fn with_min_score(mut self, score: f32) -> Self {
        self.min_score = Some(score);
        self
    }

    /// A token budget, counted by the [`HeuristicEstimator`] unless
    /// [`with_estimator`](Self::with_estimator) says otherwise.
    #[must_use]
    pub fn with_token_budget(mut self, tokens: usize) -> Self {
        self.token_budget = Some(tokens);
        self
    }

    /// Counts the budget with this estimator.
    #[must_use]
    pub fn with_estimator(mut self, estimator: impl TokenEstimator + 'static) -> Self {
        self.estimator = Arc::new(estimator);
        self
    }

    /// Requires metadata `key` to equal `value`.
    #[must_use]
    pub fn with_filter(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.filter.insert(key.into(), value.into());
        self
    }
}

/// Long-term memory over any [`Embedder`] and [`VectorStore`].
///
/// Each stored message keeps its role and every block; its embeddable text (text, tool-result
/// text, text documents) is chunked and each chunk embedded as one record whose id is a
/// content hash, so storing the same message twice writes nothing new. A recall returns
/// distinct messages, best first.
///
/// ```
/// use dive_core::Message;
/// use dive_memory::{InMemoryVectorStore, LongTerm, Retrieval};
/// use dive_test::HashEmbedder;
/// # futures::executor::block_on(async {
/// let memory = LongTerm::new(HashEmbedder::new(256), InMemoryVectorStore::new());
/// memory.remember(&[Message::user("my cat is called Miso"), Message::user("the build needs two cores")]).await.unwrap();
/// let hits = memory.recall("what is my cat called", &Retrieval::new(1)).await.unwrap();
/// assert_eq!(hits[0].record.message.text(), "my cat is called Miso");
/// # });
/// ```
#[derive(Clone)]
pub struct LongTerm {
    embedder: Arc<dyn Embedder>,
    store: Arc<dyn VectorStore>,
    chunker: Arc<dyn Chunker>,
    hybrid: Option<Hybrid>,
    scope: BTreeMap<String, Value>,
}

impl std::fmt::Debug for LongTerm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LongTerm")
            .field("hybrid", &self.hybrid)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl LongTerm {
    /// Memory with this embedder and store, whole messages as chunks, vectors only.
    pub fn new(embedder: impl Embedder + 'static, store: impl VectorStore + 'static) -> Self {
        Self::from_arcs(Arc::new(embedder), Arc::new(store))
    }

    /// Memory over shared embedder and store.
    #[must_use]
    pub fn from_arcs(embedder: Arc<dyn Embedder>, store: Arc<dyn VectorStore>) -> Self {
        Self { embedder, store, chunker: Arc::new(WholeText), hybrid: None, scope: BTreeMap::new() }
    }

    /// Splits messages with this chunker.
    #[must_use]
    pub fn with_chunker(mut self, chunker: impl Chunker + 'static) -> Self {
        self.chunker = Arc::new(chunker);
        self
    }

    /// Fuses vector and keyword rankings (and decays by age) as `hybrid` says.
    #[must_use]
    pub fn with_hybrid(mut self, hybrid: Hybrid) -> Self {
        self.hybrid = Some(hybrid);
        self
    }

    /// Scopes this memory: every record it writes carries `key = value`, and it recalls only
    /// records that do (one store, many users).
    #[must_use]
    pub fn with_scope(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.scope.insert(key.into(), value.into());
        self
    }

    /// The store.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn VectorStore> {
        &self.store
    }

    /// Stores messages; returns how many records (chunks) were written. Messages with no
    /// embeddable text are skipped.
    ///
    /// # Errors
    /// The embedder's or the store's error.
    pub async fn remember(&self, messages: &[Message]) -> Result<usize, MemoryError> {
        let now = Timestamp::now().as_millis();
        let mut texts = Vec::new();
        let mut pending: Vec<(String, usize, &Message)> = Vec::new();
        for message in messages {
            let hash = self.content_hash(message)?;
            for (i, chunk) in self.chunker.chunk(&embeddable_text(message)).into_iter().enumerate() {
                texts.push(chunk);
                pending.push((hash.clone(), i, message));
            }
        }
        if texts.is_empty() {
            return Ok(0);
        }
        let vectors = self.embedder.embed(&texts).await?;
        if vectors.len() != texts.len() {
            return Err(MemoryError::Embedding(format!(
                "{} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
        }
        let records: Vec<VectorRecord> = pending
            .into_iter()
            .zip(texts)
            .zip(vectors)
            .map(|(((hash, i, message), text), vector)| {
                let mut r = VectorRecord::new(format!("{hash}:{i}"), vector, message.clone())
                    .with_metadata(ROLE_KEY, message.role.as_str())
                    .with_metadata(MESSAGE_KEY, hash)
                    .with_metadata(CHUNK_KEY, i)
                    .with_metadata(TEXT_METADATA_KEY, text)
                    .with_metadata(CREATED_AT_KEY, now);
                r.metadata.extend(self.scope.clone());
                r
            })
            .collect();
        let n = records.len();
        self.store.upsert(records).await?;
        Ok(n)
    }

    /// The memories most relevant to `query`, best first, one hit per message.
    ///
    /// # Errors
    /// The embedder's or the store's error.
    pub async fn recall(&self, query: &str, retrieval: &Retrieval) -> Result<Vec<ScoredRecord>, MemoryError> {
        if query.trim().is_empty() || retrieval.k == 0 {
            return Ok(Vec::new());
        }
        let vector = self
            .embedder
            .embed(&[query.to_owned()])
            .await?
            .pop()
            .ok_or_else(|| MemoryError::Embedding("no vector for the query".into()))?;
        let mut options = SearchOptions::new();
        options.min_score = retrieval.min_score;
        options.filter = retrieval.filter.clone();
        options.filter.extend(self.scope.clone());
        let hits = match &self.hybrid {
            None => self.store.search(&vector, retrieval.k * 2, &options).await?,
            Some(hybrid) => {
                let n = retrieval.k * hybrid.candidates.max(1);
                let by_vector = self.store.search(&vector, n, &options).await?;
                let by_keyword = self.store.keyword_search(query, n, &options).await?;
                hybrid.fuse(by_vector, by_keyword, Timestamp::now().as_millis())
            }
        };
        let mut seen = HashSet::new();
        let mut used = 0usize;
        let mut out = Vec::new();
        for hit in hits {
            let key =
                hit.record.metadata.get(MESSAGE_KEY).map_or_else(|| hit.record.id.clone(), Value::to_string);
            if !seen.insert(key) {
                continue;
            }
            if let Some(budget) = retrieval.token_budget {
                used += retrieval.estimator.message_tokens(&hit.record.message);
                if used > budget {
                    break;
                }
            }
            out.push(hit);
            if out.len() == retrieval.k {
                break;
            }
        }
        Ok(out)
    }

    /// A stable hash of the scope, the role and every block (media bytes included).
    fn content_hash(&self, message: &Message) -> Result<String, MemoryError> {
        let mut bytes = serde_json::to_vec(&self.scope).map_err(|e| MemoryError::Backend(Box::new(e)))?;
        bytes.extend(
            serde_json::to_vec(&(&message.role, &message.content))
                .map_err(|e| MemoryError::Backend(Box::new(e)))?,
        );
        Ok(format!(
            "{:016x}{:016x}",
            fnv1a(&bytes, 0xcbf2_9ce4_8422_2325),
            fnv1a(&bytes, 0x6c62_272e_07bb_0142)
        ))
    }
}

fn fnv1a(bytes: &[u8], seed: u64) -> u64 {
    bytes.iter().fold(seed, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
}

impl LongTermMemory for LongTerm {
    fn store(&self, messages: Vec<Message>) -> BoxFuture<'_, Result<(), MemoryError>> {
        Box::pin(async move { self.remember(&messages).await.map(|_| ()) })
    }

    fn retrieve<'a>(
        &'a self,
        query: &'a str,
        k: usize,
    ) -> BoxFuture<'a, Result<Vec<ScoredRecord>, MemoryError>> {
        Box::pin(async move { self.recall(query, &Retrieval::new(k)).await })
    }
}
