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

/// Medians of one (provider, client, mode) over its repetitions.
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
    /// Peak RSS, MiB.
    pub rss_mib: f64,
    /// Repetitions.
    pub reps: usize,
}

/// The medians of the samples of `provider`, `client` and `mode`.
#[must_use]
pub fn medians(samples: &[Sample], provider: Provider, client: ClientKind, mode: Mode) -> Medians {
    let runs: Vec<&ClientReport> = samples
        .iter()
        .filter(|s| s.provider == provider && s.client == client && s.mode == mode)
        .map(|s| &s.report)
        .collect();
    let of = |f: &dyn Fn(&ClientReport) -> f64| median(runs.iter().map(|r| f(r)).collect());
    Medians {
        cpu_us: of(&ClientReport::cpu_per_turn),
        latency_us: of(&|r| r.latency_us),
        throughput: of(&ClientReport::throughput),
        allocs: of(&ClientReport::allocs_per_turn),
        alloc_bytes: of(&|r| r.alloc_bytes as f64 / r.turns.max(1) as f64),
        rss_mib: of(&|r| r.peak_rss_kib as f64 / 1024.0),
        reps: runs.len(),
    }
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
            writeln!(out, "The mock ran on CPU {}, every client process on CPU {}.\n", p.mock, p.clients)
        }
        None => writeln!(out, "The mock and the clients ran wherever the system put them (--no-pin).\n"),
    };
    let _ = writeln!(
        out,
        "CPU per turn (user + sys of the client process), median of the repetitions, as a ratio to raw:\n"
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
                let raw = medians(samples, provider, ClientKind::Raw, mode);
                let ratio =
                    if raw.cpu_us > 0.0 { format!("{:.2}×", m.cpu_us / raw.cpu_us) } else { "–".into() };
                let _ = write!(out, " {ratio} ({:.0} µs) |", m.cpu_us);
            }
            let plain = medians(samples, provider, client, modes[2]).rss_mib;
            let stream = medians(samples, provider, client, modes[3]).rss_mib;
            let _ = writeln!(out, " {:.1}–{:.1} MiB |", plain.min(stream), plain.max(stream));
        }
    }
    let _ = writeln!(
        out,
        "\nEvery figure (medians; wall = median turn latency; allocations counted by the bench binary's global allocator):\n"
    );
    let _ = writeln!(
        out,
        "| Provider | Client | Mode | CPU/turn | wall/turn | turns/s | allocs/turn | KiB allocated/turn | peak RSS | reps |"
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
                    m.reps
                );
            }
        }
    }
    out
}
