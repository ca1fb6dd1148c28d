//! A mock Anthropic Messages API for end-to-end tests of the `dive` binary: it answers each
//! request with the next scripted SSE stream.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod stall;
pub mod tmux;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// One scripted model reply.
#[derive(Clone)]
pub enum Reply {
    Text(&'static str),
    Tool {
        id: &'static str,
        name: &'static str,
        input: Value,
    },
    /// The answer of an on-demand compaction request: one signed `compaction` block holding
    /// this summary (non-streamed only, as compaction requests are).
    Compaction(&'static str),
    /// An HTTP error: the status, the Messages API error body, and a `retry-after` header.
    Status {
        status: u16,
        body: &'static str,
        retry_after: Option<&'static str>,
    },
}

/// The whole (non-streamed) Messages API response of a reply, for requests without
/// `"stream": true`.
pub fn message_json(reply: &Reply) -> Value {
    let (content, stop) = match reply {
        Reply::Text(text) => (json!([{"type": "text", "text": text}]), "end_turn"),
        Reply::Tool { id, name, input } => {
            (json!([{"type": "tool_use", "id": id, "name": name, "input": input}]), "tool_use")
        }
        Reply::Compaction(summary) => (
            json!([{"type": "compaction", "content": summary, "encrypted_content": "opaque-mock-metadata",
                "signature": "mock-signature"}]),
            "compaction",
        ),
        Reply::Status { .. } => (json!([]), "end_turn"),
    };
    json!({"id": "msg_mock", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
        "content": content, "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 12, "output_tokens": 7}})
}

fn event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// The SSE body of a reply, as the Messages API streams it.
pub fn sse(reply: &Reply) -> String {
    let mut body = event(
        "message_start",
        &json!({"type": "message_start", "message": {"id": "msg_mock", "type": "message", "role": "assistant",
            "model": "claude-sonnet-5-5", "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 12, "output_tokens": 1}}}),
    );
    let stop = match reply {
        Reply::Text(text) => {
            body += &event(
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            );
            body += &event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
            );
            "end_turn"
        }
        Reply::Tool { id, name, input } => {
            body += &event(
                "content_block_start",
                &json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
            );
            body += &event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
            );
            "tool_use"
        }
        Reply::Status { .. } | Reply::Compaction(_) => "end_turn",
    };
    body += &event("content_block_stop", &json!({"type": "content_block_stop", "index": 0}));
    body += &event(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 7}}),
    );
    body += &event("message_stop", &json!({"type": "message_stop"}));
    body
}

/// Runs in the mock before it answers request number `n` (from 0): a test's way to change
/// the world while the model "thinks" (fill a disk, …).
pub type Hook = Box<dyn Fn(usize) + Send + Sync>;

struct Script {
    replies: Vec<Reply>,
    next: AtomicUsize,
    bodies: Mutex<Vec<Value>>,
    hook: Option<Hook>,
}

struct Responder(std::sync::Arc<Script>);

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body = serde_json::from_slice::<Value>(&request.body).unwrap_or(Value::Null);
        let streamed = body["stream"] == json!(true);
        self.0.bodies.lock().unwrap().push(body);
        let i = self.0.next.fetch_add(1, Ordering::SeqCst);
        if let Some(hook) = &self.0.hook {
            hook(i);
        }
        let reply = self.0.replies.get(i).cloned().unwrap_or(Reply::Text("(script exhausted)"));
        match reply {
            Reply::Status { status, body, retry_after } => {
                let mut template = ResponseTemplate::new(status)
                    .insert_header("content-type", "application/json")
                    .set_body_string(body);
                if let Some(after) = retry_after {
                    template = template.insert_header("retry-after", after);
                }
                template
            }
            reply if !streamed => ResponseTemplate::new(200).set_body_json(message_json(&reply)),
            reply => ResponseTemplate::new(200)
                .insert_header("content-type", "text/event-stream")
                .set_body_string(sse(&reply)),
        }
    }
}

/// A running mock and what it received.
pub struct MockApi {
    pub server: MockServer,
    script: std::sync::Arc<Script>,
}

impl MockApi {
    /// Starts a mock that plays `replies` in order.
    pub async fn start(replies: Vec<Reply>) -> Self {
        Self::start_with_hook(replies, None).await
    }

    /// Like [`start`](Self::start), running `hook` before each answer.
    pub async fn start_with_hook(replies: Vec<Reply>, hook: Option<Hook>) -> Self {
        let server = MockServer::start().await;
        let script = std::sync::Arc::new(Script {
            replies,
            next: AtomicUsize::new(0),
            bodies: Mutex::default(),
            hook,
        });
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(Responder(script.clone()))
            .mount(&server)
            .await;
        Self { server, script }
    }

    /// The request bodies received so far.
    pub fn bodies(&self) -> Vec<Value> {
        self.script.bodies.lock().unwrap().clone()
    }

    /// A `dive` command pointed at this mock, with sessions in `session_dir` and the workspace
    /// `workspace`.
    pub fn dive(&self, session_dir: &std::path::Path, workspace: &std::path::Path) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_dive"));
        cmd.env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", session_dir)
            .env("ANTHROPIC_API_KEY", "sk-ant-test-key")
            .env("ANTHROPIC_BASE_URL", self.server.uri())
            .arg("--session-dir")
            .arg(session_dir)
            .arg("--workspace")
            .arg(workspace)
            .current_dir(workspace);
        cmd
    }
}

/// All user-visible text of a request body's messages.
pub fn request_text(body: &Value) -> String {
    body["messages"].to_string()
}

/// A child's stderr read line by line on a thread, so a test can wait for a line.
pub struct Lines {
    rx: std::sync::mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Lines {
    /// Starts reading `stream`.
    pub fn read(stream: impl std::io::Read + Send + 'static) -> Self {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self { rx, seen: Vec::new() }
    }

    /// Waits (up to `timeout`) for a line containing `needle`; panics with what was read.
    pub fn wait_for(&mut self, needle: &str, timeout: std::time::Duration) -> String {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(line) = self.seen.iter().find(|l| l.contains(needle)) {
                return line.clone();
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(_) => panic!("no line with {needle:?} within {timeout:?}; read: {:#?}", self.seen),
            }
        }
    }

    /// Everything read so far, plus what arrives until the stream ends.
    pub fn rest(mut self) -> String {
        while let Ok(line) = self.rx.recv_timeout(std::time::Duration::from_secs(10)) {
            self.seen.push(line);
        }
        self.seen.join("\n")
    }
}

/// The first session id `dive sessions list` shows.
pub fn first_session(api: &MockApi, sessions: &std::path::Path, workspace: &std::path::Path) -> String {
    let list = api.dive(sessions, workspace).args(["sessions", "list"]).output().unwrap();
    let id = String::from_utf8_lossy(&list.stdout).split_whitespace().next().unwrap_or_default().to_owned();
    assert!(id.starts_with("session_"), "{}", String::from_utf8_lossy(&list.stdout));
    id
}

/// `dive trust` for `workspace`: its own settings, skills, agents and MCP servers apply.
pub fn trust(api: &MockApi, sessions: &std::path::Path, workspace: &std::path::Path) {
    let out = api.dive(sessions, workspace).arg("trust").output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stdout_of(&out).contains("trusted"), "{}", stdout_of(&out));
}

/// A fresh session directory and a fresh workspace.
pub fn dirs() -> (tempfile::TempDir, tempfile::TempDir) {
    (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())
}

/// What a finished `dive` wrote to stdout.
pub fn stdout_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What a finished `dive` wrote to stderr.
pub fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
