//! The command line of the `bench-clients` binary: `run` (the orchestrator), and the two
//! child roles it starts, `mock` and `client`.

use crate::client::{ClientKind, Provider};

/// Client-overhead benchmark: dive against a raw reqwest + serde client on a local mock.
#[derive(Debug, clap::Parser)]
#[command(name = "bench-clients")]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The roles of the binary.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Run the whole benchmark (starts the mock and one process per client run) and print
    /// the table.
    Run(RunArgs),
    /// Serve the mock on 127.0.0.1 (prints its base URL; exits when stdin closes).
    Mock(MockArgs),
    /// Run one client's turns against a mock and print one JSON report.
    Client(ClientArgs),
    /// Run each client's turns under callgrind and print the code a turn runs, by crate
    /// (needs valgrind).
    Footprint(FootprintArgs),
}

/// Options of `run`.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Repetitions: each starts a fresh process of every client (medians are reported).
    #[arg(long, default_value_t = 5)]
    pub reps: usize,
    /// Blocks a repetition's measured turns are split into; the clients' processes take turns
    /// running one block each, so the two sides of a ratio run a fraction of a second apart.
    #[arg(long, default_value_t = 10)]
    pub blocks: usize,
    /// Measured turns of a sequential client process (split into the blocks).
    #[arg(long, default_value_t = 1000)]
    pub seq_turns: usize,
    /// Measured turns of a concurrent client process (split into the blocks).
    #[arg(long, default_value_t = 3000)]
    pub concurrent_turns: usize,
    /// Turns in flight in the concurrent modes.
    #[arg(long, default_value_t = 100)]
    pub concurrency: usize,
    /// Warm-up turns before measuring (at least the concurrency).
    #[arg(long, default_value_t = 50)]
    pub warmup: usize,
    /// Providers to run (default: both).
    #[arg(long, value_enum)]
    pub provider: Vec<Provider>,
    /// Clients to run (default: raw and dive).
    #[arg(long, value_enum)]
    pub client: Vec<ClientKind>,
    /// Run the mock and the clients wherever the system puts them, instead of the mock on a
    /// CPU of its own and the clients on the others.
    #[arg(long)]
    pub no_pin: bool,
    /// Let the pinned mock sleep when it has nothing to do, instead of polling on its CPU
    /// (see `mock --spin`).
    #[arg(long)]
    pub idle_mock: bool,
}

/// Options of `mock`.
#[derive(Debug, Clone, clap::Args)]
pub struct MockArgs {
    /// The CPUs to run on (`0`, `0,2-3`); anywhere when absent.
    #[arg(long)]
    pub cpus: Option<String>,
    /// Poll for work without ever sleeping (for a mock on a CPU of its own): a client's
    /// request then never has to wake the mock, a cost the kernel charges to the client.
    #[arg(long)]
    pub spin: bool,
}

/// Options of `client`.
#[derive(Debug, Clone, clap::Args)]
pub struct ClientArgs {
    /// The mock's base URL (`http://127.0.0.1:port`).
    #[arg(long)]
    pub url: String,
    /// Which client.
    #[arg(long, value_enum)]
    pub client: ClientKind,
    /// Which API.
    #[arg(long, value_enum)]
    pub provider: Provider,
    /// Stream the model calls (SSE).
    #[arg(long)]
    pub stream: bool,
    /// Turns in flight at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Measured turns.
    #[arg(long, default_value_t = 100)]
    pub turns: usize,
    /// Warm-up turns.
    #[arg(long, default_value_t = 10)]
    pub warmup: usize,
    /// The CPUs to run on (`0`, `0,2-3`); anywhere when absent. The runtime starts one worker
    /// a CPU.
    #[arg(long)]
    pub cpus: Option<String>,
    /// Take commands instead of running `--turns`: after the warm-up print `ready`, then for
    /// every line read from stdin (a number of turns) run that many and print their report;
    /// exit at the end of the input.
    #[arg(long)]
    pub commands: bool,
}

/// Options of `footprint`.
#[derive(Debug, Clone, clap::Args)]
pub struct FootprintArgs {
    /// Which API.
    #[arg(long, value_enum, default_value = "chat")]
    pub provider: Provider,
    /// Clients to run (default: raw and dive).
    #[arg(long, value_enum)]
    pub client: Vec<ClientKind>,
    /// Stream the model calls (SSE).
    #[arg(long)]
    pub stream: bool,
    /// Turns in flight at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Turns after the warm-up (a line counts when it ran once a turn over all the turns).
    #[arg(long, default_value_t = 400)]
    pub turns: usize,
    /// Warm-up turns.
    #[arg(long, default_value_t = 200)]
    pub warmup: usize,
    /// How many of each client's largest functions to list.
    #[arg(long, default_value_t = 15)]
    pub top: usize,
}
