//! The client process's side of a run: warm up, then run the measured turns (at once, or in
//! blocks on the orchestrator's command) at a given concurrency, checking every answer, and
//! report CPU (user + sys of this process, from
//! `getrusage`), wall time, per-turn latency, allocations and peak RSS (`VmHWM`).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use nix::sys::resource::{UsageWho, getrusage};
use serde::{Deserialize, Serialize};

use crate::BenchError;
use crate::client::Client;
use crate::problem::{expected_answer, question};

/// Allocation counters of the process: (allocations, bytes), counted since start.
pub type AllocCounter = fn() -> (u64, u64);

/// What one client process measured, printed as one JSON line.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientReport {
    /// Warm-up turns run before measuring.
    pub warmup: usize,
    /// Measured turns.
    pub turns: usize,
    /// Turns in flight at once.
    pub concurrency: usize,
    /// User + system CPU of the measured turns, in microseconds.
    pub cpu_us: f64,
    /// Wall time of the measured turns, in microseconds.
    pub wall_us: f64,
    /// Median latency of one turn, in microseconds.
    pub latency_us: f64,
    /// Allocations during the measured turns.
    pub allocs: u64,
    /// Bytes allocated during the measured turns.
    pub alloc_bytes: u64,
    /// Peak resident set of the process (`VmHWM`), in KiB.
    pub peak_rss_kib: u64,
}

impl ClientReport {
    /// CPU per turn, in microseconds.
    #[must_use]
    pub fn cpu_per_turn(&self) -> f64 {
        self.cpu_us / self.turns.max(1) as f64
    }
    /// Turns per second.
    #[must_use]
    pub fn throughput(&self) -> f64 {
        self.turns as f64 / (self.wall_us / 1e6).max(1e-9)
    }
    /// Allocations per turn.
    #[must_use]
    pub fn allocs_per_turn(&self) -> f64 {
        self.allocs as f64 / self.turns.max(1) as f64
    }
}

/// CPU time (user + sys) of this process so far.
///
/// # Errors
/// When `getrusage` fails.
pub fn cpu_time() -> Result<Duration, BenchError> {
    let usage = getrusage(UsageWho::RUSAGE_SELF).map_err(std::io::Error::from)?;
    let micros = |t: nix::sys::time::TimeVal| {
        Duration::from_secs(u64::try_from(t.tv_sec()).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec()).unwrap_or(0))
    };
    Ok(micros(usage.user_time()) + micros(usage.system_time()))
}

/// The peak resident set of this process (`VmHWM` of `/proc/self/status`), in KiB.
///
/// # Errors
/// When `/proc/self/status` cannot be read or has no `VmHWM`.
pub fn peak_rss_kib() -> Result<u64, BenchError> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| BenchError::Protocol("no VmHWM in /proc/self/status".into()))
}

/// Runs turns `first..first + turns`, `concurrency` at a time; checks every answer and
/// returns each turn's latency.
///
/// # Errors
/// The first failing turn's error, or a wrong answer.
pub async fn run_turns(
    client: &Arc<Client>,
    first: usize,
    turns: usize,
    concurrency: usize,
) -> Result<Vec<Duration>, BenchError> {
    let next = Arc::new(AtomicUsize::new(first));
    let end = first + turns;
    let workers: Vec<_> = (0..concurrency.max(1))
        .map(|_| {
            let (client, next) = (Arc::clone(client), Arc::clone(&next));
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(turns / concurrency.max(1) + 1);
                loop {
                    let turn = next.fetch_add(1, Ordering::Relaxed);
                    if turn >= end {
                        return Ok::<_, BenchError>(latencies);
                    }
                    let started = Instant::now();
                    let got = client.turn(&question(turn)).await?;
                    latencies.push(started.elapsed());
                    let expected = expected_answer(turn);
                    if got != expected {
                        return Err(BenchError::WrongAnswer { turn, expected, got });
                    }
                }
            })
        })
        .collect();
    let mut all = Vec::with_capacity(turns);
    for worker in workers {
        all.extend(worker.await.map_err(|e| BenchError::Child(format!("a turn task failed: {e}")))??);
    }
    Ok(all)
}

/// Warms `client` up with `warmup` turns, then measures `turns` turns.
///
/// # Errors
/// A failing or wrong turn, or a failing measurement.
pub async fn measure(
    client: Client,
    warmup: usize,
    turns: usize,
    concurrency: usize,
    allocs: AllocCounter,
) -> Result<ClientReport, BenchError> {
    let client = Arc::new(client);
    run_turns(&client, 0, warmup, concurrency).await?;
    let mut report = measure_block(&client, warmup, turns, concurrency, allocs).await?;
    report.warmup = warmup;
    Ok(report)
}

/// Measures turns `first..first + turns` of a warmed-up `client`, `concurrency` at a time (the
/// report's `warmup` is 0).
///
/// # Errors
/// A failing or wrong turn, or a failing measurement.
pub async fn measure_block(
    client: &Arc<Client>,
    first: usize,
    turns: usize,
    concurrency: usize,
    allocs: AllocCounter,
) -> Result<ClientReport, BenchError> {
    let (cpu0, (n0, b0), t0) = (cpu_time()?, allocs(), Instant::now());
    let mut latencies = run_turns(client, first, turns, concurrency).await?;
    let (wall, (n1, b1), cpu1) = (t0.elapsed(), allocs(), cpu_time()?);
    latencies.sort_unstable();
    let latency = latencies.get(latencies.len() / 2).copied().unwrap_or_default();
    Ok(ClientReport {
        warmup: 0,
        turns,
        concurrency,
        cpu_us: (cpu1 - cpu0).as_secs_f64() * 1e6,
        wall_us: wall.as_secs_f64() * 1e6,
        latency_us: latency.as_secs_f64() * 1e6,
        allocs: n1 - n0,
        alloc_bytes: b1 - b0,
        peak_rss_kib: peak_rss_kib()?,
    })
}
