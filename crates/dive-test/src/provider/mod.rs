//! A conformance suite for HTTP [`Llm`] providers, like the store suite: every provider in
//! this workspace runs it, and a downstream provider author can run it on theirs.
//!
//! Call [`provider_conformance`] from a `#[tokio::test]` (the default current-thread runtime,
//! so the log capture sees every line) with a function that builds your provider pointed at a
//! base URL with an API key — retrying at least twice with a delay of a few milliseconds —
//! and your wire format's [`CannedReplies`]. Each check plays a script on a real local
//! [`MisbehavingServer`] and panics with the check's name when the provider breaks a rule:
//!
//! - `retry_after`: a 429 with `Retry-After: 1` is retried after that second, not sooner;
//! - `retry_5xx`: a 500 then a 503 are retried, then the call succeeds;
//! - `usage_and_cost`: usage (and a catalog cost when priced) on `generate` and `stream`;
//! - `cut_before_first_event`: a connection cut before the first event is retried;
//! - `cut_after_first_event`: a cut after it is `StreamInterrupted`, never retried (no
//!   duplicated output);
//! - `interrupted_stream`: a stream that ends cleanly without its end marker is
//!   `StreamInterrupted`, never a success;
//! - `error_event`: an error event mid-stream is the typed kind, never retried; one before
//!   the first event is retried when its kind is retryable;
//! - `cancellation`: dropping the stream closes the connection;
//! - `no_secret_leaks`: the key is sent, and appears in no `Debug`, `Display`, error chain or
//!   log line, even when the server echoes it.
//!
//! ```no_run
//! use dive_test::provider::{CannedReplies, ProviderSetup, provider_conformance};
//! # fn my_provider(setup: &ProviderSetup<'_>) -> dive_test::TestModel { dive_test::TestModel::new() }
//! # fn canned() -> CannedReplies { CannedReplies::new(b"{}".to_vec(), "done", (1, 1)) }
//! # async fn run() {
//! let report = provider_conformance(|setup| my_provider(setup), canned()).await;
//! assert!(report.passed.contains(&"retry_after"));
//! # }
//! ```

mod logs;
mod server;

use std::error::Error as StdError;
use std::time::Duration;

use dive_core::{Llm, LlmError, LlmErrorKind, Message, ModelRequest, ModelResponse, ResponseAccumulator};
use futures_util::StreamExt;

pub use server::{MisbehavingServer, Received, Reply, read_request};

/// Where the suite points the provider it builds.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ProviderSetup<'a> {
    /// The local server's base URL (`http://127.0.0.1:PORT`), with no path.
    pub base_url: &'a str,
    /// The API key to send (the secret check looks for it everywhere).
    pub api_key: &'a str,
}

impl<'a> ProviderSetup<'a> {
    /// A setup (the suite makes its own; this is for a crate's tests beside the suite).
    #[must_use]
    pub fn new(base_url: &'a str, api_key: &'a str) -> Self {
        Self { base_url, api_key }
    }
}

/// What one wire format answers, in its own bytes, for the suite to replay and break.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct CannedReplies {
    /// A whole non-streamed response carrying [`text`](Self::text) and the usage below.
    pub reply: Vec<u8>,
    /// The `content-type` of a stream (`text/event-stream`, `application/x-ndjson`).
    pub stream_content_type: String,
    /// A complete stream as frames (each with its separator), carrying the same text and
    /// usage. The **last frame is the end marker** (`message_stop`, `[DONE]`, `done: true`).
    pub stream: Vec<Vec<u8>>,
    /// How many leading frames it takes until the first event that reaches the caller
    /// (keep-alive pings do not count).
    pub first_event_frames: usize,
    /// An in-stream error frame, and the kind the provider must map it to.
    pub stream_error: (Vec<u8>, LlmErrorKind),
    /// The body of an HTTP error with this status whose message is the given text (the
    /// vendor's error shape).
    pub error_body: fn(u16, &str) -> Vec<u8>,
    /// The text of the reply and of the stream.
    pub text: String,
    /// Input and output tokens both report.
    pub usage: (u64, u64),
    /// Whether the model the provider uses has catalog prices (a cost is then required).
    pub priced: bool,
}

impl CannedReplies {
    /// Canned replies with a whole `reply` carrying `text` and `usage`; set the stream, its
    /// first event, the error frame and the error shape on the fields (they are public and
    /// the type is `#[non_exhaustive]`, so it is built here and filled in).
    #[must_use]
    pub fn new(reply: Vec<u8>, text: impl Into<String>, usage: (u64, u64)) -> Self {
        Self {
            reply,
            stream_content_type: "text/event-stream".into(),
            stream: Vec::new(),
            first_event_frames: 1,
            stream_error: (Vec::new(), LlmErrorKind::Overloaded),
            error_body: |_, message| {
                serde_json::json!({"error": {"message": message}}).to_string().into_bytes()
            },
            text: text.into(),
            usage,
            priced: false,
        }
    }

    /// Splits an SSE body into frames (each event with its blank line).
    #[must_use]
    pub fn sse_frames(body: &str) -> Vec<Vec<u8>> {
        body.split_inclusive("\n\n").filter(|f| !f.trim().is_empty()).map(|f| f.as_bytes().to_vec()).collect()
    }

    /// Splits an NDJSON body into frames (one line each).
    #[must_use]
    pub fn ndjson_frames(body: &str) -> Vec<Vec<u8>> {
        body.split_inclusive('\n').filter(|f| !f.trim().is_empty()).map(|f| f.as_bytes().to_vec()).collect()
    }
}

/// What the suite ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProviderReport {
    /// The checks that passed, by name.
    pub passed: Vec<&'static str>,
}

/// The typed source of a provider error, e.g. `source_of::<dive_provider::ProviderError>(&e)`
/// to read what a failed stream produced.
///
/// # Panics
/// When `e` has no source of type `T`.
#[must_use]
pub fn source_of<T: StdError + 'static>(e: &LlmError) -> &T {
    e.source
        .as_deref()
        .and_then(|s| s.downcast_ref::<T>())
        .unwrap_or_else(|| panic!("the error has no {} source: {e:?}", std::any::type_name::<T>()))
}

fn request() -> ModelRequest {
    ModelRequest::new(vec![Message::user("hi")])
}

/// Runs a stream to its end: what the caller saw, the error that ended it, how many events.
async fn drain<L: Llm>(llm: &L) -> (ModelResponse, Option<LlmError>, usize) {
    let mut acc = ResponseAccumulator::new();
    let mut stream = match llm.stream(request()).await {
        Ok(s) => s,
        Err(e) => return (ModelResponse::default(), Some(e), 0),
    };
    let mut n = 0;
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => {
                n += 1;
                if let Err(bad) = acc.add(&e) {
                    panic!("the provider's stream is inconsistent: {bad}");
                }
            }
            Err(e) => return (acc.into_finished_response(), Some(e), n),
        }
    }
    (acc.into_response(), None, n)
}

struct Suite<'c, F> {
    make: F,
    canned: &'c CannedReplies,
    report: ProviderReport,
}

const KEY: &str = "sk-conformance-SUPERSECRET-0123456789";

impl<L: Llm + std::fmt::Debug, F: Fn(&ProviderSetup<'_>) -> L> Suite<'_, F> {
    async fn server(&self, script: Vec<Reply>) -> (MisbehavingServer, L) {
        let server = MisbehavingServer::start(script).await;
        let llm = (self.make)(&ProviderSetup { base_url: server.url(), api_key: KEY });
        (server, llm)
    }

    fn ok(&self) -> Reply {
        Reply::json(200, self.canned.reply.clone())
    }

    fn stream(&self, frames: Vec<Vec<u8>>, cut_after: Option<usize>) -> Reply {
        Reply::Stream { content_type: self.canned.stream_content_type.clone(), frames, cut_after }
    }

    fn error(&self, status: u16, message: &str) -> Reply {
        Reply::json(status, (self.canned.error_body)(status, message))
    }

    fn pass(&mut self, check: &'static str) {
        self.report.passed.push(check);
    }

    async fn retry_after(&mut self) {
        let limited = self.error(429, "slow down").with_header("retry-after", "1");
        let (server, llm) = self.server(vec![limited, self.ok()]).await;
        let r =
            llm.generate(request()).await.unwrap_or_else(|e| panic!("[retry_after] the call failed: {e}"));
        assert_eq!(r.text_content(), self.canned.text, "[retry_after] the text");
        let got = server.received();
        assert_eq!(got.len(), 2, "[retry_after] a 429 is retried once");
        let waited = got[1].at - got[0].at;
        assert!(
            waited >= Duration::from_millis(950),
            "[retry_after] retried after {waited:?}, before Retry-After: 1"
        );
        self.pass("retry_after");
    }

    async fn retry_5xx(&mut self) {
        let script = vec![self.error(500, "internal error"), self.error(503, "unavailable"), self.ok()];
        let (server, llm) = self.server(script).await;
        let r = llm.generate(request()).await.unwrap_or_else(|e| panic!("[retry_5xx] the call failed: {e}"));
        assert_eq!(r.text_content(), self.canned.text, "[retry_5xx] the text");
        assert_eq!(server.received().len(), 3, "[retry_5xx] 500 and 503 are retried");
        self.pass("retry_5xx");
    }

    fn check_usage(&self, check: &str, r: &ModelResponse) {
        let (input, output) = self.canned.usage;
        assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (input, output), "[{check}] usage");
        if self.canned.priced {
            assert!(
                r.usage.cost.as_ref().is_some_and(|c| c.total > 0.0),
                "[{check}] a priced model has a cost: {:?}",
                r.usage
            );
        }
    }

    async fn usage_and_cost(&mut self) {
        let (_server, llm) =
            self.server(vec![self.ok(), self.stream(self.canned.stream.clone(), None)]).await;
        let r =
            llm.generate(request()).await.unwrap_or_else(|e| panic!("[usage_and_cost] generate failed: {e}"));
        self.check_usage("usage_and_cost", &r);
        assert!(llm.supports_streaming(), "[usage_and_cost] an HTTP provider of this suite streams");
        let (r, e, _) = drain(&llm).await;
        assert!(e.is_none(), "[usage_and_cost] the stream failed: {e:?}");
        assert_eq!(r.text_content(), self.canned.text, "[usage_and_cost] streamed text");
        self.check_usage("usage_and_cost", &r);
        self.pass("usage_and_cost");
    }

    async fn cut_before_first_event(&mut self) {
        let script = vec![
            self.stream(self.canned.stream.clone(), Some(0)),
            self.stream(self.canned.stream.clone(), None),
        ];
        let (server, llm) = self.server(script).await;
        let (r, e, _) = drain(&llm).await;
        assert!(e.is_none(), "[cut_before_first_event] a cut before any event is retried: {e:?}");
        assert_eq!(r.text_content(), self.canned.text, "[cut_before_first_event] text");
        assert_eq!(server.received().len(), 2, "[cut_before_first_event] one retry");
        // A cut inside the first frame: nothing reached the caller either.
        let first = &self.canned.stream[0];
        let (head, tail) = first.split_at(first.len() / 2);
        let mut halves = vec![head.to_vec(), tail.to_vec()];
        halves.extend(self.canned.stream[1..].iter().cloned());
        let script = vec![self.stream(halves, Some(1)), self.stream(self.canned.stream.clone(), None)];
        let (server, llm) = self.server(script).await;
        let (r, e, _) = drain(&llm).await;
        assert!(e.is_none(), "[cut_before_first_event] a cut inside the first frame is retried: {e:?}");
        assert_eq!(r.text_content(), self.canned.text, "[cut_before_first_event] text");
        assert_eq!(server.received().len(), 2, "[cut_before_first_event] one retry");
        self.pass("cut_before_first_event");
    }

    async fn cut_after_first_event(&mut self) {
        let first = self.canned.first_event_frames;
        let script = vec![
            self.stream(self.canned.stream.clone(), Some(first)),
            self.stream(self.canned.stream.clone(), None),
        ];
        let (server, llm) = self.server(script).await;
        let (_, e, seen) = drain(&llm).await;
        let e = e.unwrap_or_else(|| panic!("[cut_after_first_event] a cut stream must fail"));
        assert!(seen >= 1, "[cut_after_first_event] the first event reached the caller");
        assert_eq!(e.kind, LlmErrorKind::StreamInterrupted, "[cut_after_first_event] {e}");
        assert!(!e.is_retryable(), "[cut_after_first_event] an interruption is not retryable");
        assert_eq!(
            server.received().len(),
            1,
            "[cut_after_first_event] never retried once output was exposed"
        );
        self.pass("cut_after_first_event");
    }

    async fn interrupted_stream(&mut self) {
        let mut frames = self.canned.stream.clone();
        frames.pop();
        let (_server, llm) = self.server(vec![self.stream(frames, None)]).await;
        let (_, e, _) = drain(&llm).await;
        let e = e.unwrap_or_else(|| panic!("[interrupted_stream] a stream without its end marker must fail"));
        assert_eq!(e.kind, LlmErrorKind::StreamInterrupted, "[interrupted_stream] {e}");
        self.pass("interrupted_stream");
    }

    async fn error_event(&mut self) {
        let (frame, kind) = self.canned.stream_error.clone();
        let first = self.canned.first_event_frames;
        let mut frames: Vec<Vec<u8>> = self.canned.stream[..first].to_vec();
        frames.push(frame.clone());
        let script = vec![self.stream(frames, None), self.stream(self.canned.stream.clone(), None)];
        let (server, llm) = self.server(script).await;
        let (_, e, seen) = drain(&llm).await;
        let e = e.unwrap_or_else(|| panic!("[error_event] an error event must fail the stream"));
        assert!(seen >= 1, "[error_event] the events before it reached the caller");
        assert_eq!(e.kind, kind, "[error_event] the typed kind: {e}");
        assert_eq!(server.received().len(), 1, "[error_event] never retried once output was exposed");
        if kind.is_retryable() {
            let script = vec![self.stream(vec![frame], None), self.stream(self.canned.stream.clone(), None)];
            let (server, llm) = self.server(script).await;
            let (r, e, _) = drain(&llm).await;
            assert!(e.is_none(), "[error_event] a retryable error before the first event is retried: {e:?}");
            assert_eq!(r.text_content(), self.canned.text, "[error_event] text after the retry");
            assert_eq!(server.received().len(), 2, "[error_event] one retry");
        }
        self.pass("error_event");
    }

    async fn cancellation(&mut self) {
        let frames = self.canned.stream[..self.canned.first_event_frames].to_vec();
        let hold = Reply::Hold { content_type: self.canned.stream_content_type.clone(), frames };
        let (server, llm) = self.server(vec![hold]).await;
        let mut stream = llm.stream(request()).await.unwrap_or_else(|e| panic!("[cancellation] {e}"));
        let first = stream.next().await;
        assert!(matches!(first, Some(Ok(_))), "[cancellation] the first event arrives: {first:?}");
        drop(stream);
        assert!(
            server.wait_client_closed(Duration::from_secs(10)).await,
            "[cancellation] dropping the stream must close the connection"
        );
        self.pass("cancellation");
    }

    async fn no_secret_leaks(&mut self) {
        let echo = format!("key {KEY} rejected");
        let capture = logs::Capture::start();
        let script = vec![self.error(429, &echo), self.error(401, &echo), self.error(401, &echo)];
        let (server, llm) = self.server(script).await;
        let mut outputs = vec![format!("{llm:?}")];
        let e = llm
            .generate(request())
            .await
            .err()
            .unwrap_or_else(|| panic!("[no_secret_leaks] a 401 must fail"));
        assert_eq!(e.kind, LlmErrorKind::Authentication, "[no_secret_leaks] a 401 is Authentication: {e}");
        let (_, stream_error, _) = drain(&llm).await;
        for e in [Some(e), stream_error].into_iter().flatten() {
            outputs.extend([e.to_string(), format!("{e:?}"), format!("{e:#?}")]);
            let mut source = StdError::source(&e);
            while let Some(s) = source {
                outputs.push(format!("{s} {s:?}"));
                source = s.source();
            }
        }
        let logs = capture.finish();
        let received = server.received();
        assert!(received.len() >= 3, "[no_secret_leaks] 429 retried, then 401 for generate and stream");
        assert!(
            received.iter().all(|r| r.headers.iter().any(|(_, v)| v.contains(KEY))),
            "[no_secret_leaks] every call sends the key in a header"
        );
        assert!(
            outputs.iter().any(|o| o.contains("[redacted]")),
            "[no_secret_leaks] the echoed key is redacted: {outputs:?}"
        );
        for text in outputs.iter().chain([&logs]) {
            assert!(!text.contains("SUPERSECRET"), "[no_secret_leaks] the API key leaked: {text}");
        }
        self.pass("no_secret_leaks");
    }
}

/// Runs every check on providers made by `make` (see the module docs); panics with the
/// check's name on the first broken rule.
pub async fn provider_conformance<L, F>(make: F, canned: CannedReplies) -> ProviderReport
where
    L: Llm + std::fmt::Debug,
    F: Fn(&ProviderSetup<'_>) -> L,
{
    assert!(
        canned.first_event_frames >= 1 && canned.first_event_frames < canned.stream.len(),
        "CannedReplies: first_event_frames must leave at least the end marker after it"
    );
    let mut suite = Suite { make, canned: &canned, report: ProviderReport::default() };
    suite.retry_after().await;
    suite.retry_5xx().await;
    suite.usage_and_cost().await;
    suite.cut_before_first_event().await;
    suite.cut_after_first_event().await;
    suite.interrupted_stream().await;
    suite.error_event().await;
    suite.cancellation().await;
    suite.no_secret_leaks().await;
    suite.report
}
