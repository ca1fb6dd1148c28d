//! The real `dive` binary with OpenTelemetry on: `OTEL_EXPORTER_OTLP_ENDPOINT` makes `dive -p`
//! export its spans over OTLP/HTTP before it exits, to the receiver peer that decodes the
//! protobuf with the official `opentelemetry-proto` package. One trace: `invoke_agent dive`
//! parents each `chat` and the `execute_tool Agent`, under which the subagent's own
//! `invoke_agent`, `chat` and `execute_tool Read` spans sit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{MockApi, Reply, dirs, stderr_of, stdout_of};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_exports_one_trace_with_the_subagent_under_its_agent_call() {
    let Some(python) = dive_test::interop::python("opentelemetry-proto") else { return };
    let (sessions, workspace) = dirs();
    let receiver = dive_test::otlp::OtlpReceiver::start(&python, &sessions.path().join("spans.jsonl"));
    let api = MockApi::start(vec![
        // The parent delegates…
        Reply::Tool {
            id: "toolu_1",
            name: "Agent",
            input: json!({"description": "read the notes", "prompt": "What do the notes say?", "subagent_type": "Explore"}),
        },
        // …the subagent reads a file and answers…
        Reply::Tool { id: "toolu_2", name: "Read", input: json!({"file_path": "notes.txt"}) },
        Reply::Text("They say hello."),
        // …and the parent answers.
        Reply::Text("The notes say hello."),
    ])
    .await;
    std::fs::write(workspace.path().join("notes.txt"), "hello\n").unwrap();
    let out = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "what do the notes say?"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url())
        .env("OTEL_EXPORTER_OTLP_HEADERS", "x-collector-key=otel-secret-value")
        .env("OTEL_SERVICE_NAME", "dive-under-test")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "The notes say hello.\n");
    assert!(!stderr_of(&out).contains("otel-secret-value"), "a header value is never printed");

    let spans = receiver.spans();
    let text = serde_json::to_string_pretty(&spans).unwrap();
    let named = |name: &str| -> Vec<&Value> { spans.iter().filter(|s| s["name"] == name).collect() };
    let one = |name: &str| -> &Value {
        let found = named(name);
        assert_eq!(found.len(), 1, "one {name:?} in {text}");
        found[0]
    };
    let parent = one("invoke_agent dive");
    let agent_call = one("execute_tool Agent");
    let subagent = one("invoke_agent Explore");
    let read = one("execute_tool Read");
    let chats = named("chat claude-sonnet-5-5");
    assert_eq!(chats.len(), 4, "two calls of the parent and two of the subagent: {text}");
    // The provider's endpoint (the mock's address) is on every chat span from its start.
    let mock = api.server.address();
    for chat in &chats {
        assert_eq!(chat["attributes"]["server.address"], mock.ip().to_string(), "{text}");
        assert_eq!(chat["attributes"]["server.port"], i64::from(mock.port()), "{text}");
    }
    for span in &spans {
        assert_eq!(span["trace_id"], parent["trace_id"], "one trace: {text}");
        assert_eq!(span["service"], "dive-under-test");
    }
    assert_eq!(agent_call["parent_span_id"], parent["span_id"], "the Agent call is the parent's");
    assert_eq!(subagent["parent_span_id"], agent_call["span_id"], "the subagent runs under the Agent call");
    assert_eq!(read["parent_span_id"], subagent["span_id"], "the subagent's Read is its own");
    let under = |owner: &Value| chats.iter().filter(|c| c["parent_span_id"] == owner["span_id"]).count();
    assert_eq!((under(parent), under(subagent)), (2, 2), "{text}");
}
