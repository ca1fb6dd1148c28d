//! The real `dive` binary on a real terminal (tmux): Ctrl-C at the prompt hints and a second
//! press leaves, Ctrl-C at a permission prompt cancels the turn, permission answers stay out of
//! the prompt history, and `NO_COLOR` keeps the CLI's colours off.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::{Tmux, dive_line as command};
use common::{MockApi, Reply, dirs};
use serde_json::json;

fn write_call() -> Reply {
    Reply::Tool {
        id: "toolu_1",
        name: "Write",
        input: json!({"file_path": "notes.md", "content": "hello\n"}),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_at_the_prompt_hints_then_leaves_and_answers_stay_out_of_history() {
    let api = MockApi::start(vec![write_call(), Reply::Text("Wrote the notes.")]).await;
    let (sessions, workspace) = dirs();
    let tmux = Tmux::new();
    let line = command(&api, sessions.path(), workspace.path(), &["TERM=xterm-256color", "NO_COLOR=1"]);
    tmux.run(&["new-session", "-d", "-s", "t", "-x", "160", "-y", "50", &line]);
    tmux.wait_for("/help for commands");
    tmux.run(&["send-keys", "-t", "t", "write the notes", "Enter"]);
    tmux.wait_for("Allow?");
    tmux.run(&["send-keys", "-t", "t", "y", "Enter"]);
    tmux.wait_for("out tokens");
    assert_eq!(std::fs::read_to_string(workspace.path().join("notes.md")).unwrap(), "hello\n");
    let styled = tmux.run(&["capture-pane", "-p", "-e", "-t", "t"]);
    assert!(styled.contains("⏺ Write notes.md"), "{styled}");
    assert!(!styled.contains("\x1b[36m") && !styled.contains("\x1b[2m"), "NO_COLOR: no colours:\n{styled:?}");

    tmux.run(&["send-keys", "-t", "t", "C-c"]);
    tmux.wait_for("press Ctrl-C again or Ctrl-D to quit");
    assert!(!tmux.screen().contains("EXITED-"), "one Ctrl-C does not leave");
    tmux.run(&["send-keys", "-t", "t", "C-c"]);
    tmux.wait_for("EXITED-0");

    let history = std::fs::read_to_string(sessions.path().join("history")).unwrap();
    let entries: Vec<&str> = history.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(entries.contains(&"write the notes"), "{history:?}");
    assert!(!entries.contains(&"y"), "the permission answer is not a history entry: {history:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_at_a_permission_prompt_cancels_the_turn() {
    let api = MockApi::start(vec![write_call(), Reply::Text("should not be asked for")]).await;
    let (sessions, workspace) = dirs();
    let tmux = Tmux::new();
    let line = command(&api, sessions.path(), workspace.path(), &["TERM=xterm-256color"]);
    tmux.run(&["new-session", "-d", "-s", "t", "-x", "160", "-y", "50", &line]);
    tmux.wait_for("/help for commands");
    tmux.run(&["send-keys", "-t", "t", "write the notes", "Enter"]);
    tmux.wait_for("Allow?");
    tmux.run(&["send-keys", "-t", "t", "C-c"]);
    // The denied call's result line says "cancelled" first; the turn's end says the rest.
    let screen = tmux.wait_for("kept as incomplete");
    assert!(screen.contains("error: cancelled"), "{screen}");
    assert!(!workspace.path().join("notes.md").exists(), "the write never ran");
    assert_eq!(api.bodies().len(), 1, "the turn ended: the model was not called again");
    tmux.run(&["send-keys", "-t", "t", "/quit", "Enter"]);
    tmux.wait_for("EXITED-0");
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_at_a_question_cancels_the_turn() {
    let question = Reply::Tool {
        id: "toolu_1",
        name: "AskUserQuestion",
        input: json!({"question": "Which colour?", "type": "select", "options": ["red", "blue"]}),
    };
    let api = MockApi::start(vec![question, Reply::Text("should not be asked for")]).await;
    let (sessions, workspace) = dirs();
    let tmux = Tmux::new();
    let line = command(&api, sessions.path(), workspace.path(), &["TERM=xterm-256color"]);
    tmux.run(&["new-session", "-d", "-s", "t", "-x", "160", "-y", "50", &line]);
    tmux.wait_for("/help for commands");
    tmux.run(&["send-keys", "-t", "t", "ask me", "Enter"]);
    tmux.wait_for("2. blue");
    tmux.run(&["send-keys", "-t", "t", "C-c"]);
    tmux.wait_for("kept as incomplete");
    assert_eq!(api.bodies().len(), 1, "the turn ended: the model was not called again");
    tmux.run(&["send-keys", "-t", "t", "/quit", "Enter"]);
    tmux.wait_for("EXITED-0");
}

#[tokio::test(flavor = "multi_thread")]
async fn term_dumb_gets_no_colour() {
    let api = MockApi::start(vec![
        Reply::Tool { id: "toolu_1", name: "Read", input: json!({"file_path": "a.txt"}) },
        Reply::Text("Read it."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    std::fs::write(workspace.path().join("a.txt"), "text\n").unwrap();
    let tmux = Tmux::new();
    let line = command(&api, sessions.path(), workspace.path(), &["TERM=dumb"]);
    tmux.run(&["new-session", "-d", "-s", "t", "-x", "160", "-y", "50", &line]);
    tmux.wait_for("/help for commands");
    tmux.run(&["send-keys", "-t", "t", "read a.txt", "Enter"]);
    tmux.wait_for("out tokens");
    let styled = tmux.run(&["capture-pane", "-p", "-e", "-t", "t"]);
    assert!(styled.contains("⏺ Read a.txt") && styled.contains("Read it."), "{styled}");
    assert!(
        !styled.contains("\x1b[36m") && !styled.contains("\x1b[2m"),
        "TERM=dumb: no colours:\n{styled:?}"
    );
    tmux.run(&["send-keys", "-t", "t", "/quit", "Enter"]);
    tmux.wait_for("EXITED-0");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_servers_question_is_asked_on_the_terminal_and_the_answer_finishes_the_call() {
    // The official Python SDK's server (shared with dive-mcp's tests): `greet_user` asks for a
    // name (input_required on 2026-07-28), then greets.
    let Some(python) = dive_test::interop::python("mcp") else { return };
    let peer = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../dive-mcp/tests/peers/mcp_server.py");
    let api = MockApi::start(vec![
        Reply::Tool { id: "toolu_1", name: "mcp__py__greet_user", input: json!({}) },
        Reply::Text("Greeted."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    // The user's own settings (HOME is the session directory) name the server.
    std::fs::create_dir_all(sessions.path().join(".dive")).unwrap();
    std::fs::write(
        sessions.path().join(".dive/settings.json"),
        json!({"mcpServers": {"py": {"command": python, "args": [peer]}}}).to_string(),
    )
    .unwrap();
    let tmux = Tmux::new();
    let line = command(&api, sessions.path(), workspace.path(), &["TERM=xterm-256color"]);
    tmux.run(&["new-session", "-d", "-s", "t", "-x", "160", "-y", "50", &line]);
    tmux.wait_for("/help for commands");
    tmux.run(&["send-keys", "-t", "t", "greet me", "Enter"]);
    tmux.wait_for("Allow?");
    tmux.run(&["send-keys", "-t", "t", "y", "Enter"]);
    tmux.wait_for("What is your name? (MCP server py)");
    tmux.run(&["send-keys", "-t", "t", "Ada", "Enter"]);
    tmux.wait_for("out tokens");
    let bodies = api.bodies();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    let result = common::request_text(&bodies[1]);
    assert!(result.contains("hello Ada"), "the answer reached the server and its result the model: {result}");
    tmux.run(&["send-keys", "-t", "t", "/quit", "Enter"]);
    tmux.wait_for("EXITED-0");
}
