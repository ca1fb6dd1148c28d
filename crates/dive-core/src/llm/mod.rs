//! The model interface: [`Llm`], what it takes ([`ModelRequest`]) and what it gives
//! ([`ModelResponse`], or a stream of [`StreamEvent`]s).
//!
//! A provider implements [`Llm::generate`]; streaming providers also implement
//! [`Llm::stream`] (the default replays `generate` as synthesised events).

mod accumulator;
mod catalog;
mod event;
mod event_stream;
mod request;
mod response;
mod stop;
mod template;
mod unanswered;
mod usage;

use std::sync::Arc;

pub use accumulator::{AccumulateError, ResponseAccumulator};
pub use catalog::{ModelInfo, find_model};
pub use event::{ContentDelta, MessageDelta, StreamEvent};
pub use event_stream::EventStream;
pub use request::{
    ContextEdit, McpServerConfig, ModelRequest, OptionKey, Prefill, ProviderOption, ProviderOptions,
    Reasoning, ReasoningEffort, ReasoningSummary, ResponseFormat, Speed, ThinkingDisplay, ThinkingMode,
    ToolChoice,
};
pub use response::ModelResponse;
pub use stop::{StopKind, classify_stop_reason};
pub use unanswered::{
    TOOL_CALL_UNKNOWN_TEXT, answer_unanswered_tool_calls, answer_unanswered_tool_calls_with, history_to_send,
};
pub use usage::{Cost, LongContextPricing, Pricing, Usage, UsageIteration, UsageReport};

use crate::compaction::CompactedWindow;
use crate::error::{LlmError, LlmErrorKind};
use crate::future::BoxFuture;

/// A language model.
///
/// Dyn-compatible: agents hold an `Arc<dyn Llm>`. Implement [`generate`](Llm::generate);
/// override [`stream`](Llm::stream) and [`supports_streaming`](Llm::supports_streaming) when the
/// provider streams.
///
/// # The provider contract
///
/// What the engine (and every caller) relies on; the conformance suite in `dive-test` checks
/// what it can on the wire.
///
/// - **Reminder blocks are rendered or refused, never sent raw nor dropped.** History may hold
///   [`Content::Reminder`](crate::Content::Reminder) blocks; turn them into something the
///   endpoint reads with [`render_reminders`](crate::render_reminders) (as user text, or as a
///   native system/developer message for operator reminders where the endpoint has one), or
///   fail the call with an error that says the provider cannot carry them.
/// - **Every tool call is answered before sending.** Apply
///   [`answer_unanswered_tool_calls`] to the request's messages (never to the caller's
///   stored history): a history saved by an old version or a crashed process may hold a call
///   without a result, which most endpoints reject.
/// - **Stream only when [`supports_streaming`](Llm::supports_streaming) says so.** Callers use
///   [`stream`](Llm::stream) only when it returns `true`; return `true` only when `stream`
///   yields the endpoint's own events as they arrive. Wrap them with
///   [`EventStream::new`]: it accumulates the response once for every reader, turns an
///   event that does not fit into a `Decode` error and an end without
///   [`StreamEvent::MessageStop`] into an
///   [`LlmErrorKind::StreamInterrupted`](crate::LlmErrorKind) error, never a short success,
///   and keeps what a failed stream produced
///   ([`EventStream::into_partial_response`]). Do not accumulate the events yourself.
/// - **Never change the request's history, and never leak a key.** Derive the wire request
///   from the [`ModelRequest`] alone; keep API keys in [`Secret`](crate::Secret)s so `Debug`,
///   `Display` and errors print them redacted.
/// - **Failures are typed.** Map the endpoint's errors to an
///   [`LlmErrorKind`] (rate limit, overload, authentication, context
///   length, …) so callers can retry or report them.
///
/// ```
/// use dive_core::{BoxFuture, Llm, LlmError, ModelRequest, ModelResponse};
///
/// struct Echo;
/// impl Llm for Echo {
///     fn provider(&self) -> &str { "echo" }
///     fn model(&self) -> &str { "echo-1" }
///     fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>> {
///         Box::pin(async move {
///             let text = request.messages.last().map(|m| m.text()).unwrap_or_default();
///             Ok(ModelResponse::text(text))
///         })
///     }
/// }
/// ```
pub trait Llm: Send + Sync {
    /// Provider name, e.g. `anthropic`.
    fn provider(&self) -> &str;

    /// The model id this instance calls by default.
    fn model(&self) -> &str;

    /// One complete response.
    fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>>;

    /// A stream of events. The default calls [`generate`](Llm::generate) and replays the
    /// response as events.
    fn stream(&self, request: ModelRequest) -> BoxFuture<'_, Result<EventStream, LlmError>> {
        Box::pin(async move { Ok(EventStream::replay(&self.generate(request).await?)) })
    }

    /// Whether [`stream`](Llm::stream) streams natively.
    fn supports_streaming(&self) -> bool {
        false
    }

    /// Catalog information about the default model, when known.
    fn model_info(&self) -> Option<ModelInfo> {
        None
    }

    /// The base URL requests go to (e.g. `https://api.anthropic.com`), when there is one:
    /// tracers report it as `server.address` and `server.port`.
    fn endpoint(&self) -> Option<&str> {
        None
    }

    /// Whether [`compact`](Llm::compact) compacts on the provider's side (its own summarising
    /// pass, returning a block later requests replay). `false` by default.
    fn supports_compaction(&self) -> bool {
        false
    }

    /// Compacts `request.messages` with the provider's own compaction: the messages that
    /// replace them (send them first in later requests, exactly as returned) and the call's
    /// usage. `instructions` replace or extend the provider's summarising prompt where its API
    /// takes them. The default fails with [`LlmErrorKind::Unsupported`].
    ///
    /// # Errors
    /// `Unsupported` when the provider has no native compaction; the call's own errors.
    fn compact(
        &self,
        request: ModelRequest,
        instructions: Option<String>,
    ) -> BoxFuture<'_, Result<CompactedWindow, LlmError>> {
        let _ = (request, instructions);
        let error = LlmError::new(
            LlmErrorKind::Unsupported,
            format!("{} has no native compaction; compact with a summary instead", self.provider()),
        )
        .with_provider(self.provider());
        Box::pin(std::future::ready(Err(error)))
    }
}

impl<T: Llm + ?Sized> Llm for Arc<T> {
    fn provider(&self) -> &str {
        (**self).provider()
    }
    fn model(&self) -> &str {
        (**self).model()
    }
    fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>> {
        (**self).generate(request)
    }
    fn stream(&self, request: ModelRequest) -> BoxFuture<'_, Result<EventStream, LlmError>> {
        (**self).stream(request)
    }
    fn supports_streaming(&self) -> bool {
        (**self).supports_streaming()
    }
    fn model_info(&self) -> Option<ModelInfo> {
        (**self).model_info()
    }
    fn endpoint(&self) -> Option<&str> {
        (**self).endpoint()
    }
    fn supports_compaction(&self) -> bool {
        (**self).supports_compaction()
    }
    fn compact(
        &self,
        request: ModelRequest,
        instructions: Option<String>,
    ) -> BoxFuture<'_, Result<CompactedWindow, LlmError>> {
        (**self).compact(request, instructions)
    }
}
