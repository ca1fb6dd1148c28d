//! The limit: a hand-written reqwest + serde client doing the same turn (typed request and
//! response structs, the tool run in place), with the reqwest configuration dive uses
//! (rustls with ring, HTTP/1.1 on a plain-HTTP loopback).

pub mod chat;
pub mod messages;
pub mod sse;

use std::sync::Arc;

use futures::StreamExt;
use serde::{Deserialize, Serialize};

use self::sse::SseReader;

use crate::BenchError;

/// The API key both clients send (the mock accepts any).
pub const API_KEY: &str = "bench-key";

/// Builds the reqwest client: rustls with the ring provider, as dive's provider plumbing does.
///
/// # Errors
/// When TLS or the client cannot be set up.
pub fn http_client() -> Result<reqwest::Client, BenchError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| BenchError::Protocol(format!("TLS versions: {e}")))?
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_no_client_auth();
    Ok(reqwest::Client::builder().tls_backend_preconfigured(tls).build()?)
}

/// Where a raw client posts: the client, the endpoint's URL, the model and whether calls
/// stream.
#[derive(Debug, Clone)]
pub struct Endpoint {
    http: reqwest::Client,
    url: String,
    model: String,
    stream: bool,
}

impl Endpoint {
    /// An endpoint at `url`.
    #[must_use]
    pub fn new(http: reqwest::Client, url: String, model: &str, stream: bool) -> Self {
        Self { http, url, model: model.to_owned(), stream }
    }

    /// The model name sent.
    #[must_use]
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Whether calls stream.
    #[must_use]
    pub fn stream(&self) -> bool {
        self.stream
    }

    /// A JSON POST of `body` to the endpoint, with `headers`; the response, if its status
    /// is a success.
    ///
    /// # Errors
    /// HTTP failures and error statuses.
    pub async fn post(
        &self,
        body: Vec<u8>,
        headers: &[(&str, &str)],
    ) -> Result<reqwest::Response, BenchError> {
        let mut request = self
            .http
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::USER_AGENT, USER_AGENT)
            .body(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        Ok(request.send().await?.error_for_status()?)
    }
}

/// Reads an SSE response to its end, handing each event's `data` to `on_data`.
///
/// # Errors
/// HTTP failures while reading, or what `on_data` returns.
pub async fn read_events(
    response: reqwest::Response,
    mut on_data: impl FnMut(&[u8]) -> Result<(), BenchError>,
) -> Result<(), BenchError> {
    let mut sse = SseReader::default();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        sse.feed(&chunk?, &mut on_data)?;
    }
    Ok(())
}

/// The `add` tool's input, as the model sends it.
#[derive(Debug, Deserialize)]
pub struct AddArgs {
    /// The first number.
    pub a: i64,
    /// The second number.
    pub b: i64,
}

impl AddArgs {
    /// Runs the tool: the sum, as the tool result text.
    #[must_use]
    pub fn run(&self) -> String {
        (self.a + self.b).to_string()
    }
}

/// The `add` tool's JSON schema, typed: the schema dive derives from its `AddInput` (the
/// descriptions are that type's doc comments), field for field and in dive's key order, so
/// both clients send the same request.
#[derive(Debug, Serialize)]
pub struct AddSchema {
    description: &'static str,
    properties: AddProperties,
    required: [&'static str; 2],
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Debug, Serialize)]
struct AddProperties {
    a: Integer,
    b: Integer,
}

#[derive(Debug, Serialize)]
struct Integer {
    description: &'static str,
    format: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The schema of `{a: integer, b: integer}`, both required.
pub const ADD_SCHEMA: AddSchema = AddSchema {
    description: "The `add` tool's input.",
    properties: AddProperties {
        a: Integer { description: "The first number.", format: "int64", kind: "integer" },
        b: Integer { description: "The second number.", format: "int64", kind: "integer" },
    },
    required: ["a", "b"],
    kind: "object",
};

/// The prompt cache key the raw clients send where dive sends its own (`dive-agent-` and the
/// agent's id): a value of the same length.
pub const PROMPT_CACHE_KEY: &str = "dive-agent-agent_00000000000000000000000000";

/// The `user-agent` both clients send (dive's own).
pub const USER_AGENT: &str = "dive-rs/0.1.0";
