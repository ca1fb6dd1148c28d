//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own.

mod events;
mod framework;
mod http;
mod sse;
