//! A side-by-side client-overhead benchmark: dive's agent against a hand-written reqwest +
//! serde client (the limit), both doing the same agent turn against a local mock of OpenAI
//! Chat Completions and Anthropic Messages.
//!
//! One turn is two requests: the user asks to add two numbers, the model answers with a
//! call of the `add` tool, the client runs the tool and sends its result, and the model
//! answers with a sentence carrying that result. The mock ([`mock`]) decides each reply
//! from the request and counts requests; every client checks every final answer
//! ([`problem`]), and the orchestrator ([`orchestrate`]) checks the mock's request count
//! after each client run. Each client runs in its own child process so its CPU time
//! (user + sys), peak RSS and allocations are its own ([`measure`]).
//!
//! Run it with `cargo xtask bench-clients` (release build; prints one markdown table).

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]

pub mod agent;
pub mod args;
pub mod client;
pub mod cpus;
pub mod error;
pub mod footprint;
pub mod measure;
pub mod mock;
pub mod orchestrate;
pub mod problem;
pub mod raw;
pub mod report;

pub use error::BenchError;
