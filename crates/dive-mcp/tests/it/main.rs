//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own, sharing the `common` helpers.

#[path = "../common/mod.rs"]
mod common;

mod agent;
mod config;
mod http_headers;
mod manager;
mod oauth;
mod process_group;
mod python_client;
mod python_server;
mod server;
mod tasks;
