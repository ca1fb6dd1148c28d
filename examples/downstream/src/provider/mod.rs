//! [`LineModel`]: the provider of a downstream crate, for a model server with its own
//! protocol (JSON requests, a JSON response or an NDJSON stream; see [`wire`]).
//!
//! It follows the provider contract stated on [`Llm`]: reminders rendered, unanswered tool
//! calls answered (on a copy of the history), blocks it cannot send refused with a typed
//! error, streaming only when it says it streams, a stream without its end line an
//! `StreamInterrupted` error, the key redacted in `Debug`, every failure a typed
//! [`LlmErrorKind`]. A retryable failure (rate limit, overload, 5xx, a broken connection) is
//! retried, after the server's `Retry-After` when it sent one; a stream only until its first
//! event, so no output is ever duplicated. It passes `dive-test`'s provider conformance
//! suite (`tests/provider_conformance.rs`).

mod http;
pub mod wire;

use dive_core::{
    BoxFuture, Content, ContentDelta, EventStream, Llm, LlmError, LlmErrorKind, MessageDelta, ModelRequest,
    ModelResponse, Secret, StreamEvent, ToolUse, serde_json,
};
use std::future::Future;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::io::AsyncBufReadExt;

use self::http::{Endpoint, Response, network, post};
use self::wire::Line;

/// The path the server answers on.
const CHAT_PATH: &str = "/v1/chat";

/// Retries of a retryable failure, by default.
const DEFAULT_RETRIES: u32 = 2;

/// The first retry's delay when the server sent no `Retry-After`; doubled each retry.
const DEFAULT_RETRY_DELAY: Duration = Duration::from_millis(500);

/// A model on a server speaking the line protocol.
#[derive(Debug, Clone)]
pub struct LineModel {
    endpoint: Endpoint,
    model: String,
    key: Option<Secret>,
    retries: u32,
    retry_delay: Duration,
}

impl LineModel {
    /// The model `model` on the server at `base_url` (`http://host:port`).
    ///
    /// # Errors
    /// `InvalidRequest` when `base_url` is not `http://host:port`.
    pub fn new(base_url: &str, model: impl Into<String>) -> Result<Self, LlmError> {
        Ok(Self {
            endpoint: Endpoint::parse(base_url)?,
            model: model.into(),
            key: None,
            retries: DEFAULT_RETRIES,
            retry_delay: DEFAULT_RETRY_DELAY,
        })
    }

    /// Sends `key` as a bearer token (redacted in `Debug` and errors).
    #[must_use]
    pub fn with_api_key(mut self, key: Secret) -> Self {
        self.key = Some(key);
        self
    }

    /// Retries a retryable failure up to `retries` times, the first after `delay` (doubled
    /// each time) unless the server said when with `Retry-After`.
    #[must_use]
    pub fn with_retries(mut self, retries: u32, delay: Duration) -> Self {
        self.retries = retries;
        self.retry_delay = delay;
        self
    }

    /// Runs `attempt` until it succeeds, fails for good, or the retries are spent.
    async fn retrying<T, Fut: Future<Output = Result<T, LlmError>>>(
        &self,
        attempt: impl Fn() -> Fut,
    ) -> Result<T, LlmError> {
        let mut tries = 0;
        loop {
            match attempt().await {
                Err(e) if e.is_retryable() && tries < self.retries => {
                    let backoff = self.retry_delay.saturating_mul(2u32.saturating_pow(tries));
                    tokio::time::sleep(e.retry_after.unwrap_or(backoff)).await;
                    tries += 1;
                }
                result => return result,
            }
        }
    }

    /// Opens a stream and reads it up to its first events: a failure before any event is an
    /// error of the attempt (so it is retried), one after it ends the stream.
    async fn open_stream(&self, request: &ModelRequest) -> Result<EventStream, LlmError> {
        let response = self.send(request, true).await?;
        let state = StreamState {
            body: Some(response),
            mapper: Mapper::new(self.model.clone()),
            key: self.key.clone(),
        };
        let Some((mut first, state)) = next_events(state).await else {
            return Ok(EventStream::new(futures_util::stream::empty()));
        };
        if first.first().is_some_and(Result::is_err) {
            // The attempt failed before any event: its error is the attempt's (retried).
            first.remove(0)?;
        }
        let rest = futures_util::stream::unfold(state, next_events).flat_map(futures_util::stream::iter);
        Ok(EventStream::new(futures_util::stream::iter(first).chain(rest)))
    }

    async fn send(&self, request: &ModelRequest, stream: bool) -> Result<Response, LlmError> {
        let body = wire::encode(request, &self.model, stream)?;
        let bytes = serde_json::to_vec(&body).map_err(|e| {
            LlmError::new(LlmErrorKind::InvalidRequest, format!("the request does not encode: {e}"))
        })?;
        let response = post(&self.endpoint, CHAT_PATH, self.key.as_ref(), &bytes).await?;
        if (200..300).contains(&response.status) {
            return Ok(response);
        }
        let (status, retry_after) = (response.status, response.retry_after);
        let body = response.bytes().await?;
        Err(wire::error(status, &body, retry_after, self.key.as_ref()))
    }
}

impl Llm for LineModel {
    fn provider(&self) -> &str {
        "line"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>> {
        Box::pin(async move {
            self.retrying(|| async {
                let response = self.send(&request, false).await?;
                wire::decode(&response.bytes().await?, &self.model)
            })
            .await
        })
    }

    fn stream(&self, request: ModelRequest) -> BoxFuture<'_, Result<EventStream, LlmError>> {
        Box::pin(async move { self.retrying(|| self.open_stream(&request)).await })
    }

    fn supports_streaming(&self) -> bool {
        true
    }
}

struct StreamState {
    /// `None` once the stream ended (its end line, an error, or a cut).
    body: Option<Response>,
    mapper: Mapper,
    key: Option<Secret>,
}

/// Reads the next line and maps it to events; `None` after the last.
async fn next_events(mut state: StreamState) -> Option<(Vec<Result<StreamEvent, LlmError>>, StreamState)> {
    let response = state.body.as_mut()?;
    let mut line = String::new();
    let events = loop {
        line.clear();
        match response.body.read_line(&mut line).await {
            Err(e) => break vec![Err(network(e))],
            // Closed before any event (even inside the first line): nothing reached the
            // caller, so it is a failed connection (retried). After one: an interrupted stream
            // (never retried). A line without its newline is a cut, never a line to parse.
            Ok(n) if (n == 0 || !line.ends_with('\n')) && !state.mapper.started => {
                break vec![Err(LlmError::new(
                    LlmErrorKind::Network,
                    "the model server closed the connection before the stream's first event",
                )
                .with_provider("line"))];
            }
            Ok(n) if n == 0 || !line.ends_with('\n') => {
                break vec![Err(LlmError::new(
                    LlmErrorKind::StreamInterrupted,
                    "the model server's stream ended before its end line",
                )
                .with_provider("line"))];
            }
            Ok(_) if line.trim().is_empty() => continue,
            Ok(_) => match wire::decode_line(line.trim()) {
                Ok(Line::Error { kind, message }) => {
                    break vec![Err(wire::stream_error(&kind, &message, state.key.as_ref()))];
                }
                Ok(parsed) => break state.mapper.map(parsed).into_iter().map(Ok).collect(),
                Err(e) => break vec![Err(e)],
            },
        }
    };
    if state.mapper.ended || events.iter().any(Result::is_err) {
        state.body = None;
    }
    Some((events, state))
}

/// Maps stream lines to the provider-neutral events: a text block opened at the first text
/// delta, each call a whole block, and the stop and usage at the end.
struct Mapper {
    model: String,
    started: bool,
    open_text: Option<usize>,
    next_index: usize,
    ended: bool,
}

impl Mapper {
    fn new(model: String) -> Self {
        Self { model, started: false, open_text: None, next_index: 0, ended: false }
    }

    fn map(&mut self, line: Line) -> Vec<StreamEvent> {
        let mut events = Vec::new();
        if !self.started {
            self.started = true;
            let id = if let Line::Start { id } = &line { id.clone() } else { String::new() };
            events.push(StreamEvent::message_start(
                ModelResponse::default().with_id(id).with_model(self.model.clone()),
            ));
        }
        match line {
            Line::Start { .. } => {}
            Line::Text { delta } => {
                let index = match self.open_text {
                    Some(index) => index,
                    None => {
                        let index = self.take_index();
                        self.open_text = Some(index);
                        events.push(StreamEvent::block_start(index, Content::text("")));
                        index
                    }
                };
                events.push(StreamEvent::ContentBlockDelta {
                    index,
                    delta: ContentDelta::TextDelta { text: delta },
                });
            }
            Line::Call(call) => {
                self.close_text(&mut events);
                let index = self.take_index();
                let call = ToolUse::from(call);
                let partial_json = call.input.to_string();
                let mut empty = call;
                empty.input = serde_json::json!({}).into();
                events.push(StreamEvent::block_start(index, Content::ToolUse(empty)));
                events.push(StreamEvent::ContentBlockDelta {
                    index,
                    delta: ContentDelta::InputJsonDelta { partial_json },
                });
                events.push(StreamEvent::ContentBlockStop { index });
            }
            // Handled before mapping: an error line ends the stream with its typed error.
            Line::Error { .. } => {}
            Line::End { stop, usage } => {
                self.close_text(&mut events);
                events.push(StreamEvent::message_delta(MessageDelta::stop(stop), Some(usage.into())));
                events.push(StreamEvent::MessageStop);
                self.ended = true;
            }
        }
        events
    }

    fn take_index(&mut self) -> usize {
        self.next_index += 1;
        self.next_index - 1
    }

    fn close_text(&mut self, events: &mut Vec<StreamEvent>) {
        if let Some(index) = self.open_text.take() {
            events.push(StreamEvent::ContentBlockStop { index });
        }
    }
}
