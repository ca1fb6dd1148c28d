//! The harness cannot rot: one short run of every mode with every client and provider, at
//! concurrency 2, through the real binary (mock and clients in their own processes). The run
//! itself checks every final answer and the mock's request count; this test checks that it
//! succeeded and printed a table with every row. No timing is asserted.

use std::process::Command;

#[test]
fn every_mode_of_every_client_and_provider_answers_right() {
    let output = Command::new(env!("CARGO_BIN_EXE_bench-clients"))
        .args(["run", "--reps", "1", "--blocks", "2", "--seq-turns", "4", "--concurrent-turns", "8"])
        .args(["--concurrency", "2", "--warmup", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the run failed: {stderr}");
    let table = String::from_utf8_lossy(&output.stdout);
    for row in [
        "| raw reqwest + serde (the limit), Chat Completions |",
        "| dive, Chat Completions |",
        "| raw reqwest + serde (the limit), Anthropic Messages |",
        "| dive, Anthropic Messages |",
    ] {
        assert!(table.contains(row), "no row {row:?} in\n{table}");
    }
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    // With two CPUs or more, the mock runs on one of its own, polling.
    let placed =
        if cpus >= 2 { "(polling), every client process on CPU" } else { "wherever the system put them" };
    assert!(table.contains(placed), "{table}");
    // 2 providers × 4 modes × 2 clients, one repetition of two blocks each.
    assert_eq!(stderr.matches(" rep 1 block 1: ").count(), 16, "{stderr}");
    assert_eq!(stderr.matches(" rep 1 block 2: ").count(), 16, "{stderr}");
}

#[test]
fn an_idle_mock_sleeps_and_still_answers() {
    let output = Command::new(env!("CARGO_BIN_EXE_bench-clients"))
        .args(["run", "--reps", "1", "--seq-turns", "2", "--concurrent-turns", "4", "--concurrency", "2"])
        .args(["--warmup", "2", "--provider", "chat", "--client", "raw", "--idle-mock"])
        .output()
        .unwrap();
    assert!(output.status.success(), "the run failed: {}", String::from_utf8_lossy(&output.stderr));
    let table = String::from_utf8_lossy(&output.stdout);
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    let placed = if cpus >= 2 { "(sleeping when idle)" } else { "wherever the system put them" };
    assert!(table.contains(placed), "{table}");
}

#[test]
fn a_client_without_its_mock_fails() {
    // A port that was free a moment ago: nothing answers there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let output = Command::new(env!("CARGO_BIN_EXE_bench-clients"))
        .args(["client", "--url", &url, "--client", "raw", "--provider", "chat"])
        .args(["--turns", "1", "--warmup", "0"])
        .output()
        .unwrap();
    assert!(!output.status.success(), "a client without a server must fail");
    assert!(String::from_utf8_lossy(&output.stderr).contains("raw client HTTP call failed"));
}

#[test]
fn a_client_taking_commands_runs_each_block_and_refuses_a_bad_one() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let exe = env!("CARGO_BIN_EXE_bench-clients");
    let mock = bench_clients::orchestrate::MockProcess::start(std::path::Path::new(exe), None).unwrap();
    let mut client = Command::new(exe)
        .args(["client", "--url", &mock.url, "--client", "dive", "--provider", "messages", "--commands"])
        .args(["--warmup", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = client.stdin.take().unwrap();
    let mut output = BufReader::new(client.stdout.take().unwrap());
    let mut line = String::new();
    output.read_line(&mut line).unwrap();
    assert_eq!(line, "ready\n");
    for turns in [3, 1] {
        writeln!(input, "{turns}").unwrap();
        line.clear();
        output.read_line(&mut line).unwrap();
        let report: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(report["turns"], turns, "{line}");
        assert_eq!(report["warmup"], 0, "{line}");
    }
    writeln!(input, "three").unwrap();
    let result = client.wait_with_output().unwrap();
    assert!(!result.status.success(), "a bad block must fail the client");
    assert!(String::from_utf8_lossy(&result.stderr).contains("not a number of turns: \"three\""));
}
