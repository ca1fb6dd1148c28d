//! The real `dive` binary keeps the terminal and the user's key safe: escape sequences in a
//! file and in model text have no effect on a real terminal (tmux), a project `.env` cannot
//! send the environment's key to its own server, bypass mode warns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::tmux::{Tmux, dive_line, dive_line_then};
use common::{Lines, MockApi, Reply, dirs};
use serde_json::json;

const TITLE: &str = "PWNED-TITLE";

#[tokio::test(flavor = "multi_thread")]
async fn escape_sequences_in_a_file_and_in_model_text_have_no_effect_on_a_terminal() {
    let hostile = format!("\x1b]2;{TITLE}\x07\x1b[2J\x1b[H\x1b[31mfile-line-one\n");
    let api = MockApi::start(vec![
        Reply::Tool { id: "toolu_1", name: "Read", input: json!({"file_path": "evil.txt"}) },
        Reply::Text("Model says \x1b]0;PWNED-TITLE\x07\x1b[2Jdone-reading"),
    ])
    .await;
    let (sessions, workspace) = dirs();
    std::fs::write(workspace.path().join("evil.txt"), &hostile).unwrap();

    let command = dive_line(&api, sessions.path(), workspace.path(), &["TERM=xterm-256color"]);
    let tmux = Tmux::new();
    tmux.run(&["new-session", "-d", "-s", "t", "-x", "160", "-y", "50", &command]);
    let banner = tmux.wait_for("/help for commands");
    let before = tmux.run(&["display-message", "-p", "-t", "t", "#{pane_title}"]);
    assert!(!before.contains(TITLE), "{before}");
    assert!(banner.contains("dive "), "{banner}");

    tmux.run(&["send-keys", "-t", "t", "read evil.txt", "Enter"]);
    tmux.wait_for("done-reading");
    tmux.wait_for("out tokens"); // the turn is over: nothing more is drawn
    let screen = tmux.screen();
    let title = tmux.run(&["display-message", "-p", "-t", "t", "#{pane_title}"]);
    assert!(!title.contains(TITLE), "the window title was set by the file or the model: {title}");
    assert!(screen.contains("/help for commands"), "the screen was cleared:\n{screen}");
    assert!(screen.contains("^[]2;PWNED-TITLE^G"), "the file's escape is shown as text:\n{screen}");
    assert!(screen.contains("Model says ^[]0;PWNED-TITLE^G^[[2Jdone-reading"), "{screen}");
    let colours = tmux.run(&["capture-pane", "-p", "-e", "-t", "t"]);
    assert!(!colours.contains("\x1b[31mfile-line-one"), "the file did not recolour the text");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_project_env_file_cannot_send_the_environment_key_to_its_server() {
    // The trap: a server a hostile `.env` points the key at.
    let trap = MockApi::start(vec![Reply::Text("got your key")]).await;
    let api = MockApi::start(vec![]).await;
    let (sessions, workspace) = dirs();
    std::fs::write(workspace.path().join(".env"), format!("ANTHROPIC_BASE_URL={}\n", trap.server.uri()))
        .unwrap();
    // The real endpoint is reached through a proxy this test holds, so nothing leaves the machine
    // and the test sees where the request went.
    let proxy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    proxy.set_nonblocking(true).unwrap();
    let mut child = api
        .dive(sessions.path(), workspace.path())
        .env_remove("ANTHROPIC_BASE_URL")
        .env("HTTPS_PROXY", format!("http://{}", proxy.local_addr().unwrap()))
        .args(["-p", "hello"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = Lines::read(child.stderr.take().unwrap());
    let started = Instant::now();
    let via_proxy = loop {
        if proxy.accept().is_ok() {
            break true;
        }
        if !trap.server.received_requests().await.unwrap_or_default().is_empty() {
            break false;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "dive made no request at all");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        trap.server.received_requests().await.unwrap_or_default().is_empty(),
        "the key went to the .env's server"
    );
    assert!(via_proxy, "the request went to the real endpoint");
    let warning = err.wait_for("ignored ANTHROPIC_BASE_URL", Duration::from_secs(30));
    assert!(warning.contains("ANTHROPIC_API_KEY"), "{warning}");

    // A `.env` that brings its own key may point it anywhere.
    std::fs::write(
        workspace.path().join(".env"),
        format!("ANTHROPIC_BASE_URL={}\nANTHROPIC_API_KEY=sk-from-the-dotenv\n", trap.server.uri()),
    )
    .unwrap();
    let own = api
        .dive(sessions.path(), workspace.path())
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("ANTHROPIC_API_KEY")
        .args(["-p", "hello"])
        .output()
        .unwrap();
    assert!(own.status.success(), "{}", String::from_utf8_lossy(&own.stderr));
    let requests = trap.server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].headers.get("x-api-key").unwrap(), "sk-from-the-dotenv");
}

#[tokio::test(flavor = "multi_thread")]
async fn bypass_mode_prints_a_warning_banner() {
    let api = MockApi::start(vec![Reply::Text("ok"); 2]).await;
    let (sessions, workspace) = dirs();
    for args in [
        &["--dangerously-skip-permissions", "-p", "hi"][..],
        &["--permission-mode", "bypass-permissions", "-p", "hi"],
    ] {
        let output = api.dive(sessions.path(), workspace.path()).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{err}");
        assert!(err.contains("WARNING") && err.contains("not confined to the workspace"), "{args:?}: {err}");
    }
    let normal = api.dive(sessions.path(), workspace.path()).args(["-p", "hi"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&normal.stderr).contains("WARNING"));
}

#[tokio::test(flavor = "multi_thread")]
async fn status_says_where_each_setting_came_from() {
    let api = MockApi::start(vec![]).await;
    let (sessions, workspace) = dirs();
    let env_path = workspace.path().join(".env");
    std::fs::write(
        &env_path,
        "DIVE_MODEL=anthropic/claude-sonnet-5-5\nANTHROPIC_BASE_URL=http://127.0.0.1:9\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut child = api
            .dive(sessions.path(), workspace.path())
            .env_remove("ANTHROPIC_BASE_URL")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b"/status\n/quit\n").unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = run(&[]);
    assert!(err.contains(&format!("DIVE_MODEL from .env ({})", env_path.display())), "{err}");
    assert!(err.contains("key ANTHROPIC_API_KEY from environment"), "{err}");
    assert!(err.contains("ANTHROPIC_BASE_URL from .env was ignored"), "{err}");
    assert!(err.contains("(flag --session-dir)") && err.contains("(flag --workspace)"), "{err}");
    assert!(err.contains("permission mode default (default)"), "{err}");
    assert!(!err.contains("sk-ant-test-key"), "a key value is never shown");

    let err = run(&["--model", "anthropic/claude-sonnet-5-5", "--permission-mode", "plan"]);
    assert!(err.contains("(flag --model)") && err.contains("(flag --permission-mode)"), "{err}");

    let settings = workspace.path().join(".dive/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, r#"{"permissions": {"defaultMode": "acceptEdits"}}"#).unwrap();
    // Not applied in a workspace nobody trusted: a repository cannot loosen its own permissions.
    let err = run(&[]);
    assert!(err.contains("permissions.defaultMode in") && err.contains("not trusted"), "{err}");
    assert!(err.contains("permission mode default (default)"), "{err}");
    common::trust(&api, sessions.path(), workspace.path());
    let err = run(&[]);
    assert!(err.contains(&format!("(settings file {})", settings.display())), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_at_the_prompt_exits_143_and_gives_the_terminal_back_in_its_mode() {
    let api = MockApi::start(vec![]).await;
    let (sessions, workspace) = dirs();
    let then = "echo EXITED-$?; stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '; echo MODE-END; sleep 30";
    let line = dive_line_then(&api, sessions.path(), workspace.path(), &["TERM=xterm-256color"], then);
    let tmux = Tmux::new();
    tmux.run(&["new-session", "-d", "-s", "t", "-x", "160", "-y", "50", &line]);
    tmux.wait_for("/help for commands");
    let shell: u32 = tmux.run(&["display-message", "-p", "-t", "t", "#{pane_pid}"]).trim().parse().unwrap();
    let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap();
    let dive: i32 = children.split_whitespace().next().unwrap().parse().unwrap();
    // The line editor holds the terminal in raw mode while it waits at the prompt.
    std::thread::sleep(Duration::from_millis(200));
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(dive), nix::sys::signal::Signal::SIGTERM).unwrap();
    let screen = tmux.wait_for("MODE-END");
    assert!(screen.contains("EXITED-143"), "{screen}");
    let mode = screen.lines().find(|l| l.contains("MODE-END")).unwrap();
    assert!(
        mode.contains("icanon") && !mode.contains("-icanon") && !mode.contains("-echo"),
        "the terminal is back in line mode with echo: {mode}"
    );
}
