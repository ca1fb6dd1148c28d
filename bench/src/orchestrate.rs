//! The orchestrator: starts the mock in its own process, then every client run in its own
//! process (repetitions interleaved, raw and dive alternating which goes first), checks the
//! mock's request count after each run, and collects the reports.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::BenchError;
use crate::args::RunArgs;
use crate::client::{ClientKind, Provider};
use crate::cpus::{self, Placement};
use crate::measure::ClientReport;

/// One of the four modes: sequential or concurrent, plain or streaming.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mode {
    /// Turns in flight (1: sequential).
    pub concurrency: usize,
    /// Whether the model calls stream.
    pub stream: bool,
}

impl Mode {
    /// The column name (`seq plain`, `C=100 stream`).
    #[must_use]
    pub fn label(self) -> String {
        let width = if self.concurrency == 1 { "seq".to_owned() } else { format!("C={}", self.concurrency) };
        format!("{width} {}", if self.stream { "stream" } else { "plain" })
    }
}

/// One client run's report.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// The API.
    pub provider: Provider,
    /// The client.
    pub client: ClientKind,
    /// The mode.
    pub mode: Mode,
    /// The repetition (0-based): the runs of one repetition ran one after the other.
    pub rep: usize,
    /// What the client process measured.
    pub report: ClientReport,
}

/// The mock in its child process; killed when dropped.
#[derive(Debug)]
pub struct MockProcess {
    child: Child,
    /// The base URL (`http://127.0.0.1:port`).
    pub url: String,
}

impl MockProcess {
    /// Starts `exe mock` (on the placement's CPU, polling if it says so) and reads its base URL.
    ///
    /// # Errors
    /// When the child cannot start or prints no URL.
    pub fn start(exe: &Path, placement: Option<&Placement>) -> Result<Self, BenchError> {
        let mut command = Command::new(exe);
        command.arg("mock");
        if let Some(placement) = placement {
            command.args(["--cpus", &placement.mock]);
            if placement.mock_spins {
                command.arg("--spin");
            }
        }
        let mut child = command.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn()?;
        let stdout = child.stdout.take().ok_or_else(|| BenchError::Child("mock has no stdout".into()))?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let url = line.trim().to_owned();
        if !url.starts_with("http://") {
            let _ = child.kill();
            return Err(BenchError::Child(format!("mock printed {url:?} instead of its URL")));
        }
        Ok(Self { child, url })
    }

    /// The mock's model-request count so far.
    ///
    /// # Errors
    /// When the mock does not answer `GET /stats`.
    pub fn requests(&self) -> Result<u64, BenchError> {
        let host = self.url.trim_start_matches("http://");
        let mut socket = TcpStream::connect(host)?;
        write!(socket, "GET /stats HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n")?;
        let mut reply = String::new();
        socket.read_to_string(&mut reply)?;
        let body = reply.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
        let stats: serde_json::Value = serde_json::from_str(body)?;
        stats["requests"].as_u64().ok_or_else(|| BenchError::Child(format!("mock stats {body:?}")))
    }
}

impl Drop for MockProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The binary to start as children: this one.
///
/// # Errors
/// When the running executable cannot be found.
pub fn current_exe() -> Result<PathBuf, BenchError> {
    Ok(std::env::current_exe()?)
}

/// How long one client process runs, and where.
#[derive(Debug, Clone, Copy)]
pub struct Load<'a> {
    /// Measured turns.
    pub turns: usize,
    /// Warm-up turns.
    pub warmup: usize,
    /// The CPUs it runs on (anywhere when `None`).
    pub cpus: Option<&'a str>,
}

/// Runs one client process and checks the mock counted two requests a turn.
///
/// # Errors
/// When the child fails, prints no report, or the request count is off.
pub fn run_client(
    exe: &Path,
    mock: &MockProcess,
    client: ClientKind,
    provider: Provider,
    mode: Mode,
    load: Load<'_>,
) -> Result<ClientReport, BenchError> {
    let Load { turns, warmup, cpus } = load;
    let before = mock.requests()?;
    let mut command = Command::new(exe);
    command.arg("client").args(["--url", &mock.url]);
    if let Some(list) = cpus {
        command.args(["--cpus", list]);
    }
    command.args(["--client", &value(client), "--provider", &value(provider)]);
    command.args(["--concurrency", &mode.concurrency.to_string(), "--turns", &turns.to_string()]);
    command.args(["--warmup", &warmup.to_string()]);
    if mode.stream {
        command.arg("--stream");
    }
    let output = command.stderr(Stdio::piped()).output()?;
    if !output.status.success() {
        return Err(BenchError::Child(format!(
            "{} on {} ({}) failed ({}): {}",
            client.label(),
            provider.label(),
            mode.label(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    let report: ClientReport = serde_json::from_str(line)?;
    let counted = mock.requests()? - before;
    let expected = 2 * (report.turns + report.warmup) as u64;
    if counted != expected || report.turns != turns {
        return Err(BenchError::RequestCount { expected, counted });
    }
    Ok(report)
}

fn value(v: impl clap::ValueEnum) -> String {
    v.to_possible_value().map(|p| p.get_name().to_owned()).unwrap_or_default()
}

/// Runs the whole plan: every provider and mode, `reps` interleaved repetitions of every
/// client; with the mock on a CPU of its own unless `--no-pin` (or there is one CPU). Returns
/// the samples and where the processes ran.
///
/// # Errors
/// The first failing run.
pub fn run(args: &RunArgs) -> Result<(Vec<Sample>, Option<Placement>), BenchError> {
    let exe = current_exe()?;
    let placement = if args.no_pin { None } else { cpus::split(&cpus::allowed()?) };
    let placement = placement.map(|p| Placement { mock_spins: !args.idle_mock, ..p });
    let mock = MockProcess::start(&exe, placement.as_ref())?;
    let client_cpus = placement.as_ref().map(|p| p.clients.as_str());
    let providers = if args.provider.is_empty() { Provider::ALL.to_vec() } else { args.provider.clone() };
    let clients =
        if args.client.is_empty() { vec![ClientKind::Raw, ClientKind::Dive] } else { args.client.clone() };
    let mut samples = Vec::new();
    for &provider in &providers {
        for mode in modes(args.concurrency) {
            let turns = if mode.concurrency == 1 { args.seq_turns } else { args.concurrent_turns };
            let warmup = args.warmup.max(mode.concurrency);
            for rep in 0..args.reps.max(1) {
                let mut order = clients.clone();
                if rep % 2 == 1 {
                    order.reverse();
                }
                for client in order {
                    let load = Load { turns, warmup, cpus: client_cpus };
                    let report = run_client(&exe, &mock, client, provider, mode, load)?;
                    eprintln!(
                        "bench-clients: {} / {} / {} rep {}: {:.1} µs CPU a turn, {} allocations a turn",
                        provider.label(),
                        client.label(),
                        mode.label(),
                        rep + 1,
                        report.cpu_per_turn(),
                        report.allocs_per_turn().round()
                    );
                    samples.push(Sample { provider, client, mode, rep, report });
                }
            }
        }
    }
    Ok((samples, placement))
}

/// The four modes at concurrency `concurrency`.
#[must_use]
pub fn modes(concurrency: usize) -> [Mode; 4] {
    [
        Mode { concurrency: 1, stream: false },
        Mode { concurrency: 1, stream: true },
        Mode { concurrency, stream: false },
        Mode { concurrency, stream: true },
    ]
}
