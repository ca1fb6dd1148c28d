//! Stream decoding benchmark (placeholder until written).
fn main() {}
