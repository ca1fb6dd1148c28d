//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own, sharing the `common` helpers.

#[path = "../common/mod.rs"]
mod common;

mod chat_stream;
mod conformance;
mod connection_reuse;
mod interop;
mod native_compaction;
mod read_timeout;
mod recorded;
mod replay;
mod retry;
mod secrets;
mod tool_cache;
