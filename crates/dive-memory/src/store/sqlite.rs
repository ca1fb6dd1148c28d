//! [`SqliteVectorStore`]: records in one SQLite file, vectors as little-endian f32 blobs
//! scanned by brute-force cosine, keywords in an FTS5 index ranked by its BM25.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use dive_core::{BoxFuture, MemoryError, Message, ScoredRecord, SearchOptions, VectorRecord, VectorStore};
use rusqlite::{Connection, OptionalExtension, params};

use crate::bm25::words;
use crate::similarity::{cosine_with_norms, norm, top_k};
use crate::store::check_dimension;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS memory_records (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    dim INTEGER NOT NULL,
    norm REAL NOT NULL,
    vector BLOB NOT NULL,
    message TEXT NOT NULL,
    metadata TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(text, tokenize = 'unicode61');
";

/// A vector store in SQLite (rusqlite; the `bundled` feature compiles SQLite in, with FTS5).
/// Every call runs on tokio's blocking pool, never on an async worker. Messages (roles and
/// every block) and metadata are kept as JSON, so a record comes back exactly as stored.
///
/// ```
/// use dive_core::{Message, SearchOptions, VectorRecord, VectorStore};
/// use dive_memory::SqliteVectorStore;
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let store = SqliteVectorStore::open_in_memory().unwrap();
/// store.upsert(vec![VectorRecord::new("a", vec![1.0, 0.0], Message::user("deploys are on tuesdays"))]).await.unwrap();
/// let hits = store.keyword_search("tuesdays", 5, &SearchOptions::default()).await.unwrap();
/// assert_eq!(hits[0].record.id, "a");
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SqliteVectorStore {
    conn: Arc<Mutex<Connection>>,
}

fn backend(e: impl std::error::Error + Send + Sync + 'static) -> MemoryError {
    MemoryError::Backend(Box::new(e))
}

fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Cosine of the query and a row's blob, decoded into `buf` (reused across rows).
fn cosine_blob(query: &[f32], blob: &[u8], query_norm: f32, row_norm: f32, buf: &mut Vec<f32>) -> f32 {
    buf.clear();
    buf.extend(blob.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    cosine_with_norms(query, buf, query_norm, row_norm)
}

impl SqliteVectorStore {
    /// Opens (creating if needed) a store in this file.
    ///
    /// # Errors
    /// [`MemoryError::Backend`] when the file cannot be opened or the schema created.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, MemoryError> {
        Self::with_connection(Connection::open(path).map_err(backend)?)
    }

    /// A store in memory (gone when dropped).
    ///
    /// # Errors
    /// [`MemoryError::Backend`] when SQLite fails.
    pub fn open_in_memory() -> Result<Self, MemoryError> {
        Self::with_connection(Connection::open_in_memory().map_err(backend)?)
    }

    /// A store on a connection you opened (its tables are created if missing).
    ///
    /// # Errors
    /// [`MemoryError::Backend`] when the schema cannot be created (no FTS5, read-only file).
    pub fn with_connection(conn: Connection) -> Result<Self, MemoryError> {
        // Readers do not block the writer; an in-memory database answers "memory" and stays so.
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())).map_err(backend)?;
        conn.execute_batch(SCHEMA).map_err(backend)?;
        Ok(Self { conn: Arc::new(Mutex::new(conn)) })
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T, MemoryError> + Send + 'static,
    ) -> Result<T, MemoryError> {
        let conn = Arc::clone(&self.conn);
        tokio::task::spawn_blocking(move || {
            let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
            f(&mut conn)
        })
        .await
        .map_err(backend)?
    }
}

fn dimension(conn: &Connection) -> Result<Option<usize>, MemoryError> {
    let dim: Option<i64> = conn
        .query_row("SELECT dim FROM memory_records LIMIT 1", [], |r| r.get(0))
        .optional()
        .map_err(backend)?;
    Ok(dim.and_then(|d| usize::try_from(d).ok()))
}

fn upsert_now(conn: &mut Connection, records: Vec<VectorRecord>) -> Result<(), MemoryError> {
    let tx = conn.transaction().map_err(backend)?;
    let mut dim = dimension(&tx)?;
    for r in &records {
        check_dimension(dim, r.vector.len())?;
        dim = Some(r.vector.len());
    }
    for r in records {
        delete_one(&tx, &r.id)?;
        let message = serde_json::to_string(&r.message).map_err(backend)?;
        let metadata = serde_json::to_string(&r.metadata).map_err(backend)?;
        let len = i64::try_from(r.vector.len()).map_err(backend)?;
        tx.execute(
            "INSERT INTO memory_records (id, dim, norm, vector, message, metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![r.id, len, f64::from(norm(&r.vector)), to_blob(&r.vector), message, metadata],
        )
        .map_err(backend)?;
        let rowid = tx.last_insert_rowid();
        tx.execute("INSERT INTO memory_fts (rowid, text) VALUES (?1, ?2)", params![rowid, r.indexed_text()])
            .map_err(backend)?;
    }
    tx.commit().map_err(backend)
}

fn delete_one(conn: &Connection, id: &str) -> Result<(), MemoryError> {
    let rowid: Option<i64> = conn
        .query_row("SELECT rowid FROM memory_records WHERE id = ?1", [id], |r| r.get(0))
        .optional()
        .map_err(backend)?;
    if let Some(rowid) = rowid {
        conn.execute("DELETE FROM memory_fts WHERE rowid = ?1", [rowid]).map_err(backend)?;
        conn.execute("DELETE FROM memory_records WHERE rowid = ?1", [rowid]).map_err(backend)?;
    }
    Ok(())
}

fn load(conn: &Connection, rowid: i64) -> Result<VectorRecord, MemoryError> {
    let (id, vector, message, metadata): (String, Vec<u8>, String, String) = conn
        .query_row(
            "SELECT id, vector, message, metadata FROM memory_records WHERE rowid = ?1",
            [rowid],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .map_err(backend)?;
    let message: Message = serde_json::from_str(&message).map_err(backend)?;
    let mut record = VectorRecord::new(id, from_blob(&vector), message);
    record.metadata = serde_json::from_str(&metadata).map_err(backend)?;
    Ok(record)
}

fn metadata_matches(json: &str, options: &SearchOptions) -> bool {
    if options.filter.is_empty() {
        return true;
    }
    serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json)
        .is_ok_and(|m| options.filter.iter().all(|(k, v)| m.get(k) == Some(v)))
}

fn search_now(
    conn: &Connection,
    vector: &[f32],
    k: usize,
    options: &SearchOptions,
) -> Result<Vec<ScoredRecord>, MemoryError> {
    let Some(dim) = dimension(conn)? else { return Ok(Vec::new()) };
    check_dimension(Some(dim), vector.len())?;
    let qn = norm(vector);
    let filtered = !options.filter.is_empty();
    let sql = if filtered {
        "SELECT rowid, norm, vector, metadata FROM memory_records"
    } else {
        "SELECT rowid, norm, vector, '' FROM memory_records"
    };
    let mut stmt = conn.prepare_cached(sql).map_err(backend)?;
    let mut rows = stmt.query([]).map_err(backend)?;
    let mut scored: Vec<(f32, i64)> = Vec::new();
    let mut buf = Vec::with_capacity(dim);
    while let Some(row) = rows.next().map_err(backend)? {
        if filtered && !metadata_matches(row.get_ref(3).map_err(backend)?.as_str().map_err(backend)?, options)
        {
            continue;
        }
        let rowid: i64 = row.get(0).map_err(backend)?;
        #[allow(clippy::cast_possible_truncation)]
        let row_norm = row.get::<_, f64>(1).map_err(backend)? as f32;
        let blob = row.get_ref(2).map_err(backend)?.as_blob().map_err(backend)?;
        let s = cosine_blob(vector, blob, qn, row_norm, &mut buf);
        if options.min_score.is_none_or(|m| s >= m) {
            scored.push((s, rowid));
        }
    }
    top_k(scored, k).into_iter().map(|(s, rowid)| Ok(ScoredRecord::new(load(conn, rowid)?, s))).collect()
}

fn keyword_now(
    conn: &Connection,
    query: &str,
    k: usize,
    options: &SearchOptions,
) -> Result<Vec<ScoredRecord>, MemoryError> {
    // Each word quoted: FTS5 query syntax in the user's text is plain text, never an error.
    let mut terms: Vec<String> = words(query).map(|w| format!("\"{}\"", w.replace('"', "\"\""))).collect();
    terms.sort_unstable();
    terms.dedup();
    if terms.is_empty() || k == 0 {
        return Ok(Vec::new());
    }
    let expr = terms.join(" OR ");
    let mut stmt = conn
        .prepare_cached(
            "SELECT f.rowid, bm25(memory_fts), r.metadata FROM memory_fts f JOIN memory_records r ON r.rowid = f.rowid \
             WHERE memory_fts MATCH ?1 ORDER BY bm25(memory_fts), r.id",
        )
        .map_err(backend)?;
    let mut rows = stmt.query([expr]).map_err(backend)?;
    let mut hits = Vec::new();
    while let Some(row) = rows.next().map_err(backend)? {
        if hits.len() == k {
            break;
        }
        if !metadata_matches(row.get_ref(2).map_err(backend)?.as_str().map_err(backend)?, options) {
            continue;
        }
        let rowid: i64 = row.get(0).map_err(backend)?;
        // FTS5's bm25() is lower-is-better (negative); flip it so higher is closer.
        #[allow(clippy::cast_possible_truncation)]
        let score = -row.get::<_, f64>(1).map_err(backend)? as f32;
        hits.push((rowid, score));
    }
    hits.into_iter().map(|(rowid, s)| Ok(ScoredRecord::new(load(conn, rowid)?, s))).collect()
}

impl VectorStore for SqliteVectorStore {
    fn upsert(&self, records: Vec<VectorRecord>) -> BoxFuture<'_, Result<(), MemoryError>> {
        Box::pin(self.blocking(move |conn| upsert_now(conn, records)))
    }

    fn search<'a>(
        &'a self,
        vector: &'a [f32],
        k: usize,
        options: &'a SearchOptions,
    ) -> BoxFuture<'a, Result<Vec<ScoredRecord>, MemoryError>> {
        let (vector, options) = (vector.to_vec(), options.clone());
        Box::pin(self.blocking(move |conn| search_now(conn, &vector, k, &options)))
    }

    fn delete<'a>(&'a self, ids: &'a [String]) -> BoxFuture<'a, Result<(), MemoryError>> {
        let ids = ids.to_vec();
        Box::pin(self.blocking(move |conn| {
            let tx = conn.transaction().map_err(backend)?;
            for id in &ids {
                delete_one(&tx, id)?;
            }
            tx.commit().map_err(backend)
        }))
    }

    fn keyword_search<'a>(
        &'a self,
        query: &'a str,
        k: usize,
        options: &'a SearchOptions,
    ) -> BoxFuture<'a, Result<Vec<ScoredRecord>, MemoryError>> {
        let (query, options) = (query.to_owned(), options.clone());
        Box::pin(self.blocking(move |conn| keyword_now(conn, &query, k, &options)))
    }
}
