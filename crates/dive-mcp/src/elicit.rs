//! Answering a 2025-11-25 server that asks for input in the middle of a call (a server
//! request, `elicitation/create`, while the call waits). A 2026-07-28 server asks through
//! `input_required` instead, which suspends the turn (see [`McpClient::answer_input`]); an
//! older server keeps its request open, so the answer has to come from the application now:
//! an [`ElicitationHandler`] (a dialog, a form), or a decline when there is none.
//!
//! [`McpClient::answer_input`]: crate::McpClient::answer_input

use std::fmt;
use std::sync::Arc;

use dive_core::BoxFuture;
use serde_json::{Value, json};

/// What a server asks for.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Elicitation {
    /// The server's configured name.
    pub server: String,
    /// What it says it needs, for the user.
    pub message: String,
    /// The JSON schema of the answer's `content` (form elicitation), if any.
    pub schema: Option<Value>,
    /// The page to send the user to (URL elicitation), if any.
    pub url: Option<String>,
}

impl Elicitation {
    /// A request from `server` saying `message`, with no schema or URL yet (for an
    /// application testing its handler).
    pub fn new(server: impl Into<String>, message: impl Into<String>) -> Self {
        Self { server: server.into(), message: message.into(), schema: None, url: None }
    }

    /// Sets the JSON schema of the answer's content.
    #[must_use]
    pub fn with_schema(mut self, schema: Value) -> Self {
        self.schema = Some(schema);
        self
    }

    /// Sets the URL the user completes it at.
    #[must_use]
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }
}

type Answer = dyn Fn(Elicitation) -> BoxFuture<'static, Value> + Send + Sync;

/// Answers elicitations with the MCP result shape, the same the suspension path takes:
/// `{"action": "accept", "content": {…}}`, `{"action": "decline"}` or `{"action": "cancel"}`.
/// An answer that is not one of those declines.
///
/// ```
/// use dive_mcp::ElicitationHandler;
/// let handler = ElicitationHandler::new(|ask| async move {
///     serde_json::json!({"action": "accept", "content": {"name": format!("answer to {}", ask.message)}})
/// });
/// # drop(handler);
/// ```
#[derive(Clone)]
pub struct ElicitationHandler(Arc<Answer>);

impl ElicitationHandler {
    /// A handler from an async function.
    pub fn new<F, Fut>(answer: F) -> Self
    where
        F: Fn(Elicitation) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Value> + Send + 'static,
    {
        Self(Arc::new(move |ask| Box::pin(answer(ask))))
    }

    /// The answer to `ask`.
    pub async fn answer(&self, ask: Elicitation) -> Value {
        (self.0)(ask).await
    }
}

impl fmt::Debug for ElicitationHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ElicitationHandler(..)")
    }
}

/// The decline a server gets when nobody can answer.
pub(crate) fn decline() -> Value {
    json!({"action": "decline"})
}
