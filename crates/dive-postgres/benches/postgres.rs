//! PostgreSQL store throughput on the local server (`DIVE_TEST_POSTGRES_URL`, default
//! `host=127.0.0.1 user=postgres dbname=test`): appending one turn (one session, then 4
//! writers on 4 sessions), and queued runs completed by 4 in-process workers (each run: three
//! model calls, two journalled payments, step checkpoints). Each run of the bench uses a
//! schema of its own, dropped at the end.
#![allow(clippy::unwrap_used, clippy::print_stderr)] // benchmark set-up

#[path = "../examples/worker/mod.rs"]
mod worker;

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use dive_core::{Message, SessionStore, Turn};
use dive_postgres::{NewRun, PostgresConfig, PostgresStore};
use serde_json::json;

fn turn(id: &str) -> Turn {
    Turn::completed(
        id,
        vec![
            Message::user("What is the capital of Portugal, and what is it known for?"),
            Message::assistant(
                "Lisbon. It is known for its hills, its trams, the Belém tower, pastéis de nata and fado: \
                 a city of seven hills on the Tagus estuary with a mild climate all year round.",
            ),
        ],
    )
}

struct Bench {
    rt: tokio::runtime::Runtime,
    store: PostgresStore,
    schema: String,
    ledger: Arc<tokio_postgres::Client>,
}

fn setup() -> Option<Bench> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let schema = format!("dive_bench_{}", std::process::id());
    let config = PostgresConfig::new(&worker::url()).unwrap().with_schema(&schema).unwrap().with_pool_size(8);
    let store = match rt.block_on(PostgresStore::connect(&config)) {
        Ok(store) => store,
        Err(e) => {
            eprintln!("\n!!!!!!!! SKIPPED the postgres bench: {e} !!!!!!!!\n");
            return None;
        }
    };
    let ledger = rt.block_on(worker::downstream(&schema)).unwrap();
    rt.block_on(ledger.batch_execute(worker::DOWNSTREAM_TABLES)).unwrap();
    Some(Bench { rt, store, schema, ledger })
}

impl Drop for Bench {
    fn drop(&mut self) {
        let sql = format!("DROP SCHEMA IF EXISTS \"{}\" CASCADE", self.schema);
        self.rt.block_on(self.ledger.batch_execute(&sql)).unwrap();
    }
}

fn appends(c: &mut Criterion, b: &Bench) {
    let n = AtomicU64::new(0);
    c.bench_function("postgres append one turn", |bench| {
        bench.iter_custom(|iters| {
            b.rt.block_on(async {
                let session =
                    b.store.open(&format!("append-{}", n.fetch_add(1, Ordering::Relaxed))).await.unwrap();
                let start = Instant::now();
                for i in 0..iters {
                    black_box(session.save_turn(&turn(&format!("t{i}"))).await.unwrap());
                }
                start.elapsed()
            })
        });
    });
    c.bench_function("postgres append one turn, 4 writers", |bench| {
        bench.iter_custom(|iters| {
            b.rt.block_on(async {
                let base = n.fetch_add(1, Ordering::Relaxed);
                let start = Instant::now();
                let writers: Vec<_> = (0..4)
                    .map(|w| {
                        let store = b.store.clone();
                        tokio::spawn(async move {
                            let session = store.open(&format!("append-{base}-{w}")).await.unwrap();
                            for i in 0..iters.div_ceil(4) {
                                session.save_turn(&turn(&format!("t{i}"))).await.unwrap();
                            }
                        })
                    })
                    .collect();
                for w in writers {
                    w.await.unwrap();
                }
                start.elapsed()
            })
        });
    });
}

fn runs(c: &mut Criterion, b: &Bench) {
    let batch = AtomicU64::new(0);
    let ttl = Duration::from_secs(30);
    let mut group = c.benchmark_group("postgres runs");
    group.sample_size(10);
    group.bench_function("queued run completed, 4 workers", |bench| {
        bench.iter_custom(|iters| {
            b.rt.block_on(async {
                let k = batch.fetch_add(1, Ordering::Relaxed);
                let queue = b.store.queue();
                for i in 0..iters {
                    let run = NewRun::new(
                        format!("b{k}-r{i}"),
                        format!("b{k}-s{i}"),
                        json!({"prompt": format!("pay b{k}-r{i}")}),
                    );
                    queue.submit(&run).await.unwrap();
                }
                let start = Instant::now();
                let workers: Vec<_> = (0..4)
                    .map(|w| {
                        let (store, ledger) = (b.store.clone(), Arc::clone(&b.ledger));
                        tokio::spawn(async move {
                            let queue = store.queue();
                            while let Some(run) = queue.claim(&format!("bench-{w}"), ttl).await.unwrap() {
                                worker::work(&store, &ledger, run, ttl, &(0..1)).await.unwrap();
                            }
                        })
                    })
                    .collect();
                for w in workers {
                    w.await.unwrap();
                }
                start.elapsed()
            })
        });
    });
    group.finish();
}

fn postgres(c: &mut Criterion) {
    let Some(bench) = setup() else { return };
    appends(c, &bench);
    runs(c, &bench);
}

criterion_group!(benches, postgres);
criterion_main!(benches);
