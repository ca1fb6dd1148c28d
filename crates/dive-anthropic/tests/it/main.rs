//! The crate's integration tests as one test binary (one link instead of one a file): each
//! module is a test file of its own.

mod chunking;
mod conformance;
mod encode;
mod interop;
mod native_compaction;
mod options;
mod retry;
mod roundtrip;
mod tool_cache;
mod toolset_interop;
mod toolsets;
