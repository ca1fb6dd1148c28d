//! The orchestrator: starts the mock in its own process, then for each repetition one process
//! of every client, which take turns running blocks of turns (raw and dive alternating which
//! goes first); checks the mock's request count after every warm-up and block, and collects
//! the reports.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

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
    /// The repetition (0-based): one process of each client.
    pub rep: usize,
    /// The block of the repetition (0-based): the clients' blocks of one repetition's block ran
    /// one after the other.
    pub block: usize,
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

/// How long one client process warms up, and where it runs.
#[derive(Debug, Clone, Copy)]
pub struct Load<'a> {
    /// Warm-up turns.
    pub warmup: usize,
    /// The CPUs it runs on (anywhere when `None`).
    pub cpus: Option<&'a str>,
}

/// One client in its child process (`client --commands`), warmed up and waiting for blocks
/// of turns; it exits when dropped (its input closes).
#[derive(Debug)]
pub struct ClientProcess {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    /// Reads the child's stderr as it comes, so a chatty child never blocks on a full pipe;
    /// its text goes into the error when the child fails.
    stderr: Option<std::thread::JoinHandle<String>>,
    /// What runs: for error messages.
    what: String,
}

impl ClientProcess {
    /// Starts `client` on `provider` in `mode` against `mock`, and waits until its warm-up
    /// is done; checks the mock counted two requests a warm-up turn.
    ///
    /// # Errors
    /// When the child fails or the request count is off.
    pub fn start(
        exe: &Path,
        mock: &MockProcess,
        client: ClientKind,
        provider: Provider,
        mode: Mode,
        load: Load<'_>,
    ) -> Result<Self, BenchError> {
        let before = mock.requests()?;
        let mut command = Command::new(exe);
        command.arg("client").args(["--url", &mock.url, "--commands"]);
        if let Some(list) = load.cpus {
            command.args(["--cpus", list]);
        }
        command.args(["--client", &value(client), "--provider", &value(provider)]);
        command.args(["--concurrency", &mode.concurrency.to_string()]);
        command.args(["--warmup", &load.warmup.to_string()]);
        if mode.stream {
            command.arg("--stream");
        }
        let mut child =
            command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
        let input = child.stdin.take();
        let output = child.stdout.take().map(BufReader::new);
        let stderr = child.stderr.take().map(|mut pipe| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = pipe.read_to_string(&mut text);
                text
            })
        });
        let what = format!("{} on {} ({})", client.label(), provider.label(), mode.label());
        let Some(output) = output else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(BenchError::Child(format!("{what} has no stdout")));
        };
        let mut process = Self { child, input, output, stderr, what };
        let line = process.read_line()?;
        if line.trim() != "ready" {
            return Err(BenchError::Child(format!("{} printed {line:?} instead of `ready`", process.what)));
        }
        check_count(mock, before, load.warmup)?;
        Ok(process)
    }

    /// Runs one block of `turns` turns and checks the mock counted two requests a turn.
    ///
    /// # Errors
    /// When the child fails, prints no report, or the request count is off.
    pub fn block(&mut self, mock: &MockProcess, turns: usize) -> Result<ClientReport, BenchError> {
        let before = mock.requests()?;
        let input =
            self.input.as_mut().ok_or_else(|| BenchError::Child(format!("{} is closed", self.what)))?;
        if writeln!(input, "{turns}").and_then(|()| input.flush()).is_err() {
            return Err(self.gone());
        }
        let line = self.read_line()?;
        let report: ClientReport = serde_json::from_str(&line)?;
        check_count(mock, before, report.turns)?;
        if report.turns != turns {
            return Err(BenchError::Child(format!("{} ran {} turns of {turns}", self.what, report.turns)));
        }
        Ok(report)
    }

    /// Closes the child's input and waits for it to exit.
    ///
    /// # Errors
    /// When it exits with a failure.
    pub fn finish(mut self) -> Result<(), BenchError> {
        let status = self.exit_status()?;
        if status.success() { Ok(()) } else { Err(self.failure(&status.to_string())) }
    }

    /// The next line the child prints; its failure (with its stderr) when it prints none.
    fn read_line(&mut self) -> Result<String, BenchError> {
        let mut line = String::new();
        if self.output.read_line(&mut line)? == 0 {
            return Err(self.gone());
        }
        Ok(line)
    }

    /// Closes the child's input and waits for it to exit.
    fn exit_status(&mut self) -> std::io::Result<std::process::ExitStatus> {
        drop(self.input.take());
        self.child.wait()
    }

    /// The error of a child that stopped taking commands: its own words say why.
    fn gone(&mut self) -> BenchError {
        match self.exit_status() {
            Ok(status) => self.failure(&status.to_string()),
            Err(e) => e.into(),
        }
    }

    /// The failure of the child (which has exited), with what it wrote to stderr.
    fn failure(&mut self, status: &str) -> BenchError {
        let stderr = self.stderr.take().and_then(|reader| reader.join().ok()).unwrap_or_default();
        BenchError::Child(format!("{} failed ({status}): {}", self.what, stderr.trim()))
    }
}

impl Drop for ClientProcess {
    fn drop(&mut self) {
        drop(self.input.take());
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Checks the mock counted two requests for each of `turns` turns since `before`.
pub(crate) fn check_count(mock: &MockProcess, before: u64, turns: usize) -> Result<(), BenchError> {
    let counted = mock.requests()? - before;
    let expected = 2 * turns as u64;
    if counted == expected { Ok(()) } else { Err(BenchError::RequestCount { expected, counted }) }
}

pub(crate) fn value(v: impl clap::ValueEnum) -> String {
    v.to_possible_value().map(|p| p.get_name().to_owned()).unwrap_or_default()
}

/// Runs the whole plan: every provider and mode, `reps` repetitions, each a fresh process of
/// every client taking turns to run `blocks` blocks (the order flips every block); with the
/// mock on a CPU of its own unless `--no-pin` (or there is one CPU). Returns the samples and
/// where the processes ran.
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
    let blocks = args.blocks.max(1);
    let mut samples = Vec::new();
    for &provider in &providers {
        for mode in modes(args.concurrency) {
            let turns = if mode.concurrency == 1 { args.seq_turns } else { args.concurrent_turns };
            let per_block = (turns / blocks).max(1);
            let load = Load { warmup: args.warmup.max(mode.concurrency), cpus: client_cpus };
            for rep in 0..args.reps.max(1) {
                let mut processes = clients
                    .iter()
                    .map(|&client| {
                        Ok((client, ClientProcess::start(&exe, &mock, client, provider, mode, load)?))
                    })
                    .collect::<Result<Vec<_>, BenchError>>()?;
                for block in 0..blocks {
                    if block > 0 {
                        processes.reverse();
                    }
                    for (client, process) in &mut processes {
                        let report = process.block(&mock, per_block)?;
                        eprintln!(
                            "bench-clients: {} / {} / {} rep {} block {}: {:.1} µs CPU a turn, {} allocations a turn",
                            provider.label(),
                            client.label(),
                            mode.label(),
                            rep + 1,
                            block + 1,
                            report.cpu_per_turn(),
                            report.allocs_per_turn().round()
                        );
                        samples.push(Sample { provider, client: *client, mode, rep, block, report });
                    }
                }
                for (_, process) in processes {
                    process.finish()?;
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
