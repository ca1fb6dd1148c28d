//! A2A 1.0 for Dive for Rust: serve an [`Agent`](dive_agent::Agent) as an A2A endpoint and
//! call remote A2A agents.
pub mod types;
