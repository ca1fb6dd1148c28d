//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own, sharing the `common` helpers.

#[path = "../common/mod.rs"]
mod common;

mod ask_user;
mod bash;
mod escape;
mod files;
mod search;
mod web_fetch;
mod web_search;
