//! The table: medians of the interleaved repetitions, CPU per turn as a ratio to the raw
//! client, then every measured figure.

use std::fmt::Write as _;

use crate::client::{ClientKind, Provider};
use crate::cpus::Placement;
use crate::measure::ClientReport;
use crate::orchestrate::{Mode, Sample, modes};

/// The median of `values` (the upper one of an even count); 0 when empty.
#[must_use]
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// Medians of one (provider, client, mode) over its blocks (peak RSS: over its processes).
#[derive(Debug, Clone, Copy, Default)]
pub struct Medians {
    /// CPU per turn, µs.
    pub cpu_us: f64,
    /// Median turn latency, µs.
    pub latency_us: f64,
    /// Turns per second.
    pub throughput: f64,
    /// Allocations per turn.
    pub allocs: f64,
    /// Bytes allocated per turn.
    pub alloc_bytes: f64,
    /// Peak RSS of a client process (the highest of its blocks), MiB.
    pub rss_mib: f64,
    /// Blocks measured, over all repetitions.
    pub blocks: usize,
}

/// The medians of the samples of `provider`, `client` and `mode`.
#[must_use]
pub fn medians(samples: &[Sample], provider: Provider, client: ClientKind, mode: Mode) -> Medians {
    let mine: Vec<&Sample> =
        samples.iter().filter(|s| s.provider == provider && s.client == client && s.mode == mode).collect();
    let runs: Vec<&ClientReport> = mine.iter().map(|s| &s.report).collect();
    let of = |f: &dyn Fn(&ClientReport) -> f64| median(runs.iter().map(|r| f(r)).collect());
    let mut peaks = std::collections::BTreeMap::<usize, u64>::new();
    for s in &mine {
        let peak = peaks.entry(s.rep).or_default();
        *peak = (*peak).max(s.report.peak_rss_kib);
    }
    Medians {
        cpu_us: of(&ClientReport::cpu_per_turn),
        latency_us: of(&|r| r.latency_us),
        throughput: of(&ClientReport::throughput),
        allocs: of(&ClientReport::allocs_per_turn),
        alloc_bytes: of(&|r| r.alloc_bytes as f64 / r.turns.max(1) as f64),
        rss_mib: median(peaks.values().map(|&kib| kib as f64 / 1024.0).collect()),
        blocks: runs.len(),
    }
}

/// The CPU ratios of `client` to the raw client, one a block: each divides two blocks run one
/// after the other, so a machine that drifts faster or slower moves both sides of a ratio
/// alike. Sorted.
#[must_use]
pub fn paired_ratios(samples: &[Sample], provider: Provider, client: ClientKind, mode: Mode) -> Vec<f64> {
    let raw = |rep: usize, block: usize| {
        samples
            .iter()
            .find(|s| {
                s.provider == provider
                    && s.client == ClientKind::Raw
                    && s.mode == mode
                    && (s.rep, s.block) == (rep, block)
            })
            .map(|s| s.report.cpu_per_turn())
            .filter(|cpu| *cpu > 0.0)
    };
    let mut ratios: Vec<f64> = samples
        .iter()
        .filter(|s| s.provider == provider && s.client == client && s.mode == mode)
        .filter_map(|s| Some(s.report.cpu_per_turn() / raw(s.rep, s.block)?))
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios
}

/// The lower and upper quartiles of sorted `values` (nearest rank); `None` when empty.
#[must_use]
pub fn quartiles(sorted: &[f64]) -> Option<(f64, f64)> {
    let last = sorted.len().checked_sub(1)?;
    Some((sorted[sorted.len() / 4], sorted[(3 * sorted.len() / 4).min(last)]))
}

/// The markdown tables of a run: the ratio table and the detail table.
#[must_use]
pub fn tables(samples: &[Sample], concurrency: usize, placement: Option<&Placement>) -> String {
    let modes = modes(concurrency);
    let providers: Vec<Provider> =
        Provider::ALL.into_iter().filter(|p| samples.iter().any(|s| s.provider == *p)).collect();
    let clients: Vec<ClientKind> = [ClientKind::Raw, ClientKind::Dive]
        .into_iter()
        .filter(|c| samples.iter().any(|s| s.client == *c))
        .collect();
    let mut out = String::new();
    let _ = match placement {
        Some(p) => {
            let mock = if p.mock_spins { "polling" } else { "sleeping when idle" };
            writeln!(
                out,
                "The mock ran on CPU {} ({mock}), every client process on CPU {}.\n",
                p.mock, p.clients
            )
        }
        None => writeln!(out, "The mock and the clients ran wherever the system put them (--no-pin).\n"),
    };
    let _ = writeln!(
        out,
        "CPU per turn (user + sys of the client process) as a ratio to raw: the median of the \
         blocks' ratios (each of two blocks run one after the other), the median CPU a turn, \
         and the lower and upper quartiles of the ratios:\n"
    );
    let _ = write!(out, "| Client |");
    for mode in modes {
        let _ = write!(out, " {} |", mode.label());
    }
    let _ = writeln!(out, " peak RSS at C={concurrency} |\n|---|---|---|---|---|---|");
    for &provider in &providers {
        for &client in &clients {
            let _ = write!(out, "| {}, {} |", client.label(), provider.label());
            for mode in modes {
                let m = medians(samples, provider, client, mode);
                let ratios = paired_ratios(samples, provider, client, mode);
                let cell = match quartiles(&ratios) {
                    Some((low, high)) if client != ClientKind::Raw => {
                        format!("{:.2}× ({:.0} µs; {low:.2}–{high:.2})", median(ratios.clone()), m.cpu_us)
                    }
                    _ => format!("1.00× ({:.0} µs)", m.cpu_us),
                };
                let _ = write!(out, " {cell} |");
            }
            let plain = medians(samples, provider, client, modes[2]).rss_mib;
            let stream = medians(samples, provider, client, modes[3]).rss_mib;
            let _ = writeln!(out, " {:.1}–{:.1} MiB |", plain.min(stream), plain.max(stream));
        }
    }
    let _ = writeln!(
        out,
        "\nEvery figure (medians of the blocks; wall = median turn latency; allocations counted by the bench binary's global allocator; peak RSS: the median of the processes' peaks):\n"
    );
    let _ = writeln!(
        out,
        "| Provider | Client | Mode | CPU/turn | wall/turn | turns/s | allocs/turn | KiB allocated/turn | peak RSS | blocks |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|");
    for &provider in &providers {
        for mode in modes {
            for &client in &clients {
                let m = medians(samples, provider, client, mode);
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {:.1} µs | {:.0} µs | {:.0} | {:.0} | {:.1} | {:.1} MiB | {} |",
                    provider.label(),
                    client.label(),
                    mode.label(),
                    m.cpu_us,
                    m.latency_us,
                    m.throughput,
                    m.allocs,
                    m.alloc_bytes / 1024.0,
                    m.rss_mib,
                    m.blocks
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(client: ClientKind, rep: usize, cpu_us: f64) -> Sample {
        block_sample(client, rep, 0, cpu_us)
    }

    fn block_sample(client: ClientKind, rep: usize, block: usize, cpu_us: f64) -> Sample {
        let report = ClientReport {
            warmup: 0,
            turns: 10,
            concurrency: 1,
            cpu_us: cpu_us * 10.0,
            wall_us: 1.0,
            latency_us: 1.0,
            allocs: 0,
            alloc_bytes: 0,
            peak_rss_kib: 0,
        };
        Sample {
            provider: Provider::Chat,
            client,
            mode: Mode { concurrency: 1, stream: false },
            rep,
            block,
            report,
        }
    }

    #[test]
    fn ratios_pair_the_runs_of_one_repetition() {
        // The machine is twice as fast in the second repetition: each pair still reads 1.5×.
        let samples = [
            sample(ClientKind::Raw, 0, 100.0),
            sample(ClientKind::Dive, 0, 150.0),
            sample(ClientKind::Dive, 1, 75.0),
            sample(ClientKind::Raw, 1, 50.0),
            sample(ClientKind::Raw, 2, 100.0),
            sample(ClientKind::Dive, 2, 120.0),
        ];
        let mode = Mode { concurrency: 1, stream: false };
        let ratios = paired_ratios(&samples, Provider::Chat, ClientKind::Dive, mode);
        assert_eq!(ratios, [1.2, 1.5, 1.5]);
        let table = tables(&samples, 100, None);
        assert!(table.contains("| dive, Chat Completions | 1.50× (120 µs; 1.20–1.50) |"), "{table}");
    }

    #[test]
    fn ratios_pair_the_blocks_of_one_repetition() {
        // Within one pair of processes the machine slows down and speeds up again: each
        // block's pair still reads 1.25×; pairing by repetition alone would mix them.
        let samples = [
            block_sample(ClientKind::Raw, 0, 0, 100.0),
            block_sample(ClientKind::Dive, 0, 0, 125.0),
            block_sample(ClientKind::Dive, 0, 1, 250.0),
            block_sample(ClientKind::Raw, 0, 1, 200.0),
            block_sample(ClientKind::Raw, 0, 2, 40.0),
            block_sample(ClientKind::Dive, 0, 2, 50.0),
        ];
        let mode = Mode { concurrency: 1, stream: false };
        let ratios = paired_ratios(&samples, Provider::Chat, ClientKind::Dive, mode);
        assert_eq!(ratios, [1.25, 1.25, 1.25]);
        assert_eq!(medians(&samples, Provider::Chat, ClientKind::Dive, mode).blocks, 3);
    }

    #[test]
    fn peak_rss_is_the_median_of_the_processes_highest() {
        let mut samples = Vec::new();
        for (rep, peaks) in [[1024, 3072], [2048, 4096], [5120, 1024]].into_iter().enumerate() {
            for (block, kib) in peaks.into_iter().enumerate() {
                let mut s = block_sample(ClientKind::Dive, rep, block, 1.0);
                s.report.peak_rss_kib = kib;
                samples.push(s);
            }
        }
        // The processes peaked at 3, 4 and 5 MiB.
        let m = medians(&samples, Provider::Chat, ClientKind::Dive, Mode { concurrency: 1, stream: false });
        assert!((m.rss_mib - 4.0).abs() < 1e-9, "{}", m.rss_mib);
    }

    #[test]
    fn quartiles_take_the_nearest_ranks() {
        assert_eq!(quartiles(&[]), None);
        assert_eq!(quartiles(&[2.0]), Some((2.0, 2.0)));
        let eight = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        assert_eq!(quartiles(&eight), Some((3.0, 7.0)));
    }
}
