//! A streamed response is read to the end of its body, so its keep-alive connection carries
//! the next request; a server that keeps the body open after `[DONE]` still gets the whole
//! response, after a short grace. Real HTTP/1.1 over loopback: a server that sends each SSE
//! event as its own chunk and the chunked body's end in a later write.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use dive_core::{Llm, Message, ModelRequest};
use dive_openai::ChatCompletions;
use dive_test::provider::read_request;
use futures::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const EVENTS: [&str; 4] = [
    r#"{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}"#,
    r#"{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}"#,
    r#"{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    "[DONE]",
];

/// How the server ends each streamed body after its last event.
#[derive(Clone, Copy)]
enum BodyEnd {
    /// The chunked body's end, in a write of its own after this pause.
    After(Duration),
    /// Never: the connection stays open with the body unfinished.
    Never,
}

/// A keep-alive server answering every request with the stream above; counts connections.
async fn serve(end: BodyEnd) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&connections);
    tokio::spawn(async move {
        loop {
            let (socket, _) = listener.accept().await.unwrap();
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(answer_requests(socket, end));
        }
    });
    (url, connections)
}

async fn answer_requests(mut socket: TcpStream, end: BodyEnd) {
    while read_request(&mut socket).await.is_some() {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        if socket.write_all(head.as_bytes()).await.is_err() {
            return;
        }
        for event in EVENTS {
            let frame = format!("data: {event}\n\n");
            let chunk = format!("{:x}\r\n{frame}\r\n", frame.len());
            if socket.write_all(chunk.as_bytes()).await.is_err() {
                return;
            }
        }
        match end {
            BodyEnd::After(pause) => {
                tokio::time::sleep(pause).await;
                if socket.write_all(b"0\r\n\r\n").await.is_err() {
                    return;
                }
            }
            BodyEnd::Never => {
                // Wait for the client to give up on this connection.
                let _ = socket.read(&mut [0u8; 1]).await;
                return;
            }
        }
    }
}

async fn stream_text(llm: &ChatCompletions) -> String {
    let request = ModelRequest::new(vec![Message::user("Hi")]);
    let mut stream = llm.stream(request).await.unwrap();
    while let Some(event) = stream.next().await {
        event.unwrap();
    }
    assert!(stream.is_complete());
    stream.into_response().text_content()
}

fn provider(url: &str) -> ChatCompletions {
    ChatCompletions::builder().api_key("sk-test").base_url(url).model("gpt-5.5").build().unwrap()
}

#[tokio::test]
async fn a_stream_read_to_its_end_leaves_the_connection_for_the_next_request() {
    let (url, connections) = serve(BodyEnd::After(Duration::from_millis(50))).await;
    let llm = provider(&url);
    for _ in 0..3 {
        assert_eq!(stream_text(&llm).await, "Hello");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 1, "every stream after the first reused the connection");
}

#[tokio::test]
async fn a_body_left_open_after_done_still_gives_the_whole_response() {
    let (url, connections) = serve(BodyEnd::Never).await;
    let llm = provider(&url);
    let started = Instant::now();
    assert_eq!(stream_text(&llm).await, "Hello");
    let waited = started.elapsed();
    assert!(waited >= dive_provider::END_OF_BODY_GRACE, "the body's end was waited for ({waited:?})");
    assert!(waited < dive_provider::END_OF_BODY_GRACE * 10, "and given up on ({waited:?})");
    // The connection was given up: the next request opens another.
    assert_eq!(stream_text(&llm).await, "Hello");
    assert_eq!(connections.load(Ordering::SeqCst), 2);
}
