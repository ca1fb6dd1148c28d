//! Session stores for Dive for Rust.
//!
//! In progress (issue 4): this version has [`MemoryStore`], the JSONL [`FileStore`] and the
//! turn-record rules every store shares ([`SessionLog`]); the SQLite store, compaction, and forks
//! follow.
#![deny(missing_docs)]

mod claim;
mod file;
mod log;
mod memory;

pub use file::{FileSession, FileStore};
pub use log::SessionLog;
pub use memory::{MemorySession, MemoryStore};
