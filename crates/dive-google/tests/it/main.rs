//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own, sharing the `common` helpers.

#[path = "../common/mod.rs"]
mod common;

mod chunking;
mod conformance;
mod conversation;
mod endpoint;
mod interop;
mod recorded;
mod retry;
mod tool_cache;
mod usage;
