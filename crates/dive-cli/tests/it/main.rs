//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own, sharing the `common` helpers.

#[path = "../common/mod.rs"]
mod common;

mod a2a;
mod bash_redirect;
mod end_to_end;
mod mcp;
mod mcp_oauth;
mod no_lost_turns;
mod otel;
mod skills_and_subagents;
mod terminal_keys;
mod terminal_safety;
mod user_expectations;
