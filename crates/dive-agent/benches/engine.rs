//! Engine overhead benchmarks (filled in below).
fn main() {}
