//! Grep and Glob against `rg` on a large tree (default: the cargo registry sources; set
//! `DIVE_BENCH_TREE` to use another). Run with `scripts/bench-search.sh`, which installs
//! ripgrep when it is missing. Benchmarks that need `rg` are skipped when it is absent.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use dive_toolkit::{GlobTool, GrepInput, OutputMode, Workspace, grep_search};

fn tree() -> PathBuf {
    if let Ok(dir) = std::env::var("DIVE_BENCH_TREE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cargo"));
    home.join("registry/src")
}

fn rg_available() -> bool {
    Command::new("rg").arg("--version").output().is_ok_and(|o| o.status.success())
}

fn rg(args: &[&str], dir: &Path) -> usize {
    let out = Command::new("rg").args(args).arg(dir).output().unwrap();
    out.stdout.iter().filter(|&&b| b == b'\n').count()
}

fn ours(dir: &Path, pattern: &str, mode: OutputMode, case_insensitive: bool) -> usize {
    let input =
        GrepInput { pattern: pattern.into(), output_mode: mode, case_insensitive, ..GrepInput::default() };
    grep_search(dir, &input, &|p: &Path| p.display().to_string()).unwrap().entries.len()
}

fn bench(c: &mut Criterion) {
    let dir = tree();
    assert!(dir.is_dir(), "bench tree {} does not exist; set DIVE_BENCH_TREE", dir.display());
    let has_rg = rg_available();
    if !has_rg {
        eprintln!("rg not found: only dive-toolkit figures are measured (run scripts/bench-search.sh)");
    }
    let ws = Workspace::new(&dir).unwrap();
    let glob = GlobTool::new(ws).with_excludes(Vec::new()).with_limit(usize::MAX);

    let mut group = c.benchmark_group("search");
    group.sample_size(10).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_secs(2));

    group.bench_function("grep files_with_matches 'fn main' / dive", |b| {
        b.iter(|| ours(&dir, "fn main", OutputMode::FilesWithMatches, false));
    });
    if has_rg {
        group.bench_function("grep files_with_matches 'fn main' / rg", |b| {
            b.iter(|| rg(&["-l", "fn main"], &dir))
        });
    }
    group.bench_function("grep content -i 'unsafe impl \\w+ for' / dive", |b| {
        b.iter(|| ours(&dir, r"unsafe impl \w+ for", OutputMode::Content, true));
    });
    if has_rg {
        group.bench_function("grep content -i 'unsafe impl \\w+ for' / rg", |b| {
            b.iter(|| rg(&["-n", "-i", r"unsafe impl \w+ for"], &dir));
        });
    }
    group.bench_function("glob **/*.rs / dive", |b| b.iter(|| glob.find("**/*.rs", &dir).unwrap().total));
    if has_rg {
        group
            .bench_function("glob **/*.rs / rg --files", |b| b.iter(|| rg(&["--files", "-g", "*.rs"], &dir)));
    }
    group.finish();

    // The same answers, so the comparison is fair.
    if has_rg {
        assert_eq!(ours(&dir, "fn main", OutputMode::FilesWithMatches, false), rg(&["-l", "fn main"], &dir));
        assert_eq!(glob.find("**/*.rs", &dir).unwrap().total, rg(&["--files", "-g", "*.rs"], &dir));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
