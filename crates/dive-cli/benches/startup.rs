//! Start-up time of the `dive` binary: `dive --version`, and print mode from spawn to its first
//! request arriving at a local server. Figures go in `docs/benchmarks.md`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

fn version(c: &mut Criterion) {
    c.bench_function("dive --version", |b| {
        b.iter(|| {
            let status = Command::new(env!("CARGO_BIN_EXE_dive"))
                .arg("--version")
                .stdout(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
        });
    });
}

fn first_request(c: &mut Criterion) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let sessions = tempfile::tempdir().unwrap();
    c.bench_function("dive -p: spawn to first request", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                let mut child = Command::new(env!("CARGO_BIN_EXE_dive"))
                    .env("ANTHROPIC_API_KEY", "bench")
                    .env("ANTHROPIC_BASE_URL", &url)
                    .arg("--session-dir")
                    .arg(sessions.path())
                    .args(["-p", "hello"])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                let (conn, _) = listener.accept().unwrap();
                total += start.elapsed();
                drop(conn);
                let _ = child.kill();
                let _ = child.wait();
            }
            total
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = version, first_request
}
criterion_main!(benches);
