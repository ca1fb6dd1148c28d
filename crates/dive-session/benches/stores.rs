//! Session store costs: append one turn (File without and with fsync, SQLite), open a session
//! of 1,000 turns with a fresh store (nothing cached), list 10,000 sessions.
#![allow(clippy::unwrap_used)] // benchmark set-up

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use dive_core::{ListOptions, Message, SessionStore, Turn, Usage};
use dive_session::{FileStore, SqliteStore};
use futures::executor::block_on;

/// A typical turn: a question and an answer of a few hundred bytes.
fn turn(id: &str) -> Turn {
    let mut t = Turn::completed(
        id,
        vec![
            Message::user("What is the capital of Portugal, and what is it known for?"),
            Message::assistant(
                "Lisbon. It is known for its hills, its trams, the Belém tower, pastéis de nata and fado: \
                 a city of seven hills on the Tagus estuary with a mild climate all year round.",
            ),
        ],
    );
    t.usage = Usage::new(1200, 80);
    t
}

/// Times `save_turn` of fresh turns; a new session every 500 turns keeps sessions realistic.
fn append(c: &mut Criterion, name: &str, store: &dyn SessionStore) {
    let mut n = 0u64;
    c.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            let mut session = block_on(store.open(&format!("s{n}"))).unwrap();
            for i in 0..iters {
                if i % 500 == 0 {
                    n += 1;
                    session = block_on(store.open(&format!("s{n}"))).unwrap();
                    block_on(session.save_turn(&turn("first"))).unwrap(); // the header exists
                }
                let t = turn(&format!("t{i}"));
                let start = Instant::now();
                black_box(block_on(session.save_turn(&t)).unwrap());
                total += start.elapsed();
            }
            total
        });
    });
}

fn fill(store: &dyn SessionStore, id: &str, turns: usize) {
    let s = block_on(store.open(id)).unwrap();
    for i in 0..turns {
        block_on(s.save_turn(&turn(&format!("t{i}")))).unwrap();
    }
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();

    append(c, "append/file_no_fsync", &FileStore::new(root.join("a1")).unwrap());
    append(c, "append/file_fsync", &FileStore::new(root.join("a2")).unwrap().with_fsync_appends(true));
    append(c, "append/sqlite", &SqliteStore::open(root.join("a3.db")).unwrap());

    fill(&FileStore::new(root.join("o1")).unwrap(), "big", 1000);
    c.bench_function("open_1000_turns/file", |b| {
        b.iter(|| {
            let store = FileStore::new(root.join("o1")).unwrap();
            black_box(block_on(block_on(store.open("big")).unwrap().load()).unwrap())
        });
    });
    fill(&SqliteStore::open(root.join("o2.db")).unwrap(), "big", 1000);
    c.bench_function("open_1000_turns/sqlite", |b| {
        b.iter(|| {
            let store = SqliteStore::open(root.join("o2.db")).unwrap();
            black_box(block_on(block_on(store.open("big")).unwrap().load()).unwrap())
        });
    });

    let files = root.join("l1");
    many_files(&files, 10_000);
    let page = ListOptions::page(0, 50);
    c.bench_function("list_10000/file", |b| {
        b.iter(|| black_box(block_on(FileStore::new(&files).unwrap().list(&page)).unwrap()));
    });
    let sqlite = SqliteStore::open(root.join("l2.db")).unwrap();
    let template = {
        let m = dive_session::MemoryStore::new();
        fill(&m, "x", 1);
        block_on(block_on(m.open("x")).unwrap().as_history().unwrap().document()).unwrap()
    };
    for i in 0..10_000 {
        let doc = template.fork(&format!("s{i}"), &dive_core::ForkOptions::default()).unwrap();
        block_on(sqlite.import(&doc)).unwrap();
    }
    c.bench_function("list_10000/sqlite", |b| {
        b.iter(|| black_box(block_on(sqlite.list(&page)).unwrap()));
    });
}

/// Writes `n` one-turn session files by copying one the store wrote.
fn many_files(dir: &Path, n: usize) {
    let store = FileStore::new(dir).unwrap();
    fill(&store, "template", 1);
    let text = std::fs::read_to_string(dir.join("template.jsonl")).unwrap();
    for i in 0..n {
        let id = format!("s{i}");
        std::fs::write(dir.join(format!("{id}.jsonl")), text.replace("\"template\"", &format!("\"{id}\"")))
            .unwrap();
    }
    std::fs::remove_file(dir.join("template.jsonl")).unwrap();
}

criterion_group! {
    name = stores;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(stores);
