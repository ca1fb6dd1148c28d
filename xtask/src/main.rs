//! Project automation: `cargo xtask ci` runs every check CI runs; the subcommands run one each.

mod bench;
mod checks;
mod codemap;
mod doc_names;
mod examples;
mod interop;
mod tidy;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

commands:
  ci              fmt, clippy, tests, examples, docs, layering, features, tidy (what CI runs)
  fmt             cargo fmt --check
  clippy          cargo clippy on all targets with -D warnings
  test            workspace tests (nextest when installed) and doc tests; the interop tests
                  get a python with the pinned SDKs (target/interop-venv when needed)
  examples        every example, offline (no provider key), CI=true, a time limit each
  interop-python  the python `test` gives the interop tests (builds the venv when needed)
  interop-venv    build target/interop-venv with the pinned Python SDKs
  doc             cargo doc with -D warnings (no two documented targets of one crate name)
  check-layers    dive-core's dependency allowlist and the crate layering
  check-features  cargo hack --each-feature: each crate alone, with each of its features alone
                  (installs cargo-hack when missing)
  tidy            every Rust file opens with a //! line; no comment cites an outside document;
                  the code map of docs/ARCHITECTURE.md is current
  codemap         write the code map of docs/ARCHITECTURE.md (one line a module)
  bench-clients   the client-overhead benchmark (dive against raw reqwest + serde on a local
                  mock), release build, prints the table; options go to its `run` (not in ci)";

fn main() -> ExitCode {
    let command = std::env::args().nth(1).unwrap_or_default();
    let result = match command.as_str() {
        "ci" => checks::ci(),
        "fmt" => checks::fmt(),
        "clippy" => checks::clippy(),
        "test" => checks::test(),
        "examples" => checks::examples(),
        "interop-python" => checks::interop_python(),
        "interop-venv" => checks::interop_venv(),
        "doc" => checks::doc(),
        "check-layers" => checks::check_layers(),
        "check-features" => checks::check_features(),
        "tidy" => checks::tidy(),
        "codemap" => codemap::write(),
        "bench-clients" => bench::bench_clients(&std::env::args().skip(2).collect::<Vec<_>>()),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask {command}: FAILED: {message}");
            ExitCode::FAILURE
        }
    }
}
