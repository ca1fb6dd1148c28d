//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own, sharing the `common` helpers.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod compat_v03;
mod loopback;
mod python_client;
mod python_server;
