//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own.

mod conformance;
mod http;
mod interop;
mod unsupported_content;
