//! The API key never appears in any `Debug`, error, URL or log output, even when the server
//! echoes it back; it is sent only in the `x-goog-api-key` header.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dive_core::{Llm, Message, ModelRequest};
use dive_google::Gemini;
use dive_provider::RetryPolicy;
use futures::StreamExt;
use serde_json::json;
use wiremock::matchers::{header, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "AIzaSyD-SUPERSECRET-0123456789abcdef";

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

fn echo(status: u16, grpc: &str, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({"error": {"code": status, "status": grpc,
        "message": format!("{message}: {KEY}")}}))
}

#[tokio::test]
async fn api_key_never_leaks_into_debug_errors_urls_or_logs() {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(header("x-goog-api-key", KEY))
        .respond_with(echo(503, "UNAVAILABLE", "The model is overloaded for"))
        .up_to_n_times(2)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(echo(400, "INVALID_ARGUMENT", "API key not valid"))
        .mount(&server)
        .await;

    let llm = Gemini::builder()
        .api_key(KEY)
        .base_url(server.uri())
        .retry_policy(RetryPolicy::default().with_base_delay(Duration::from_millis(1)))
        .build()
        .unwrap();
    let mut outputs = vec![format!("{llm:?}"), format!("{:?}", Gemini::builder().api_key(KEY))];

    let e = llm.generate(ModelRequest::new(vec![Message::user("hi")])).await.unwrap_err();
    assert_eq!(e.kind, dive_core::LlmErrorKind::Authentication);
    outputs.extend([e.to_string(), format!("{e:?}"), format!("{e:#?}")]);
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        outputs.push(format!("{s} {s:?}"));
        source = s.source();
    }
    let e = match llm.stream(ModelRequest::new(vec![Message::user("hi")])).await {
        Ok(mut s) => s.next().await.unwrap().unwrap_err(),
        Err(e) => e,
    };
    outputs.extend([e.to_string(), format!("{e:?}")]);

    let received = server.received_requests().await.unwrap();
    assert!(received.len() >= 3);
    for r in &received {
        assert_eq!(r.headers.get("x-goog-api-key").unwrap(), KEY);
        outputs.push(r.url.to_string());
        outputs.push(String::from_utf8_lossy(&r.body).into_owned());
    }

    let logs = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("retrying provider call"), "the retries were logged: {logs}");
    assert!(outputs.iter().any(|o| o.contains("[redacted]")), "the echoed key was redacted: {outputs:?}");
    for text in outputs.iter().chain([&logs]) {
        assert!(!text.contains(KEY), "API key leaked: {text}");
        assert!(!text.contains("SUPERSECRET"), "API key fragment leaked: {text}");
    }
}
