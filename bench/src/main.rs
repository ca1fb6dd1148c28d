//! The `bench-clients` binary: `run` prints the client-overhead table; `mock` and `client`
//! are the child processes `run` starts; `footprint` prints the code a turn runs (see the
//! crate's README).

mod alloc;

use std::io::Read;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use bench_clients::args::{Args, ClientArgs, Command, FootprintArgs, MockArgs, RunArgs};
use bench_clients::client::Client;
use bench_clients::{BenchError, cpus, footprint, measure, mock, orchestrate, report};
use clap::Parser;

#[global_allocator]
static GLOBAL: alloc::Counting = alloc::Counting;

fn main() -> ExitCode {
    let args = Args::parse();
    let result = match args.command {
        Command::Run(run) => run_all(&run),
        Command::Mock(mock) => serve_mock(&mock),
        Command::Client(client) => run_client(&client),
        Command::Footprint(args) => print_footprint(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-clients: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_all(args: &RunArgs) -> Result<(), BenchError> {
    let (samples, placement) = orchestrate::run(args)?;
    println!("{}", report::tables(&samples, args.concurrency, placement.as_ref()));
    Ok(())
}

fn print_footprint(args: &FootprintArgs) -> Result<(), BenchError> {
    let footprints = footprint::measure(args)?;
    println!("{}", footprint::render(&footprints, args));
    Ok(())
}

fn serve_mock(args: &MockArgs) -> Result<(), BenchError> {
    if let Some(list) = &args.cpus {
        cpus::pin(list)?;
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("http://{}", listener.local_addr()?);
        if args.spin {
            tokio::spawn(mock::spin());
        }
        // The mock lives as long as its parent holds its stdin open.
        std::thread::spawn(|| {
            let _ = std::io::stdin().read_to_end(&mut Vec::new());
            std::process::exit(0);
        });
        mock::serve(listener, Arc::new(AtomicU64::new(0))).await?;
        Ok(())
    })
}

fn run_client(args: &ClientArgs) -> Result<(), BenchError> {
    // Before the runtime starts, so its workers (one a CPU allowed) run there too.
    if let Some(list) = &args.cpus {
        cpus::pin(list)?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let client =
        runtime.block_on(async { Client::new(args.client, args.provider, &args.url, args.stream) })?;
    if !args.commands {
        let report = runtime.block_on(measure::measure(
            client,
            args.warmup,
            args.turns,
            args.concurrency,
            alloc::counts,
        ))?;
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let client = Arc::new(client);
    runtime.block_on(measure::run_turns(&client, 0, args.warmup, args.concurrency))?;
    println!("ready");
    let mut first = args.warmup;
    for line in std::io::stdin().lines() {
        let line = line?;
        let turns: usize = line
            .trim()
            .parse()
            .map_err(|_| BenchError::Protocol(format!("not a number of turns: {line:?}")))?;
        let block = measure::measure_block(&client, first, turns, args.concurrency, alloc::counts);
        let report = runtime.block_on(block)?;
        println!("{}", serde_json::to_string(&report)?);
        first += turns;
    }
    Ok(())
}
