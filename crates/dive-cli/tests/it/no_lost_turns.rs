//! The real `dive` binary never loses a turn and never says it saved one it did not: a disk
//! that fills up during a turn (a small tmpfs), SIGTERM in the middle of a Bash tool, two
//! processes on one session, a damaged `sessions.db`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Lines, MockApi, Reply, dirs, first_session, stderr_of};
use serde_json::{Value, json};

/// A tmpfs of `size` mounted on a temporary directory, unmounted on drop.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts one; outside CI a machine that cannot mount (not root, no tmpfs) skips the
    /// test with a note, under `CI=true` it fails.
    fn mount(size: &str) -> Option<Self> {
        let dir = tempfile::tempdir().unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status();
        match status {
            Ok(s) if s.success() => Some(Self { dir }),
            other => {
                let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
                assert!(!ci, "CI=true: cannot mount a tmpfs for the full-disk test: {other:?}");
                eprintln!("SKIPPED: cannot mount a tmpfs here ({other:?}); run as root to test a full disk");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Writes zeros into `dir` until the file system refuses (ENOSPC).
fn fill(dir: &Path) {
    let mut file = std::fs::File::create(dir.join("filler")).unwrap();
    let block = vec![0u8; 64 * 1024];
    while file.write_all(&block).is_ok() {}
    let small = [0u8; 512];
    while file.write_all(&small).is_ok() {}
    let _ = file.sync_all();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_disk_is_said_plainly_and_the_turn_goes_to_a_recovery_file() {
    let Some(disk) = Tmpfs::mount("2m") else { return };
    let sessions = disk.path().to_path_buf();
    let target = sessions.clone();
    let api = MockApi::start_with_hook(
        vec![Reply::Text("The recovery words are amber and slate.")],
        Some(Box::new(move |_| fill(&target))),
    )
    .await;
    let workspace = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let output = api
        .dive(&sessions, workspace.path())
        .env("TMPDIR", tmp.path())
        .args(["-p", "tell me the recovery words"])
        .output()
        .unwrap();
    let err = stderr_of(&output);
    assert_eq!(api.bodies().len(), 1, "the model was called once: {err}");
    assert!(!err.contains("was saved"), "{err}");
    assert!(err.contains("NOT saved") || err.contains("may not have been saved"), "{err}");
    let marker = "; it is in ";
    let line = err.lines().find(|l| l.contains(marker)).unwrap_or_else(|| panic!("no recovery path: {err}"));
    let path = PathBuf::from(line.split(marker).nth(1).unwrap().trim());
    assert!(path.starts_with(tmp.path()), "the full session dir could not take it: {}", path.display());
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "a recovery file in a shared directory is the user's alone");
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(record["format"], "dive.recovered_turn");
    let turn = record["turn"]["messages"].to_string();
    assert!(
        turn.contains("tell me the recovery words") && turn.contains("amber and slate"),
        "the whole turn is in the file: {turn}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_directory_that_cannot_be_written_is_found_before_the_model_is_called() {
    let Some(disk) = Tmpfs::mount("1m") else { return };
    let api = MockApi::start(vec![Reply::Text("never asked")]).await;
    let workspace = tempfile::tempdir().unwrap();
    // Create the database first, then fill the disk.
    let first = api.dive(disk.path(), workspace.path()).args(["sessions", "list"]).output().unwrap();
    assert!(first.status.success(), "{}", stderr_of(&first));
    fill(disk.path());
    let output = api.dive(disk.path(), workspace.path()).args(["-p", "hello"]).output().unwrap();
    let err = stderr_of(&output);
    assert!(!output.status.success());
    assert!(err.contains("cannot be written") && err.contains("nothing was sent to the model"), "{err}");
    assert!(api.bodies().is_empty(), "no paid call for a turn that could not be saved");

    // A read-only session directory (root ignores permission bits; a read-only mount does not).
    std::fs::remove_file(disk.path().join("filler")).unwrap();
    let remount = Command::new("mount").args(["-o", "remount,ro"]).arg(disk.path()).status().unwrap();
    assert!(remount.success(), "remount read-only");
    let output = api.dive(disk.path(), workspace.path()).args(["-p", "hello"]).output().unwrap();
    let err = stderr_of(&output);
    assert!(!output.status.success());
    assert!(err.contains("cannot be written") && err.contains("--session-dir"), "{err}");
    assert!(api.bodies().is_empty(), "no paid call for a turn that could not be saved");
}

use dive_test::process::is_gone as process_gone;

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_mid_tool_kills_the_tool_saves_the_turn_incomplete_and_exits_143() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let api = MockApi::start(vec![Reply::Tool {
        id: "toolu_1",
        name: "Bash",
        input: json!({"command": "sleep 300 & echo $! > grandchild.pid; wait"}),
    }])
    .await;
    let (sessions, workspace) = dirs();
    let child = api
        .dive(sessions.path(), workspace.path())
        .args(["--dangerously-skip-permissions", "-p", "wait a long time"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid_file = workspace.path().join("grandchild.pid");
    let started = Instant::now();
    let grandchild: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file).ok().and_then(|t| t.trim().parse().ok()) {
            break pid;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the Bash tool never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(!process_gone(grandchild));
    kill(Pid::from_raw(i32::try_from(child.id()).unwrap()), Signal::SIGTERM).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(20), "dive stopped promptly");
    assert_eq!(output.status.code(), Some(143), "{}", stderr_of(&output));
    assert!(process_gone(grandchild), "the tool's grandchild was killed with its process group");

    let id = first_session(&api, sessions.path(), workspace.path());
    let show = api.dive(sessions.path(), workspace.path()).args(["sessions", "show", &id]).output().unwrap();
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(shown.contains("you: wait a long time"), "{shown}");
    assert!(
        shown.contains("Unknown result") && shown.contains("open turn") && shown.contains("incomplete"),
        "the call is unknown and the turn incomplete: {shown}"
    );
}

/// Creates a session in print mode, then opens it in an interactive `dive` that holds it;
/// returns the session id, the holder and its stderr (read past the start-up banner).
fn session_held_by_a_second_dive(
    api: &MockApi,
    sessions: &Path,
    workspace: &Path,
) -> (String, std::process::Child, Lines) {
    let created = api.dive(sessions, workspace).args(["-p", "start"]).output().unwrap();
    assert!(created.status.success(), "{}", stderr_of(&created));
    let id = first_session(api, sessions, workspace);
    let mut holder = api
        .dive(sessions, workspace)
        .args(["--resume", &id])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = Lines::read(holder.stderr.take().unwrap());
    err.wait_for("/help for commands", Duration::from_secs(30));
    (id, holder, err)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_process_on_a_session_is_told_who_holds_it_and_can_fork() {
    let api = MockApi::start(vec![Reply::Text("First answer."); 4]).await;
    let (sessions, workspace) = dirs();
    let (id, mut holder, holder_err) = session_held_by_a_second_dive(&api, sessions.path(), workspace.path());
    let holder_pid = holder.id();

    let second =
        api.dive(sessions.path(), workspace.path()).args(["--resume", &id, "-p", "more"]).output().unwrap();
    let err = stderr_of(&second);
    assert!(!second.status.success());
    assert!(err.contains(&format!("in use by dive pid {holder_pid}")), "{err}");
    assert!(err.contains("--fork-session"), "it says how to fork: {err}");
    assert_eq!(api.bodies().len(), 1, "the second process paid for nothing");

    let forked = api
        .dive(sessions.path(), workspace.path())
        .args(["--resume", &id, "--fork-session", "-p", "more"])
        .output()
        .unwrap();
    assert!(forked.status.success(), "{}", stderr_of(&forked));
    assert!(stderr_of(&forked).contains(&format!("forked session {id} into")), "{}", stderr_of(&forked));
    let sent = common::request_text(&api.bodies()[1]);
    assert!(sent.contains("start") && sent.contains("First answer."), "the fork has the history: {sent}");

    // Interactive: offered a fork at start.
    let mut interactive = api
        .dive(sessions.path(), workspace.path())
        .args(["--resume", &id])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    interactive.stdin.take().unwrap().write_all(b"y\n/quit\n").unwrap();
    let out = interactive.wait_with_output().unwrap();
    let err = stderr_of(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(&format!("in use by dive pid {holder_pid}")) && err.contains("forked session"),
        "{err}"
    );

    holder.stdin.take().unwrap().write_all(b"/quit\n").unwrap();
    assert!(holder.wait().unwrap().success(), "{}", holder_err.rest());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_database_says_what_to_do_and_is_left_untouched() {
    let api = MockApi::start(vec![Reply::Text("never asked")]).await;
    let (sessions, workspace) = dirs();
    let db = sessions.path().join("sessions.db");
    let garbage: Vec<u8> = b"this is not a database, it was damaged by a bad copy\n".repeat(200);
    std::fs::write(&db, &garbage).unwrap();
    let output = api.dive(sessions.path(), workspace.path()).args(["-p", "hello"]).output().unwrap();
    let err = stderr_of(&output);
    assert!(!output.status.success());
    assert!(err.contains("damaged") && err.contains(&db.display().to_string()), "{err}");
    assert!(err.contains("Move it aside") && err.contains("--session-dir"), "it says what to do: {err}");
    assert_eq!(std::fs::read(&db).unwrap(), garbage, "the file was not written");
    assert!(api.bodies().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn the_claim_of_a_killed_process_does_not_block_the_session() {
    let api = MockApi::start(vec![Reply::Text("Answer."); 2]).await;
    let (sessions, workspace) = dirs();
    let (id, mut holder, _) = session_held_by_a_second_dive(&api, sessions.path(), workspace.path());
    holder.kill().unwrap(); // SIGKILL: no release
    holder.wait().unwrap();
    let next =
        api.dive(sessions.path(), workspace.path()).args(["--resume", &id, "-p", "more"]).output().unwrap();
    assert!(next.status.success(), "a dead holder blocks nothing: {}", stderr_of(&next));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unsaved_turn_is_kept_and_saved_before_the_next_one_once_the_disk_has_room() {
    let Some(disk) = Tmpfs::mount("2m") else { return };
    let target = disk.path().to_path_buf();
    let api = MockApi::start_with_hook(
        vec![Reply::Text("The first answer is teal."), Reply::Text("Second answer.")],
        Some(Box::new(move |n| {
            if n == 0 {
                fill(&target);
            }
        })),
    )
    .await;
    let workspace = tempfile::tempdir().unwrap();
    let mut child = api
        .dive(disk.path(), workspace.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut err = Lines::read(child.stderr.take().unwrap());
    stdin.write_all(b"what colour is the first answer\n").unwrap();
    let said = err.wait_for("tries to save it again", Duration::from_secs(30));
    assert!(said.contains("NOT saved") || said.contains("may not have been saved"), "{said}");
    std::fs::remove_file(disk.path().join("filler")).unwrap();
    stdin.write_all(b"and the second?\n/quit\n").unwrap();
    err.wait_for("saved the earlier turn", Duration::from_secs(30));
    drop(stdin);
    assert!(child.wait().unwrap().success(), "{}", err.rest());
    let second = common::request_text(&api.bodies()[1]);
    assert!(
        second.contains("what colour is the first answer") && second.contains("teal"),
        "the model saw the turn that was saved late: {second}"
    );
    let id = first_session(&api, disk.path(), workspace.path());
    let show = api.dive(disk.path(), workspace.path()).args(["sessions", "show", &id]).output().unwrap();
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(shown.contains("teal") && shown.contains("Second answer."), "{shown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn after_a_clean_exit_sessions_db_alone_holds_every_session() {
    let api = MockApi::start(vec![Reply::Text("Kept in the file.")]).await;
    let (sessions, workspace) = dirs();
    let run = api.dive(sessions.path(), workspace.path()).args(["-p", "remember this"]).output().unwrap();
    assert!(run.status.success(), "{}", stderr_of(&run));
    let wal = sessions.path().join("sessions.db-wal");
    assert_eq!(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0), 0, "the log was folded in");

    let copy = tempfile::tempdir().unwrap();
    std::fs::copy(sessions.path().join("sessions.db"), copy.path().join("sessions.db")).unwrap();
    let id = first_session(&api, copy.path(), workspace.path());
    let show = api.dive(copy.path(), workspace.path()).args(["sessions", "show", &id]).output().unwrap();
    assert!(String::from_utf8_lossy(&show.stdout).contains("Kept in the file."));
}

#[tokio::test(flavor = "multi_thread")]
async fn sighup_at_the_prompt_exits_129_and_releases_the_session() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let api = MockApi::start(vec![Reply::Text("Answer."); 2]).await;
    let (sessions, workspace) = dirs();
    let mut child = api
        .dive(sessions.path(), workspace.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut err = Lines::read(child.stderr.take().unwrap());
    stdin.write_all(b"hello\n").unwrap();
    err.wait_for("out tokens", Duration::from_secs(30));
    kill(Pid::from_raw(i32::try_from(child.id()).unwrap()), Signal::SIGHUP).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(129), "{}", err.rest());
    drop(stdin);
    let id = first_session(&api, sessions.path(), workspace.path());
    let next =
        api.dive(sessions.path(), workspace.path()).args(["--resume", &id, "-p", "more"]).output().unwrap();
    assert!(next.status.success(), "the session is free again: {}", stderr_of(&next));
}
