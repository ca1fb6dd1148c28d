//! [`ScriptedModel`]: plays a script and records every request.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use dive_core::{
    BoxFuture, EventStream, Llm, LlmError, LlmErrorKind, ModelRequest, ModelResponse, StreamEvent,
};

use crate::recorded::RecordedRequests;

/// One step of a script.
#[non_exhaustive]
#[allow(clippy::large_enum_variant)] // most steps are responses: boxing would only add allocations
pub enum ScriptStep {
    /// A complete response (streamed as synthesised events when streaming).
    Response(ModelResponse),
    /// A raw stream: events and errors exactly as given (e.g. a stream cut mid-block).
    Events(Vec<Result<StreamEvent, LlmError>>),
    /// The call fails with this error.
    Error(LlmError),
}

impl std::fmt::Debug for ScriptStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Response(r) => f.debug_tuple("Response").field(r).finish(),
            Self::Events(e) => f.debug_tuple("Events").field(&e.len()).finish(),
            Self::Error(e) => f.debug_tuple("Error").field(e).finish(),
        }
    }
}

impl ScriptStep {
    /// `response` as a stream whose text arrives in `pieces` deltas (see
    /// [`text_in_deltas`](crate::text_in_deltas)); played by [`Llm::generate`] too, which
    /// accumulates it back into `response`.
    ///
    /// ```
    /// use dive_core::{Llm, ModelRequest, ModelResponse, Message};
    /// use dive_test::{ScriptStep, ScriptedModel};
    ///
    /// let model = ScriptedModel::from_steps([ScriptStep::text_in_deltas(ModelResponse::text("one two three"), 3)])
    ///     .streaming();
    /// let response = futures::executor::block_on(model.generate(ModelRequest::new(vec![Message::user("hi")])));
    /// assert_eq!(response.unwrap().text_content(), "one two three");
    /// ```
    #[must_use]
    pub fn text_in_deltas(response: ModelResponse, pieces: usize) -> Self {
        Self::Events(crate::deltas::text_in_deltas(&response, pieces).into_iter().map(Ok).collect())
    }
}

impl From<ModelResponse> for ScriptStep {
    fn from(r: ModelResponse) -> Self {
        Self::Response(r)
    }
}

/// A model that plays a script, one step per call, and records every request.
///
/// When the script runs out, calls fail with an `Other` error saying so. With
/// [`streaming`](Self::streaming) it reports native streaming, so agents use [`Llm::stream`].
#[derive(Debug, Clone)]
pub struct ScriptedModel {
    script: Arc<Mutex<VecDeque<ScriptStep>>>,
    requests: RecordedRequests,
    streaming: bool,
    model: String,
}

impl ScriptedModel {
    /// A model answering with these responses in order.
    pub fn new(responses: impl IntoIterator<Item = ModelResponse>) -> Self {
        Self::from_steps(responses.into_iter().map(ScriptStep::Response))
    }

    /// A model playing these steps in order.
    pub fn from_steps(steps: impl IntoIterator<Item = ScriptStep>) -> Self {
        Self {
            script: Arc::new(Mutex::new(steps.into_iter().collect())),
            requests: RecordedRequests::default(),
            streaming: false,
            model: "scripted".into(),
        }
    }

    /// Reports native streaming.
    #[must_use]
    pub fn streaming(mut self) -> Self {
        self.streaming = true;
        self
    }

    /// Sets the model name.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Appends a step.
    pub fn push(&self, step: impl Into<ScriptStep>) {
        self.script.lock().unwrap_or_else(PoisonError::into_inner).push_back(step.into());
    }

    /// Steps not yet played.
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.script.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// The requests received so far.
    #[must_use]
    pub fn requests(&self) -> RecordedRequests {
        self.requests.clone()
    }

    #[allow(clippy::result_large_err)] // LlmError is returned by value throughout the Llm trait.
    fn next_step(&self, request: ModelRequest) -> Result<ScriptStep, LlmError> {
        self.requests.push(request);
        let step = self.script.lock().unwrap_or_else(PoisonError::into_inner).pop_front();
        step.ok_or_else(|| {
            LlmError::new(
                LlmErrorKind::Other,
                format!("the scripted model has no step left for request {}", self.requests.len()),
            )
            .with_provider("test")
        })
    }
}

impl Llm for ScriptedModel {
    fn provider(&self) -> &str {
        "test"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>> {
        let step = self.next_step(request);
        Box::pin(async move {
            match step? {
                ScriptStep::Response(r) => Ok(r),
                ScriptStep::Error(e) => Err(e),
                ScriptStep::Events(events) => EventStream::from_events(events).collect_response().await,
            }
        })
    }

    fn stream(&self, request: ModelRequest) -> BoxFuture<'_, Result<EventStream, LlmError>> {
        let step = self.next_step(request);
        Box::pin(async move {
            match step? {
                ScriptStep::Response(r) => Ok(EventStream::replay(&r)),
                ScriptStep::Events(events) => Ok(EventStream::from_events(events)),
                ScriptStep::Error(e) => Err(e),
            }
        })
    }

    fn supports_streaming(&self) -> bool {
        self.streaming
    }
}
