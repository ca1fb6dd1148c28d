//! Both vector stores pass the public conformance suite; the SQLite one keeps its records
//! across a reopen.
#![allow(clippy::unwrap_used)]

use dive_core::{Message, SearchOptions, VectorRecord, VectorStore};
use dive_memory::InMemoryVectorStore;
#[cfg(feature = "sqlite")]
use dive_memory::SqliteVectorStore;
use dive_test::vector_store::vector_store_conformance;

#[tokio::test]
async fn in_memory_store_conforms() {
    let report = vector_store_conformance(InMemoryVectorStore::new).await;
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    assert!(report.passed.contains(&"keywords"));
}

#[cfg(feature = "sqlite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_store_conforms_on_a_real_file() {
    let dir = tempfile::tempdir().unwrap();
    let n = std::sync::atomic::AtomicUsize::new(0);
    let report = vector_store_conformance(|| {
        let i = n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        SqliteVectorStore::open(dir.path().join(format!("store-{i}.db"))).unwrap()
    })
    .await;
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    assert_eq!(report.passed.len(), 9, "{:?}", report.passed);
}

#[cfg(feature = "sqlite")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_store_survives_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    {
        let store = SqliteVectorStore::open(&path).unwrap();
        store
            .upsert(vec![
                VectorRecord::new("a", vec![1.0, 0.0], Message::user("the office moved to Lisbon")),
                VectorRecord::new("b", vec![0.0, 1.0], Message::assistant("noted")),
            ])
            .await
            .unwrap();
    }
    let store = SqliteVectorStore::open(&path).unwrap();
    let hits = store.search(&[1.0, 0.1], 1, &SearchOptions::default()).await.unwrap();
    assert_eq!(hits[0].record.id, "a");
    let hits = store.keyword_search("lisbon", 5, &SearchOptions::default()).await.unwrap();
    assert_eq!(hits.len(), 1, "the FTS5 index is persisted with the records");
    store.delete(&["a".to_owned()]).await.unwrap();
    assert!(store.keyword_search("lisbon", 5, &SearchOptions::default()).await.unwrap().is_empty());
}
