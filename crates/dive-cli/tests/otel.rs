//! The real `dive` binary with OpenTelemetry on: `OTEL_EXPORTER_OTLP_ENDPOINT` makes `dive -p`
//! export its spans (the agent, each model call, each tool call) and metrics over OTLP/HTTP
//! before it exits, with `OTEL_SERVICE_NAME` as the service and the headers sent but never
//! printed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{MockApi, Reply, dirs, stderr_of, stdout_of};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[tokio::test(flavor = "multi_thread")]
async fn print_mode_exports_its_spans_and_metrics_over_otlp() {
    let collector = MockServer::start().await;
    for endpoint in ["/v1/traces", "/v1/metrics"] {
        Mock::given(method("POST"))
            .and(path(endpoint))
            .respond_with(ResponseTemplate::new(200))
            .mount(&collector)
            .await;
    }
    let api = MockApi::start(vec![
        Reply::Tool { id: "toolu_1", name: "Read", input: json!({"file_path": "notes.txt"}) },
        Reply::Text("Read it."),
    ])
    .await;
    let (sessions, workspace) = dirs();
    std::fs::write(workspace.path().join("notes.txt"), "hello\n").unwrap();
    let out = api
        .dive(sessions.path(), workspace.path())
        .args(["-p", "read the notes"])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", collector.uri())
        .env("OTEL_EXPORTER_OTLP_HEADERS", "x-collector-key=otel-secret-value")
        .env("OTEL_SERVICE_NAME", "dive-under-test")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(stdout_of(&out), "Read it.\n");
    let received = collector.received_requests().await.unwrap();
    let traces: Vec<&wiremock::Request> = received.iter().filter(|r| r.url.path() == "/v1/traces").collect();
    assert!(!traces.is_empty(), "no spans were exported before dive exited");
    let body: Vec<u8> = traces.iter().flat_map(|r| r.body.clone()).collect();
    for name in ["invoke_agent dive", "chat claude-sonnet-5-5", "execute_tool Read", "dive-under-test"] {
        assert!(contains(&body, name), "no {name:?} in the exported spans");
    }
    assert!(
        traces.iter().all(|r| r.headers.get("x-collector-key").is_some_and(|v| v == "otel-secret-value")),
        "the configured headers go with every export"
    );
    assert!(received.iter().any(|r| r.url.path() == "/v1/metrics"), "the metrics were flushed at exit");
    assert!(!stderr_of(&out).contains("otel-secret-value"), "a header value is never printed");
}
