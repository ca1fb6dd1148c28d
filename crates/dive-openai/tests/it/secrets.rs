//! The API key never appears in any `Debug`, error or log output, even when the server
//! echoes it back, and is sent only as the bearer token.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dive_core::{Llm, Message, ModelRequest};
use dive_openai::{ChatCompletions, OpenAi};
use dive_provider::RetryPolicy;
use futures::StreamExt;
use serde_json::json;
use wiremock::matchers::{header, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "sk-proj-SUPERSECRET-0123456789abcdef";

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn echo(status: u16) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({"error": {
        "type": if status == 401 { "invalid_request_error" } else { "rate_limit_exceeded" },
        "code": if status == 401 { "invalid_api_key" } else { "rate_limit_exceeded" },
        "message": format!("Incorrect API key provided: {KEY}.")}}))
}

#[tokio::test]
async fn api_key_never_leaks_into_debug_errors_or_logs() {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = MockServer::start().await;
    let bearer = format!("Bearer {KEY}");
    Mock::given(method("POST"))
        .and(header("authorization", bearer.as_str()))
        .respond_with(echo(429))
        .up_to_n_times(2)
        .mount(&server)
        .await;
    Mock::given(method("POST")).respond_with(echo(401)).mount(&server).await;

    let retry = RetryPolicy::default().with_base_delay(Duration::from_millis(1));
    let responses =
        OpenAi::builder().api_key(KEY).base_url(server.uri()).retry_policy(retry.clone()).build().unwrap();
    let chat =
        ChatCompletions::builder().api_key(KEY).base_url(server.uri()).retry_policy(retry).build().unwrap();
    let mut outputs = vec![
        format!("{responses:?}"),
        format!("{chat:?}"),
        format!("{:?}", OpenAi::builder().api_key(KEY)),
        format!("{}", responses.request_body(&ModelRequest::new(vec![Message::user("hi")]), true).unwrap()),
    ];

    let e = responses.generate(ModelRequest::new(vec![Message::user("hi")])).await.unwrap_err();
    assert_eq!(e.kind, dive_core::LlmErrorKind::Authentication);
    outputs.extend([e.to_string(), format!("{e:?}"), format!("{e:#?}")]);
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        outputs.push(format!("{s} {s:?}"));
        source = s.source();
    }
    let e = match chat.stream(ModelRequest::new(vec![Message::user("hi")])).await {
        Ok(mut s) => s.next().await.unwrap().unwrap_err(),
        Err(e) => e,
    };
    outputs.extend([e.to_string(), format!("{e:?}")]);

    let received = server.received_requests().await.unwrap();
    assert!(received.len() >= 3);
    assert!(received.iter().all(|r| r.headers.get("authorization").unwrap() == bearer.as_str()));
    assert!(received.iter().all(|r| !String::from_utf8_lossy(&r.body).contains(KEY)));

    let logs = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("retrying provider call"), "the retries were logged: {logs}");
    assert!(outputs.iter().any(|o| o.contains("[redacted]")), "the echoed key was redacted: {outputs:?}");
    for text in outputs.iter().chain([&logs]) {
        assert!(!text.contains(KEY), "API key leaked: {text}");
        assert!(!text.contains("SUPERSECRET"), "API key fragment leaked: {text}");
    }
}
