//! `cargo xtask bench-clients`: the client-overhead benchmark (bench/), in release mode.

use crate::checks::run;

/// Builds `bench-clients` in release mode and runs it, passing `args` to its `run` (e.g.
/// `--reps 3`); the table goes to stdout. Too slow for `cargo xtask ci`.
pub fn bench_clients(args: &[String]) -> Result<(), String> {
    let mut command = vec!["run", "--release", "-p", "bench-clients", "--", "run"];
    command.extend(args.iter().map(String::as_str));
    run("cargo", &command, &[])
}
