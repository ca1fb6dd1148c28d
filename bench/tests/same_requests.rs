//! The limit does dive's exchange, not a cheaper one: one turn of each client, in every mode,
//! against a mock that logs what it receives, and the two clients' requests compared. The
//! bodies must be the same JSON, field for field, and the headers the same (`host` aside).
//! Only the prompt cache key, which dive derives from its agent's random id, may differ, and
//! only in its value (both send one, of the same length).
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use bench_clients::client::{Client, ClientKind, Provider};
use bench_clients::mock::{self, LoggedRequest, RequestLog};
use bench_clients::problem;
use serde_json::Value;

/// What `kind` sends for one turn of `provider`, streaming or not.
async fn requests_of(kind: ClientKind, provider: Provider, stream: bool) -> Vec<LoggedRequest> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let log = RequestLog::default();
    let server = tokio::spawn(mock::serve_logged(listener, Arc::new(AtomicU64::new(0)), Some(log.clone())));
    let client = Client::new(kind, provider, &base, stream).unwrap();
    let answer = client.turn(&problem::question(3)).await.unwrap();
    assert_eq!(answer, problem::expected_answer(3), "{kind:?} {provider:?} stream={stream}");
    server.abort();
    let requests = log.lock().unwrap().clone();
    assert_eq!(requests.len(), 2, "a turn is two requests");
    requests
}

/// The body as JSON, with the prompt cache key's value set aside (returned on its own).
fn body_of(request: &LoggedRequest) -> (Value, Option<String>) {
    let mut body: Value = serde_json::from_slice(&request.body).unwrap();
    let key = body.as_object_mut().unwrap().remove("prompt_cache_key");
    (body, key.map(|k| k.as_str().unwrap().to_owned()))
}

/// Header lines, lowercased names, sorted, without `host` (it names the mock's port).
fn headers_of(request: &LoggedRequest) -> Vec<String> {
    let mut headers: Vec<String> = request
        .headers
        .iter()
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            let name = name.trim().to_ascii_lowercase();
            (name != "host").then(|| format!("{name}: {}", value.trim()))
        })
        .collect();
    headers.sort();
    headers
}

#[tokio::test]
async fn the_raw_client_sends_what_dive_sends_in_every_mode() {
    for provider in Provider::ALL {
        for stream in [false, true] {
            let raw = requests_of(ClientKind::Raw, provider, stream).await;
            let dive = requests_of(ClientKind::Dive, provider, stream).await;
            for (i, (raw, dive)) in raw.iter().zip(&dive).enumerate() {
                let context = format!("{provider:?}, stream={stream}, request {}", i + 1);
                assert_eq!(raw.path, dive.path, "{context}");
                let (raw_body, raw_key) = body_of(raw);
                let (dive_body, dive_key) = body_of(dive);
                assert_eq!(raw_body, dive_body, "{context}");
                assert_eq!(
                    raw_key.as_ref().map(String::len),
                    dive_key.as_ref().map(String::len),
                    "{context}"
                );
                assert_eq!(raw.body.len(), dive.body.len(), "{context}: the bodies differ in size");
                assert_eq!(headers_of(raw), headers_of(dive), "{context}");
            }
        }
    }
}
