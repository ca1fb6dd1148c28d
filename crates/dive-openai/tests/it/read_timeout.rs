//! `HttpOptions::read_timeout`, applied by the provider itself: a server that stops sending in
//! the middle of a stream, of a whole body or before its response head fails the call with a
//! typed error soon after the limit, never hangs. Real HTTP over loopback.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use dive_core::{Llm, LlmErrorKind, Message, ModelRequest};
use dive_openai::ChatCompletions;
use dive_provider::{HttpOptions, RetryPolicy};
use dive_test::provider::{MisbehavingServer, Reply};
use futures::StreamExt;
use tokio::io::AsyncReadExt;

const LIMIT: Duration = Duration::from_millis(400);

fn provider(url: &str) -> ChatCompletions {
    ChatCompletions::builder()
        .api_key("sk-test")
        .base_url(url)
        .model("gpt-5.5")
        .http_options(HttpOptions::default().with_read_timeout(LIMIT))
        .retry_policy(RetryPolicy::none())
        .build()
        .unwrap()
}

fn request() -> ModelRequest {
    ModelRequest::new(vec![Message::user("Hi")])
}

/// `call`, which must end (fail) well within ten seconds.
async fn ends<T>(call: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), call).await.expect("the call never ended")
}

/// Whether a cause of `error` is a timed-out read (`io::ErrorKind::TimedOut`), as callers
/// (the CLI's "went silent" message) look for it.
fn caused_by_timeout(error: &dive_core::LlmError) -> bool {
    std::iter::successors(std::error::Error::source(error), |e| e.source()).any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
    })
}

/// The limit was waited for, and not much more (the check runs every quarter of it).
fn assert_waited(started: Instant) {
    let waited = started.elapsed();
    assert!(waited >= LIMIT, "failed after {waited:?}, before the limit");
    assert!(waited < LIMIT * 4, "failed after {waited:?}, long after the limit");
}

#[tokio::test]
async fn a_stream_that_goes_silent_after_its_first_event_is_interrupted() {
    let first = br#"data: {"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}"#;
    let frame = [&first[..], b"\n\n"].concat();
    let server = MisbehavingServer::start(vec![Reply::Hold {
        content_type: "text/event-stream".into(),
        frames: vec![frame],
    }])
    .await;
    let llm = provider(server.url());
    let mut stream = llm.stream(request()).await.unwrap();
    let started = Instant::now();
    let mut error = None;
    while let Some(event) = ends(stream.next()).await {
        if let Err(e) = event {
            error = Some(e);
        }
    }
    assert_waited(started);
    let error = error.expect("the silent stream fails");
    assert_eq!(error.kind, LlmErrorKind::StreamInterrupted, "{error}");
    assert!(error.to_string().contains("no stream event for"), "{error}");
    assert!(caused_by_timeout(&error), "{error:?}");
    assert_eq!(stream.into_partial_response(true).text_content(), "Hel", "what arrived is kept");
}

#[tokio::test]
async fn a_whole_body_that_stops_halfway_times_out() {
    let server = MisbehavingServer::start(vec![Reply::Hold {
        content_type: "application/json".into(),
        frames: vec![br#"{"id":"c1","object":"chat.completion","choices":[{"#.to_vec()],
    }])
    .await;
    let started = Instant::now();
    let error = ends(provider(server.url()).generate(request())).await.unwrap_err();
    assert_waited(started);
    assert_eq!(error.kind, LlmErrorKind::Timeout, "{error}");
    assert!(error.to_string().contains("no body data for"), "{error}");
    assert!(caused_by_timeout(&error), "{error:?}");
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        // Reads the request and answers nothing, keeping the connection open.
        let mut buffer = [0u8; 4096];
        while socket.read(&mut buffer).await.is_ok_and(|n| n > 0) {}
    });
    let started = Instant::now();
    let error = ends(provider(&url).generate(request())).await.unwrap_err();
    assert_waited(started);
    assert_eq!(error.kind, LlmErrorKind::Timeout, "{error}");
    assert!(error.to_string().contains("no response for"), "{error}");
    assert!(caused_by_timeout(&error), "{error:?}");
}
