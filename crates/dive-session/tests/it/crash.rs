//! Crash tests with real processes. Each test re-runs this test binary as a child process
//! (selected by the `DIVE_SESSION_CHILD` environment variable), which writes sessions in a
//! loop and prints every turn id after the store reported it saved; the parent kills it with
//! SIGKILL at arbitrary moments, then checks that the store opens and holds every reported turn.
#![cfg(all(unix, feature = "sqlite"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)] // test helpers and the child's report

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use dive_core::{
    Message, OutcomeReason, Session, SessionEdit, SessionError, SessionStore, Turn, TurnOutcome, TurnStatus,
};
use dive_session::{FileStore, SqliteStore};
use futures::executor::block_on;

const CHILD_ENV: &str = "DIVE_SESSION_CHILD";

fn store(kind: &str, path: &Path) -> Box<dyn SessionStore> {
    match kind {
        "file" => Box::new(FileStore::new(path).unwrap()),
        "sqlite" => Box::new(SqliteStore::open(path.join("sessions.db")).unwrap()),
        other => panic!("unknown store kind {other}"),
    }
}

/// Arguments of a child: `kind path role`.
fn child_args() -> Option<(String, String, String)> {
    let spec = std::env::var(CHILD_ENV).ok()?;
    let mut parts = spec.splitn(3, '|').map(str::to_owned);
    Some((parts.next()?, parts.next()?, parts.next()?))
}

fn report(line: &str) {
    let mut out = std::io::stdout().lock();
    // A marker, because libtest prints "test name ... " on the same line first.
    writeln!(out, "@@ {line}").unwrap();
    out.flush().unwrap();
}

/// The writer child: appends turns, replaces open turns, records step checkpoints and edits
/// the title (full rewrites), forever; prints `saved <id>` after each reported save.
fn writer_child(kind: &str, path: &str, round: &str) -> ! {
    let store = store(kind, Path::new(path));
    let session = block_on(store.open("crash")).unwrap();
    block_on(session.load()).unwrap(); // recovers a turn the previous child left running
    let history = session.as_history().unwrap();
    for i in 0u64.. {
        let id = format!("r{round}-{i}");
        match i % 4 {
            0 | 1 => {
                block_on(session.save_turn(&Turn::completed(&id, vec![Message::user(format!("turn {id}"))])))
                    .unwrap();
            }
            2 => {
                // Step checkpoints (appended `step` lines), then the final record (rewrite).
                let mut turn = Turn::new(&id, vec![Message::user(format!("steps {id}"))]);
                block_on(session.save_turn(&turn)).unwrap();
                turn.messages.push(Message::assistant("working"));
                block_on(session.save_turn(&turn)).unwrap();
                turn.close(TurnOutcome::new(OutcomeReason::OutputLimit, vec![]));
                block_on(session.save_turn(&turn)).unwrap();
            }
            _ => {
                block_on(history.edit(None, &SessionEdit::SetTitle(Some(format!("title {id}"))))).unwrap();
                block_on(session.save_turn(&Turn::completed(&id, vec![Message::user("after a rewrite")])))
                    .unwrap();
            }
        }
        report(&format!("saved {id}"));
    }
    unreachable!("the loop never ends")
}

/// The claiming child: claims, writes one turn, holds the claim until stdin says `release`.
fn claim_child(kind: &str, path: &str, owner: &str) -> ! {
    let store = store(kind, Path::new(path));
    let session = block_on(store.open("shared")).unwrap();
    let claimer = session.as_claimer().unwrap();
    match block_on(claimer.claim(owner, Duration::from_secs(60))) {
        Ok(()) => report("claimed"),
        Err(SessionError::Claimed { owner, .. }) => {
            report(&format!("refused {owner}"));
            std::process::exit(0);
        }
        Err(e) => panic!("claim failed: {e}"),
    }
    let snap = block_on(session.load()).unwrap();
    let turns = session.as_turn_store().unwrap();
    let turn = Turn::completed(format!("by-{owner}"), vec![Message::user(owner)]);
    block_on(turns.checkpoint_turn(snap.revision, &turn)).unwrap();
    report(&format!("saved by-{owner} after {}", snap.history.len()));
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).unwrap();
    block_on(claimer.release(owner)).unwrap();
    report("released");
    std::process::exit(0)
}

fn run_child_if_asked() -> bool {
    let Some((kind, path, role)) = child_args() else { return false };
    match role.split_once(':') {
        Some(("writer", round)) => writer_child(&kind, &path, round),
        Some(("claim", owner)) => claim_child(&kind, &path, owner),
        _ => panic!("unknown child role {role}"),
    }
}

fn spawn(test: &str, kind: &str, dir: &Path, role: &str) -> (Child, BufReader<ChildStdout>, ChildStdin) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([&dive_test::child::full_test_name(test), "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, format!("{kind}|{}|{role}", dir.display()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let stdin = child.stdin.take().unwrap();
    (child, stdout, stdin)
}

/// The child's next report line (the test harness's own lines skipped).
fn next_report(out: &mut BufReader<ChildStdout>) -> Option<String> {
    let mut line = String::new();
    loop {
        line.clear();
        if out.read_line(&mut line).unwrap() == 0 {
            return None;
        }
        if let Some((_, report)) = line.trim().split_once("@@ ") {
            return Some(report.to_owned());
        }
    }
}

fn open(kind: &str, dir: &Path, id: &str) -> Arc<dyn Session> {
    block_on(store(kind, dir).open(id)).unwrap()
}

fn sigkill_rounds(test: &str, kind: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut reported: Vec<String> = Vec::new();
    for round in 0..20u32 {
        let (mut child, mut out, _stdin) = spawn(test, kind, dir.path(), &format!("writer:{round}"));
        // Kill after a varying number of saves, while the child is in the middle of the next.
        let wanted = 1 + (round * 7 % 11) as usize;
        for _ in 0..wanted {
            reported.push(
                next_report(&mut out).expect("the child died early").trim_start_matches("saved ").into(),
            );
        }
        child.kill().unwrap(); // SIGKILL
        // Lines the child printed before it died were reported saved too.
        while let Some(line) = next_report(&mut out) {
            reported.push(line.trim_start_matches("saved ").into());
        }
        child.wait().unwrap();
        let session = open(kind, dir.path(), "crash");
        let snap = block_on(session.load()).expect("the store opens after a SIGKILL");
        assert_ne!(snap.open_turn.map(|t| t.status), Some(TurnStatus::Running), "recovered on load");
        let doc = block_on(session.as_history().unwrap().document()).unwrap();
        let ids: std::collections::HashSet<String> = doc.turns().into_iter().map(|t| t.id).collect();
        for id in &reported {
            assert!(ids.contains(id), "round {round}: turn {id} was reported saved but is missing");
        }
    }
    assert!(reported.len() >= 20, "the children saved turns");
}

#[test]
fn file_store_keeps_every_reported_turn_across_sigkills() {
    if run_child_if_asked() {
        return;
    }
    sigkill_rounds("file_store_keeps_every_reported_turn_across_sigkills", "file");
}

#[test]
fn sqlite_store_keeps_every_reported_turn_across_sigkills() {
    if run_child_if_asked() {
        return;
    }
    sigkill_rounds("sqlite_store_keeps_every_reported_turn_across_sigkills", "sqlite");
}

fn two_processes_with_claims(test: &str, kind: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (mut a, mut a_out, mut a_in) = spawn(test, kind, dir.path(), "claim:proc-a");
    assert_eq!(next_report(&mut a_out).as_deref(), Some("claimed"));
    assert_eq!(next_report(&mut a_out).as_deref(), Some("saved by-proc-a after 0"));
    // While A holds the claim, B is refused with a typed error naming A.
    let (mut b, mut b_out, _b_in) = spawn(test, kind, dir.path(), "claim:proc-b");
    assert_eq!(next_report(&mut b_out).as_deref(), Some("refused proc-a"));
    assert!(b.wait().unwrap().success());
    writeln!(a_in, "release").unwrap();
    assert_eq!(next_report(&mut a_out).as_deref(), Some("released"));
    assert!(a.wait().unwrap().success());
    // Now B claims, sees A's turn, and adds its own: no lost update.
    let (mut b, mut b_out, mut b_in) = spawn(test, kind, dir.path(), "claim:proc-b");
    assert_eq!(next_report(&mut b_out).as_deref(), Some("claimed"));
    assert_eq!(next_report(&mut b_out).as_deref(), Some("saved by-proc-b after 1"));
    writeln!(b_in, "release").unwrap();
    assert!(b.wait().unwrap().success());
    let doc = block_on(open(kind, dir.path(), "shared").as_history().unwrap().document()).unwrap();
    let ids: Vec<String> = doc.turns().into_iter().map(|t| t.id).collect();
    assert_eq!(ids, ["by-proc-a", "by-proc-b"]);
}

#[test]
fn file_store_claims_exclude_a_second_process() {
    if run_child_if_asked() {
        return;
    }
    two_processes_with_claims("file_store_claims_exclude_a_second_process", "file");
}

#[test]
fn sqlite_store_claims_exclude_a_second_process() {
    if run_child_if_asked() {
        return;
    }
    two_processes_with_claims("sqlite_store_claims_exclude_a_second_process", "sqlite");
}
