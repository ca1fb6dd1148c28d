//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own, sharing the `common` helpers.

#[path = "../common/mod.rs"]
mod common;

mod crash;
mod export_import;
mod file_store;
mod memory_store;
mod run_lock;
mod sqlite_file;
mod sqlite_store;
