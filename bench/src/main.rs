//! The `dive-bench` binary (work in progress).
fn main() {}
