//! Session stores for Dive for Rust.
//!
//! In progress (issue 4): this version has [`MemoryStore`], the JSONL [`FileStore`] and the
//! turn-record rules every store shares ([`SessionLog`]); the SQLite store, compaction, forks
//! and file claims follow.
#![deny(missing_docs)]

mod file;
mod log;
mod memory;

pub use file::{FileSession, FileStore};
pub use log::SessionLog;
pub use memory::{MemorySession, MemoryStore};
