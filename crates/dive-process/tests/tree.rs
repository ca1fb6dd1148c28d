//! Real child processes: a shell that starts a background grandchild, killed with its tree by
//! `kill_tree`, by a dropped `GroupGuard`, and left alone by a disarmed one.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use dive_test::process::{gone_within, is_gone};

fn alive(pid: i32) -> bool {
    !is_gone(pid)
}

/// A shell in its own group that starts `sleep 300` in the background; returns it and the
/// grandchild's pid.
async fn shell_with_grandchild() -> (Child, i32) {
    let mut command = Command::new("sh");
    command.arg("-c").arg("sleep 300 & echo $!; wait").stdout(Stdio::piped());
    dive_process::own_group(&mut command);
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let pid = lines.next_line().await.unwrap().unwrap().trim().parse().unwrap();
    assert!(alive(pid));
    (child, pid)
}

#[tokio::test]
async fn kill_tree_ends_the_shell_and_its_background_grandchild() {
    let (mut child, grandchild) = shell_with_grandchild().await;
    dive_process::kill_tree(&mut child).await;
    assert!(child.try_wait().unwrap().is_some(), "the shell is reaped");
    assert!(gone_within(grandchild, Duration::from_secs(5)), "the grandchild outlived kill_tree");
}

#[tokio::test]
async fn a_dropped_guard_kills_the_group_and_a_disarmed_one_does_not() {
    let (child, grandchild) = shell_with_grandchild().await;
    drop(dive_process::GroupGuard::new(&child));
    assert!(gone_within(grandchild, Duration::from_secs(5)), "the guard's drop left the grandchild");
    drop(child);

    let (mut child, grandchild) = shell_with_grandchild().await;
    let mut guard = dive_process::GroupGuard::new(&child);
    guard.disarm();
    drop(guard);
    std::thread::sleep(Duration::from_millis(100));
    assert!(alive(grandchild), "a disarmed guard killed the group");
    dive_process::kill_tree(&mut child).await;
    assert!(gone_within(grandchild, Duration::from_secs(5)));
}

#[test]
fn a_group_already_gone_is_not_an_error() {
    // Pid 2^22 + 1 is above the kernel's default pid_max, so no such group exists.
    assert!(dive_process::kill_group(4_194_305).is_ok());
}
