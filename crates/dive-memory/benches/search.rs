//! Top-10 search over 100,000 vectors of 384 dimensions: the in-memory store and the SQLite
//! store (brute-force cosine), and BM25 keyword search on the in-memory store.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use dive_core::{Message, SearchOptions, VectorRecord, VectorStore};
use dive_memory::{InMemoryVectorStore, SqliteVectorStore};

const N: usize = 100_000;
const DIM: usize = 384;

/// Deterministic pseudo-random vectors (xorshift), so runs compare.
fn vectors(n: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            (0..DIM)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    #[allow(clippy::cast_precision_loss)]
                    let x = (s % 2_000) as f32 / 1_000.0 - 1.0;
                    x
                })
                .collect()
        })
        .collect()
}

const WORDS: [&str; 8] = ["deploy", "lunch", "cat", "build", "rust", "memory", "tuesday", "cores"];

fn records() -> Vec<VectorRecord> {
    vectors(N, 0x9E37_79B9_7F4A_7C15)
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let text = format!("note {i} about {} and {}", WORDS[i % 8], WORDS[(i / 8) % 8]);
            VectorRecord::new(format!("r{i}"), v, Message::user(text))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let query = vectors(1, 42).pop().unwrap();
    let options = SearchOptions::default();

    let memory = InMemoryVectorStore::new();
    rt.block_on(memory.upsert(records())).unwrap();
    c.bench_function("in-memory top-10 of 100k x 384", |b| {
        b.iter(|| rt.block_on(memory.search(&query, 10, &options)).unwrap());
    });
    c.bench_function("in-memory bm25 top-10 of 100k", |b| {
        b.iter(|| rt.block_on(memory.keyword_search("deploy cat", 10, &options)).unwrap());
    });

    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteVectorStore::open(dir.path().join("bench.db")).unwrap();
    rt.block_on(sqlite.upsert(records())).unwrap();
    let mut group = c.benchmark_group("sqlite");
    group.sample_size(20);
    group.bench_function("sqlite top-10 of 100k x 384", |b| {
        b.iter(|| rt.block_on(sqlite.search(&query, 10, &options)).unwrap());
    });
    group.bench_function("sqlite fts5 top-10 of 100k", |b| {
        b.iter(|| rt.block_on(sqlite.keyword_search("deploy cat", 10, &options)).unwrap());
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
