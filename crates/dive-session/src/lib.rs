//! Session stores for Dive for Rust.
//!
//! In progress (issue 4): this version has [`MemoryStore`] and the turn-record rules every
//! store shares ([`SessionLog`]); the JSONL `FileStore`, the SQLite store and the conformance
//! suite follow.
#![deny(missing_docs)]

mod log;
mod memory;

pub use log::SessionLog;
pub use memory::{MemorySession, MemoryStore};
