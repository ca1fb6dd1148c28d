//! OTLP/HTTP export judged by a real receiver: `tests/peers/otlp_receiver.py` decodes what we
//! send with the official `opentelemetry-proto` package (pinned in dive-test's interop list)
//! and writes each span as a JSON line; the test checks the trace a real agent run made.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use common::{agent, echo, echo_model};
use dive_otel::opentelemetry::metrics::MeterProvider as _;
use dive_otel::otlp::OtlpConfig;
use dive_otel::semconv::{self, Semconv};
use serde_json::Value;

/// The receiver process, killed when the test ends however it ends.
struct Receiver(Child);

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_receiver(python: &str, out: &std::path::Path) -> (Receiver, String) {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers/otlp_receiver.py");
    let mut child = Command::new(python)
        .arg(script)
        .args(["--port", "0", "--out"])
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the receiver starts");
    let mut first = String::new();
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    lines.read_line(&mut first).unwrap();
    // Keep reading what the receiver prints for each export, so its prints never hit a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
    let url = first.trim().rsplit(' ').next().unwrap_or_default().to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "the receiver said {first:?}");
    (Receiver(child), url)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_exported_over_otlp_http_is_decoded_by_the_receiver() {
    let Some(python) = dive_test::interop::python("opentelemetry-proto") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("spans.jsonl");
    let (_receiver, url) = start_receiver(&python, &out);

    let mut config = OtlpConfig::new(&url);
    config.service_name = "otel-test".into();
    let guard = config.build().unwrap();
    let tracer = dive_otel::OtelTracer::builder(guard.tracer_provider())
        .semconv(Semconv::Latest)
        .meter(guard.meter_provider().meter(dive_otel::SCOPE))
        .build();
    let model = echo_model();
    agent(&model, tracer, vec![echo()]).run("ping").await.unwrap();
    tokio::task::spawn_blocking(move || guard.shutdown()).await.unwrap().unwrap();

    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let spans: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let by_name = |name: &str| -> &Value {
        let found: Vec<_> = spans.iter().filter(|s| s["name"] == name).collect();
        assert_eq!(found.len(), 1, "one {name:?} in {text}");
        found[0]
    };
    let run = by_name("invoke_agent helper");
    let tool = by_name("execute_tool echo");
    let chats: Vec<_> =
        spans.iter().filter(|s| s["name"].as_str().is_some_and(|n| n.starts_with("chat"))).collect();
    assert_eq!(chats.len(), 2, "{text}");
    for s in &spans {
        assert_eq!(s["service"], "otel-test");
        assert_eq!(s["scope"], "dive");
        assert_eq!(s["trace_id"], run["trace_id"], "one trace: {text}");
    }
    for child in chats.iter().copied().chain([tool]) {
        assert_eq!(child["parent_span_id"], run["span_id"], "{} under invoke_agent", child["name"]);
    }
    assert_eq!(tool["attributes"][semconv::TOOL_CALL_ID], "call_1");
    assert_eq!(run["attributes"][semconv::AGENT_NAME], "helper");
    assert_eq!(run["attributes"][semconv::DIVE_TURN_STATUS], "completed");
    let first = chats.iter().find(|c| c["attributes"][semconv::RESPONSE_ID] == "resp_1").unwrap();
    assert_eq!(first["attributes"][semconv::PROVIDER_NAME], "test");
    // protobuf int64 values arrive as ints in the receiver's JSON
    assert_eq!(first["attributes"][semconv::USAGE_CACHE_READ_INPUT_TOKENS], 30);
    assert_eq!(first["attributes"][semconv::USAGE_INPUT_TOKENS], 45);
    assert_eq!(first["kind"], 3, "chat is a CLIENT span (SPAN_KIND_CLIENT = 3)");
}
