//! [`ToolError`]: a tool call failed.

use crate::error::BoxError;

/// A tool call failed.
///
/// A recoverable error becomes an error result the model reads ("Tool execution error: …")
/// and the turn goes on. A **fatal** error also ends the turn (outcome `error`), for failures
/// the model cannot fix (lost credentials, a corrupted workspace).
///
/// ```
/// use dive_core::ToolError;
/// let e = ToolError::new("disk full").fatal();
/// assert!(e.is_fatal());
/// ```
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct ToolError {
    /// What went wrong, for the model.
    pub message: String,
    /// Ends the turn.
    pub is_fatal: bool,
    /// The underlying error.
    #[source]
    pub source: Option<BoxError>,
}

impl ToolError {
    /// A recoverable error.
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), is_fatal: false, source: None }
    }

    /// Wraps an error.
    #[must_use]
    pub fn from_error(error: impl Into<BoxError>) -> Self {
        let source = error.into();
        Self { message: source.to_string(), is_fatal: false, source: Some(source) }
    }

    /// Marks the error fatal to the turn.
    #[must_use]
    pub fn fatal(mut self) -> Self {
        self.is_fatal = true;
        self
    }

    /// Whether the error ends the turn.
    #[must_use]
    pub fn is_fatal(&self) -> bool {
        self.is_fatal
    }
}

impl From<std::io::Error> for ToolError {
    fn from(e: std::io::Error) -> Self {
        Self::from_error(e)
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(e: serde_json::Error) -> Self {
        Self::from_error(e)
    }
}
