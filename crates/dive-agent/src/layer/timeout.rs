//! [`Timeout`]: a per-tool time limit.

use std::time::Duration;

use dive_core::{BoxFuture, Input, Tool, ToolContext, ToolError, ToolResult};

use super::{LayerError, ToolLayer, forward_tool};

/// Ends a call that runs longer than a limit with [`LayerError::TimedOut`] ("Bash timed out
/// after 30 s"). The call's future is dropped, so a tool that owns a child process group ends
/// it. A tool that returns background work or a suspension in time is not limited further.
#[derive(Debug, Clone, Copy)]
pub struct Timeout {
    limit: Duration,
}

impl Timeout {
    /// A limit for each call.
    #[must_use]
    pub fn new(limit: Duration) -> Self {
        Self { limit }
    }
}

impl<T: Tool> ToolLayer<T> for Timeout {
    type Tool = TimeoutTool<T>;

    fn layer(&self, inner: T) -> TimeoutTool<T> {
        TimeoutTool { inner, limit: self.limit }
    }
}

/// A tool behind a [`Timeout`].
#[derive(Debug, Clone)]
pub struct TimeoutTool<T> {
    inner: T,
    limit: Duration,
}

impl<T: Tool> Tool for TimeoutTool<T> {
    forward_tool!();

    fn call_shared(&self, input: Input, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            match tokio::time::timeout(self.limit, self.inner.call_shared(input, ctx)).await {
                Ok(result) => result,
                Err(_) => {
                    Err(LayerError::TimedOut { tool: self.inner.name().to_owned(), after: self.limit }.into())
                }
            }
        })
    }
}
