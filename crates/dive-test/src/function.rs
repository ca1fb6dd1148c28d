//! [`FunctionModel`]: a closure decides each response.

use std::sync::Arc;

use dive_core::{BoxFuture, Llm, LlmError, ModelRequest, ModelResponse};

use crate::recorded::RecordedRequests;

type Respond = dyn Fn(&ModelRequest, usize) -> Result<ModelResponse, LlmError> + Send + Sync;

/// A model whose every response is computed by a closure from the request and the call
/// number (0-based). Requests are recorded.
///
/// ```
/// use dive_core::{Llm, Message, ModelRequest, ModelResponse};
/// let echo = dive_test::FunctionModel::new(|req, _n| Ok(ModelResponse::text(req.messages[0].text())));
/// let r = futures::executor::block_on(echo.generate(ModelRequest::new(vec![Message::user("ping")]))).unwrap();
/// assert_eq!(r.text_content(), "ping");
/// ```
#[derive(Clone)]
pub struct FunctionModel {
    respond: Arc<Respond>,
    requests: RecordedRequests,
}

impl std::fmt::Debug for FunctionModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionModel").field("requests", &self.requests.len()).finish_non_exhaustive()
    }
}

impl FunctionModel {
    /// A model answering with `respond`.
    pub fn new(
        respond: impl Fn(&ModelRequest, usize) -> Result<ModelResponse, LlmError> + Send + Sync + 'static,
    ) -> Self {
        Self { respond: Arc::new(respond), requests: RecordedRequests::default() }
    }

    /// The requests received so far.
    #[must_use]
    pub fn requests(&self) -> RecordedRequests {
        self.requests.clone()
    }
}

impl Llm for FunctionModel {
    fn provider(&self) -> &str {
        "test"
    }

    fn model(&self) -> &str {
        "function"
    }

    fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>> {
        let n = self.requests.len();
        let result = (self.respond)(&request, n);
        self.requests.push(request);
        Box::pin(async move { result })
    }
}
