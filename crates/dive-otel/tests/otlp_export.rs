//! OTLP/HTTP export judged by a real receiver: dive-test's `OtlpReceiver` decodes what we
//! send with the official `opentelemetry-proto` package (pinned in dive-test's interop list)
//! and writes each span as a JSON line; the test checks the trace a real agent run made.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{agent, echo, echo_model};
use dive_otel::opentelemetry::metrics::MeterProvider as _;
use dive_otel::otlp::OtlpConfig;
use dive_otel::semconv::{self, Semconv};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn a_run_exported_over_otlp_http_is_decoded_by_the_receiver() {
    let Some(python) = dive_test::interop::python("opentelemetry-proto") else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("spans.jsonl");
    let receiver = dive_test::otlp::OtlpReceiver::start(&python, &out);

    let mut config = OtlpConfig::new(receiver.url());
    config.service_name = "otel-test".into();
    let guard = config.build().unwrap();
    let tracer = dive_otel::OtelTracer::builder(guard.tracer_provider())
        .semconv(Semconv::Latest)
        .meter(guard.meter_provider().meter(dive_otel::SCOPE))
        .build();
    let model = echo_model();
    agent(&model, tracer, vec![echo()]).run("ping").await.unwrap();
    tokio::task::spawn_blocking(move || guard.shutdown()).await.unwrap().unwrap();

    let spans: Vec<Value> = receiver.spans();
    let text = serde_json::to_string_pretty(&spans).unwrap();
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
