//! Memory traits: [`Embedder`], [`VectorStore`], [`ShortTermMemory`],
//! [`LongTermMemory`] and the [`WritePolicy`] that decides what a run leaves in long-term
//! memory. Implementations live in `dive-memory`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::MemoryError;
use crate::future::BoxFuture;
use crate::message::Message;

/// Turns text into vectors.
pub trait Embedder: Send + Sync {
    /// Vector length.
    fn dimensions(&self) -> usize;
    /// One vector per input, in order.
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, MemoryError>>;
}

/// A stored vector with its payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct VectorRecord {
    /// Id (idempotent writes).
    pub id: String,
    /// The vector.
    pub vector: Vec<f32>,
    /// The message it came from.
    pub message: Message,
    /// Metadata for filtering.
    #[serde(default)]
    pub metadata: BTreeMap<String, Value>,
}

/// The metadata key whose string value a keyword index reads instead of the message text
/// (long-term memory puts a chunk's text there).
pub const TEXT_METADATA_KEY: &str = "text";

impl VectorRecord {
    /// A record.
    #[must_use]
    pub fn new(id: impl Into<String>, vector: Vec<f32>, message: Message) -> Self {
        Self { id: id.into(), vector, message, metadata: BTreeMap::new() }
    }

    /// Adds a metadata entry.
    #[must_use]
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.metadata.insert(key.into(), value.into());
        self
    }

    /// The text a keyword index holds for this record: the [`TEXT_METADATA_KEY`] metadata
    /// when it is a string, else the message's text.
    ///
    /// ```
    /// use dive_core::{Message, VectorRecord};
    /// let r = VectorRecord::new("a", vec![1.0], Message::user("whole message"));
    /// assert_eq!(r.indexed_text(), "whole message");
    /// assert_eq!(r.with_metadata("text", "one chunk").indexed_text(), "one chunk");
    /// ```
    #[must_use]
    pub fn indexed_text(&self) -> String {
        match self.metadata.get(TEXT_METADATA_KEY) {
            Some(Value::String(text)) => text.clone(),
            _ => self.message.text(),
        }
    }

    /// Whether the metadata holds every key-value pair of `filter`.
    #[must_use]
    pub fn matches(&self, filter: &BTreeMap<String, Value>) -> bool {
        filter.iter().all(|(k, v)| self.metadata.get(k) == Some(v))
    }
}

/// A search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ScoredRecord {
    /// The record.
    pub record: VectorRecord,
    /// Similarity (higher is closer).
    pub score: f32,
}

/// Search parameters.
///
/// ```
/// use dive_core::SearchOptions;
/// let options = SearchOptions::new().with_min_score(0.5).with_filter("user", "ada");
/// assert_eq!(options.min_score, Some(0.5));
/// assert_eq!(options.filter["user"], "ada");
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SearchOptions {
    /// Drop hits below this score.
    pub min_score: Option<f32>,
    /// Metadata every hit must contain.
    pub filter: BTreeMap<String, Value>,
}

impl SearchOptions {
    /// No threshold, no filter.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Drops hits below `score`.
    #[must_use]
    pub fn with_min_score(mut self, score: f32) -> Self {
        self.min_score = Some(score);
        self
    }

    /// Requires metadata `key` to equal `value`.
    #[must_use]
    pub fn with_filter(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.filter.insert(key.into(), value.into());
        self
    }
}

impl ScoredRecord {
    /// A hit.
    #[must_use]
    pub fn new(record: VectorRecord, score: f32) -> Self {
        Self { record, score }
    }
}

/// Stores and searches vectors.
pub trait VectorStore: Send + Sync {
    /// Inserts or replaces records by id.
    fn upsert(&self, records: Vec<VectorRecord>) -> BoxFuture<'_, Result<(), MemoryError>>;
    /// The `k` closest records, best first.
    fn search<'a>(
        &'a self,
        vector: &'a [f32],
        k: usize,
        options: &'a SearchOptions,
    ) -> BoxFuture<'a, Result<Vec<ScoredRecord>, MemoryError>>;
    /// Deletes records by id.
    fn delete<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, Result<(), MemoryError>>;

    /// The `k` records whose [indexed text](VectorRecord::indexed_text) best matches the
    /// words of `query` (BM25, full-text search), best first, with `options.filter` applied
    /// (`min_score` does not apply: keyword scores are not similarities). A store without a
    /// keyword index keeps this default, which finds nothing, so hybrid retrieval falls back
    /// to vectors alone.
    fn keyword_search<'a>(
        &'a self,
        query: &'a str,
        k: usize,
        options: &'a SearchOptions,
    ) -> BoxFuture<'a, Result<Vec<ScoredRecord>, MemoryError>> {
        let _ = (query, k, options);
        Box::pin(std::future::ready(Ok(Vec::new())))
    }
}

/// Conversation memory within a session, with a read policy (windowing) applied on read.
pub trait ShortTermMemory: Send + Sync {
    /// The history, with the read policy applied.
    fn messages(&self) -> BoxFuture<'_, Result<Vec<Message>, MemoryError>>;
    /// Appends messages.
    fn append(&self, messages: Vec<Message>) -> BoxFuture<'_, Result<(), MemoryError>>;
}

/// Memory across sessions, retrieved by similarity.
pub trait LongTermMemory: Send + Sync {
    /// Stores messages.
    fn store(&self, messages: Vec<Message>) -> BoxFuture<'_, Result<(), MemoryError>>;
    /// The `k` most relevant messages for a query.
    fn retrieve<'a>(
        &'a self,
        query: &'a str,
        k: usize,
    ) -> BoxFuture<'a, Result<Vec<ScoredRecord>, MemoryError>>;
}

/// Decides what a finished run writes to long-term memory: `None` stores nothing, `Some`
/// stores exactly what it returns (so a policy can filter or transform).
pub trait WritePolicy: Send + Sync {
    /// The messages to store for this prompt and answer.
    fn select(&self, prompt: &Message, answer: &Message) -> Option<Vec<Message>>;
}

impl<F> WritePolicy for F
where
    F: Fn(&Message, &Message) -> Option<Vec<Message>> + Send + Sync,
{
    fn select(&self, prompt: &Message, answer: &Message) -> Option<Vec<Message>> {
        self(prompt, answer)
    }
}

/// Stores every prompt and answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct StoreAlways;

impl WritePolicy for StoreAlways {
    fn select(&self, prompt: &Message, answer: &Message) -> Option<Vec<Message>> {
        Some(vec![prompt.clone(), answer.clone()])
    }
}

/// Stores a prompt and answer only when together they exceed `n` characters.
///
/// ```
/// use dive_core::{Message, MinLength, WritePolicy};
/// let policy = MinLength(10);
/// assert!(policy.select(&Message::user("hi"), &Message::assistant("yo")).is_none());
/// assert!(policy.select(&Message::user("tell me more"), &Message::assistant("sure")).is_some());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MinLength(pub usize);

impl WritePolicy for MinLength {
    fn select(&self, prompt: &Message, answer: &Message) -> Option<Vec<Message>> {
        let len = prompt.text().chars().count() + answer.text().chars().count();
        (len > self.0).then(|| vec![prompt.clone(), answer.clone()])
    }
}
