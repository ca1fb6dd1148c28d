//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own.

mod embedders;
mod extension;
mod long_term;
mod memory_tool;
mod short_term;
mod stores;
