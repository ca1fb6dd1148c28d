//! Many worker processes on one database: 4 `queue_worker` processes run 200 queued runs
//! while the test SIGKILLs them at random points (at least 20 kills) and restarts them; and a
//! worker paused past its lease (SIGSTOP) cannot write once resumed (SIGCONT).
//!
//! The worker is this crate's `queue_worker` example (built by `cargo test` and nextest).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
#[path = "../../examples/worker/mod.rs"]
mod worker;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use common::TestSchema;
use dive_core::{OutcomeReason, Role, Session, SessionStore, Turn, TurnStatus};
use dive_postgres::{NewRun, PostgresStore};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

const RUNS: usize = 200;
const WORKERS: usize = 4;
const MIN_KILLS: usize = 20;

fn worker_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let bin = profile_dir.join("examples").join(format!("queue_worker{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: `cargo test -p dive-postgres` and nextest build it; after `--test it` alone, \
         run `cargo build -p dive-postgres --example queue_worker` first",
        bin.display()
    );
    bin
}

fn spawn(args: &[&str]) -> Child {
    Command::new(worker_binary())
        .args(args)
        .env("DIVE_TEST_POSTGRES_URL", common::url())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

#[test]
fn four_workers_killed_at_random_finish_every_run_without_applying_an_effect_twice() {
    if !common::available("four_workers_killed_at_random") {
        return;
    }
    let rt = runtime();
    let schema = TestSchema::new("workers");
    let store = rt.block_on(PostgresStore::connect(&schema.config())).unwrap();
    rt.block_on(async {
        schema.batch(worker::DOWNSTREAM_TABLES).await;
        let queue = store.queue();
        for i in 0..RUNS {
            queue
                .submit(&NewRun::new(
                    format!("run-{i}"),
                    format!("s-{i}"),
                    json!({"prompt": format!("pay run-{i}")}),
                ))
                .await
                .unwrap();
        }
    });
    let started = Instant::now();
    let args = ["run", schema.name.as_str(), "1000"];
    let mut workers: Vec<Child> = (0..WORKERS).map(|_| spawn(&args)).collect();
    let mut kills = 0;
    let queue = store.queue();
    loop {
        std::thread::sleep(Duration::from_millis(fastrand::u64(20..100)));
        let counts = rt.block_on(queue.counts()).unwrap();
        if counts.is_settled() {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "the runs did not finish: {counts:?}");
        if kills < MIN_KILLS + 10 {
            let victim = fastrand::usize(0..WORKERS);
            workers[victim].kill().unwrap(); // SIGKILL
            workers[victim].wait().unwrap();
            kills += 1;
            workers[victim] = spawn(&args);
        }
    }
    for mut w in workers {
        let deadline = Instant::now() + Duration::from_secs(20);
        while w.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "a worker did not exit once the queue settled");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let elapsed = started.elapsed();

    rt.block_on(async {
        let counts = queue.counts().await.unwrap();
        assert_eq!((counts.done, counts.failed), (RUNS as u64, 0), "every run completes");
        let ledger = schema.execute("SELECT COUNT(*), COUNT(DISTINCT (run_id, step)) FROM ledger").await;
        let (applied, distinct): (i64, i64) = (ledger[0].get(0), ledger[0].get(1));
        assert_eq!(distinct, 2 * RUNS as i64, "every payment was applied");
        assert_eq!(
            applied, distinct,
            "no payment was applied twice (the effect id was stable across workers)"
        );
        let deliveries: i64 = schema.execute("SELECT COUNT(*) FROM deliveries").await[0].get(0);
        let effects = schema.execute("SELECT COUNT(*) FROM effects WHERE status = 'done'").await;
        assert_eq!(effects[0].get::<_, i64>(0), 2 * RUNS as i64, "every intent has its result");
        let resumed: i64 = schema.execute("SELECT COUNT(*) FROM runs WHERE deliveries > 1").await[0].get(0);
        let resumptions = schema.execute("SELECT reason, unknown_calls FROM resumptions").await;
        let recovered = resumptions.len();
        let unknown_calls: i32 = resumptions.iter().map(|r| r.get::<_, i32>(1)).sum();
        for r in &resumptions {
            assert_eq!(
                r.get::<_, &str>(0),
                "ProcessExit",
                "a lost worker's turn is recovered as process_exit"
            );
        }
        for i in 0..RUNS {
            let doc =
                store.open(&format!("s-{i}")).await.unwrap().as_history().unwrap().document().await.unwrap();
            let turns = doc.turns();
            assert_eq!(turns.len(), 1, "s-{i}: one turn, resumed in place, none lost or duplicated");
            let turn = &turns[0];
            assert_eq!(turn.status, TurnStatus::Completed, "s-{i}");
            let inputs =
                turn.messages.iter().filter(|m| m.role == Role::User && m.text() == format!("pay run-{i}"));
            assert_eq!(inputs.count(), 1, "s-{i}: the input is recorded once");
            assert_eq!(turn.messages.last().unwrap().text(), format!("done run-{i}"), "s-{i}");
            let record = queue.run(&format!("run-{i}")).await.unwrap().unwrap();
            assert_eq!(record.result, Some(json!({"answer": format!("done run-{i}")})));
        }
        eprintln!(
            "multi-worker figures: {RUNS} runs, {WORKERS} workers, {kills} SIGKILLs, {:.1} s; {resumed} runs \
             resumed by another worker, {recovered} turns recovered as process_exit and continued in place \
             ({unknown_calls} calls left unknown), {deliveries} payment \
             deliveries for {applied} payments applied once each",
            elapsed.as_secs_f64()
        );
    });
    assert!(kills >= MIN_KILLS, "only {kills} kills happened before the runs finished");
}

/// Kills the worker if the test fails before it was reaped (a stopped orphan would never end).
struct KillOnDrop(Option<Pid>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(pid) = self.0.filter(|_| std::thread::panicking()) {
            let _ = kill(pid, Signal::SIGKILL);
        }
    }
}

/// Reads the worker's stdout until a line starting with `prefix`; returns it.
fn read_until(lines: &mut std::io::Lines<BufReader<ChildStdout>>, prefix: &str) -> String {
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.starts_with(prefix) {
            return line;
        }
    }
    panic!("the worker ended before printing {prefix:?}");
}

#[test]
fn a_worker_paused_past_its_lease_cannot_write_once_resumed() {
    if !common::available("a_worker_paused_past_its_lease") {
        return;
    }
    let rt = runtime();
    let schema = TestSchema::new("sigstop");
    let store = rt.block_on(PostgresStore::connect(&schema.config())).unwrap();
    let mut worker = spawn(&["fence", schema.name.as_str(), "job", "600"]);
    let pid = Pid::from_raw(i32::try_from(worker.id()).unwrap());
    let mut guard = KillOnDrop(Some(pid));
    let mut lines = BufReader::new(worker.stdout.take().unwrap()).lines();
    let first_attempt: u64 = read_until(&mut lines, "leased ").trim_start_matches("leased ").parse().unwrap();
    let ttl = Duration::from_secs(5);
    let taken = loop {
        read_until(&mut lines, "wrote ");
        kill(pid, Signal::SIGSTOP).unwrap(); // between writes (it sleeps 100 ms after each)
        let deadline = Instant::now() + Duration::from_secs(3);
        let taken = rt.block_on(async {
            while Instant::now() < deadline {
                let attempt =
                    tokio::time::timeout(Duration::from_millis(500), store.lease("job", "taker", ttl)).await;
                if let Ok(Ok(lease)) = attempt {
                    return Some(lease);
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            None // stopped inside a transaction: let it finish and try again
        });
        if let Some(lease) = taken {
            break lease;
        }
        kill(pid, Signal::SIGCONT).unwrap();
    };
    assert!(taken.attempt > first_attempt, "the takeover raised the attempt");
    let new_owner = store.open_leased(taken.clone()).unwrap();
    rt.block_on(new_owner.save_turn(&Turn::completed("taker-1", vec![]))).unwrap();
    kill(pid, Signal::SIGCONT).unwrap();
    let refused = read_until(&mut lines, "refused ");
    assert!(refused.contains("claimed by \"taker\""), "{refused}");
    let status = worker.wait().unwrap();
    guard.0 = None; // reaped: its pid is no longer ours to signal
    assert_eq!(status.code(), Some(3), "the resumed worker stopped at its first refused write");
    rt.block_on(new_owner.save_turn(&Turn::completed("taker-2", vec![]))).unwrap();
    let doc = rt.block_on(new_owner.as_history().unwrap().document()).unwrap();
    let ids: Vec<String> = doc.turns().into_iter().map(|t| t.id).collect();
    let taker = ids.iter().position(|id| id == "taker-1").unwrap();
    assert!(ids[..taker].iter().all(|id| id.starts_with("w-")) && !ids[..taker].is_empty(), "{ids:?}");
    assert_eq!(
        &ids[taker..],
        ["taker-1", "taker-2"],
        "nothing from the paused worker landed after the takeover"
    );
    let refused_id = refused.trim_start_matches("refused ").split(':').next().unwrap();
    assert!(!ids.iter().any(|id| id == refused_id), "{ids:?}");
    assert!(
        doc.turns()
            .iter()
            .all(|t: &Turn| t.outcome.as_ref().is_none_or(|o| o.reason != OutcomeReason::ProcessExit))
    );
}
