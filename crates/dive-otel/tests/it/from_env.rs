//! The `from_env` constructors, each run in a child process with a chosen environment
//! (`dive_test::child`): the semconv opt-in and content capture, and `otlp::init_from_env`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;
use dive_otel::otlp;
use dive_otel::semconv;

const VARS: &[&str] = &[
    "OTEL_SEMCONV_STABILITY_OPT_IN",
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_SDK_DISABLED",
];

#[tokio::test]
async fn the_environment_opts_into_the_latest_names_and_content() {
    const NAME: &str = "the_environment_opts_into_the_latest_names_and_content";
    if !dive_test::child::is_child(NAME) {
        return dive_test::child::rerun_with_env(
            NAME,
            VARS,
            &[
                ("OTEL_SEMCONV_STABILITY_OPT_IN", "http,gen_ai_latest_experimental"),
                ("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true"),
            ],
        );
    }
    let sdk = Sdk::new();
    let model = echo_model();
    agent(&model, sdk.tracer().from_env().build(), vec![echo()]).run("ping").await.unwrap();
    let spans = sdk.finished();
    let chat = spans.iter().find(|s| attr_str(s, semconv::RESPONSE_ID).as_deref() == Some("resp_1")).unwrap();
    assert_eq!(attr_str(chat, semconv::PROVIDER_NAME).as_deref(), Some("test"));
    assert!(attr_str(chat, semconv::INPUT_MESSAGES).is_some_and(|m| m.contains("ping")));
    let tool = one(&spans, "execute_tool echo");
    assert_eq!(attr_str(tool, semconv::TOOL_CALL_ARGUMENTS).as_deref(), Some(r#"{"text":"pong"}"#));
}

#[tokio::test]
async fn an_empty_environment_keeps_the_defaults() {
    const NAME: &str = "an_empty_environment_keeps_the_defaults";
    if !dive_test::child::is_child(NAME) {
        return dive_test::child::rerun_with_env(NAME, VARS, &[]);
    }
    let sdk = Sdk::new();
    let model = echo_model();
    agent(&model, sdk.tracer().from_env().build(), vec![echo()]).run("ping").await.unwrap();
    let spans = sdk.finished();
    let chat = spans.iter().find(|s| attr_str(s, semconv::RESPONSE_ID).as_deref() == Some("resp_1")).unwrap();
    assert_eq!(attr_str(chat, semconv::SYSTEM).as_deref(), Some("test"));
    assert!(attr(chat, semconv::INPUT_MESSAGES).is_none());
    assert!(otlp::init_from_env().unwrap().is_none(), "no endpoint, no exporter");
}

#[test]
fn init_from_env_builds_on_an_endpoint_and_never_shows_header_values() {
    const NAME: &str = "init_from_env_builds_on_an_endpoint_and_never_shows_header_values";
    if !dive_test::child::is_child(NAME) {
        return dive_test::child::rerun_with_env(
            NAME,
            VARS,
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
                ("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20sup3rsecret"),
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "200"),
            ],
        );
    }
    let config = otlp::OtlpConfig::from_env().unwrap().unwrap();
    assert_eq!(config.headers["authorization"].expose(), "Bearer sup3rsecret");
    assert!(!format!("{config:?}").contains("sup3rsecret"));
    let guard = otlp::init_from_env().unwrap().expect("an endpoint is set");
    assert!(!format!("{guard:?}").contains("sup3rsecret"));
    // Nothing listens on port 9: the flush fails, and the error does not carry the header.
    let _ = guard.tracer();
    if let Err(e) = guard.shutdown() {
        assert!(!e.to_string().contains("sup3rsecret"), "{e}");
    }
}
