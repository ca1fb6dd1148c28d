//! [`BenchError`]: what can go wrong in a benchmark run, in words that say what failed.

/// A failed benchmark run: a client error, a wrong answer, a miscounted server, a child
/// process that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// An HTTP call of the raw client failed.
    #[error("raw client HTTP call failed: {0}")]
    Http(#[from] reqwest::Error),
    /// JSON could not be encoded or decoded.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The dive agent failed.
    #[error("dive agent: {0}")]
    Agent(Box<dive::AgentError>),
    /// A dive provider could not be built.
    #[error("dive provider: {0}")]
    Llm(Box<dive::LlmError>),
    /// A reply did not have the shape the turn needs (no tool call, no text, bad SSE).
    #[error("unexpected reply: {0}")]
    Protocol(String),
    /// A final answer was not the one the tool result implies.
    #[error("wrong answer to turn {turn}: expected {expected:?}, got {got:?}")]
    WrongAnswer {
        /// The turn's index.
        turn: usize,
        /// The answer the mock derives from the right tool result.
        expected: String,
        /// The answer the client returned.
        got: String,
    },
    /// The mock server counted another number of requests than the client run made.
    #[error("the mock counted {counted} requests for a run that needs {expected}")]
    RequestCount {
        /// Requests the run should have made (two a turn).
        expected: u64,
        /// Requests the mock counted.
        counted: u64,
    },
    /// A child process (mock or client) failed or printed something unreadable.
    #[error("child process: {0}")]
    Child(String),
    /// An I/O error (sockets, child processes, /proc).
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
}

impl From<dive::AgentError> for BenchError {
    fn from(e: dive::AgentError) -> Self {
        BenchError::Agent(Box::new(e))
    }
}

impl From<dive::LlmError> for BenchError {
    fn from(e: dive::LlmError) -> Self {
        BenchError::Llm(Box::new(e))
    }
}
