//! `footprint` runs both clients under callgrind (valgrind is on every machine this project
//! builds on) and counts the code each turn runs by crate: the engine's code must show up for
//! dive and not for raw, and dive must run more code than raw. No size is asserted beyond that.

use std::process::Command;

/// The KiB of `crate_row` in a `| name | raw | dive | dive − raw |` row.
fn kib(table: &str, crate_row: &str) -> (f64, f64) {
    let line = table
        .lines()
        .find(|l| l.starts_with(&format!("| {crate_row} |")))
        .unwrap_or_else(|| panic!("no row for {crate_row} in\n{table}"));
    let cells: Vec<f64> = line.split('|').filter_map(|c| c.trim().parse().ok()).collect();
    (cells[0], cells[1])
}

#[test]
fn the_engine_s_code_is_dive_s_and_dive_runs_more_code_than_raw() {
    let output = Command::new(env!("CARGO_BIN_EXE_bench-clients"))
        .args(["footprint", "--turns", "4", "--warmup", "2", "--top", "3"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "footprint failed: {stderr}");
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(table.contains("| Crate | raw reqwest + serde (the limit) | dive | dive − raw |"), "{table}");
    let (raw, dive) = kib(&table, "dive_agent");
    assert!(raw == 0.0 && dive > 1.0, "dive_agent: raw {raw}, dive {dive}\n{table}");
    let (raw, dive) = kib(&table, "**all**");
    assert!(raw > 10.0 && dive > raw, "all: raw {raw}, dive {dive}\n{table}");
    assert!(table.contains("The 3 largest functions of dive"), "{table}");
}

#[test]
fn a_client_list_runs_only_those_clients() {
    let output = Command::new(env!("CARGO_BIN_EXE_bench-clients"))
        .args(["footprint", "--client", "raw", "--turns", "2", "--warmup", "1", "--provider", "messages"])
        .output()
        .unwrap();
    assert!(output.status.success(), "footprint failed: {}", String::from_utf8_lossy(&output.stderr));
    let table = String::from_utf8_lossy(&output.stdout);
    assert!(table.contains("Anthropic Messages plain"), "{table}");
    assert!(table.contains("| Crate | raw reqwest + serde (the limit) |\n"), "{table}");
    assert!(!table.contains("largest functions of dive"), "{table}");
}
