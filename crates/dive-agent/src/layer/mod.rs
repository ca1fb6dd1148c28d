//! Tool middleware: per-tool [`Timeout`], [`CircuitBreaker`], [`RateLimit`] and
//! [`Retry`] (for idempotent tools), as composable layers over any [`Tool`].
//!
//! A [`ToolLayer`] wraps a tool in another tool (tower's `Layer`, for tools). Layers stack with
//! [`ToolLayerExt::layer`]; the **last** layer added is the outermost, so
//!
//! ```text
//! tool.layer(Timeout::new(30 s)).layer(Retry::idempotent(..))
//! ```
//!
//! retries a call that timed out, each attempt with its own 30 s. A layer's failure is an
//! `Err(ToolError)` whose source is a typed [`LayerError`]; the engine turns it into an error
//! result the model reads, such as "Tool execution error: Bash timed out after 30 s".
//!
//! ```
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! use std::time::Duration;
//! use dive_agent::layer::{CircuitBreaker, Retry, Timeout, ToolLayerExt};
//! use dive_core::{FunctionTool, Tool, ToolAnnotations, ToolContext, ToolError};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Input {}
//! let slow = FunctionTool::new("slow", "Never answers in time.", |_: Input, _ctx| async move {
//!     tokio::time::sleep(Duration::from_secs(60)).await;
//!     Ok::<_, ToolError>("done")
//! })
//! .with_annotations(ToolAnnotations::read_only().with_idempotent(true));
//! let tool = slow
//!     .layer(Timeout::new(Duration::from_millis(20)))
//!     .layer(CircuitBreaker::new(5, Duration::from_secs(20)))
//!     .layer(Retry::idempotent(2).with_initial_delay(Duration::from_millis(1)));
//! let error = tool.call(serde_json::json!({}), ToolContext::detached("slow")).await.unwrap_err();
//! assert_eq!(error.to_string(), "slow timed out after 20 ms (2 attempts)");
//! # });
//! ```

mod breaker;
mod error;
mod rate;
mod retry;
mod timeout;

use std::sync::Arc;

use dive_core::Tool;

pub use breaker::{CircuitBreaker, CircuitBreakerTool, CircuitState};
pub use error::LayerError;
pub use rate::{RateLimit, RateLimitTool};
pub use retry::{Retry, RetryTool};
pub use timeout::{Timeout, TimeoutTool};

/// Wraps a tool in another tool. Each layer keeps the state it needs per wrapped tool (a
/// circuit breaker counts each tool's failures) unless it says it shares it
/// ([`RateLimit::shared`]).
pub trait ToolLayer<T: Tool> {
    /// The wrapped tool.
    type Tool: Tool;

    /// Wraps `inner`.
    fn layer(&self, inner: T) -> Self::Tool;
}

/// `tool.layer(l)`: wraps any tool in a layer; chain calls to stack layers (the last added is
/// the outermost).
pub trait ToolLayerExt: Tool + Sized {
    /// Wraps this tool in `layer`.
    fn layer<L: ToolLayer<Self>>(self, layer: L) -> L::Tool {
        layer.layer(self)
    }
}

impl<T: Tool> ToolLayerExt for T {}

/// Wraps every tool of a list in the same layer (each tool gets its own breaker, its own
/// timeout, …): for a toolset's tools or an MCP server's.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use dive_agent::layer::{Timeout, layer_each};
/// use dive_core::{FunctionTool, Tool, ToolError};
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Input {}
/// let tools: Vec<Arc<dyn Tool>> = vec![Arc::new(FunctionTool::new("a", "A.", |_: Input, _| async { Ok::<_, ToolError>("a") }))];
/// let wrapped = layer_each(tools, &Timeout::new(Duration::from_secs(30)));
/// assert_eq!(wrapped[0].name(), "a");
/// ```
pub fn layer_each<L>(tools: impl IntoIterator<Item = Arc<dyn Tool>>, layer: &L) -> Vec<Arc<dyn Tool>>
where
    L: ToolLayer<Arc<dyn Tool>>,
    L::Tool: 'static,
{
    tools.into_iter().map(|t| Arc::new(layer.layer(t)) as Arc<dyn Tool>).collect()
}

/// Forwards everything but `call` to the wrapped tool (the layers differ only in `call`).
macro_rules! forward_tool {
    () => {
        fn name(&self) -> &str {
            self.inner.name()
        }
        fn description(&self) -> &str {
            self.inner.description()
        }
        fn input_schema(&self) -> &serde_json::Value {
            self.inner.input_schema()
        }
        fn annotations(&self) -> &dive_core::ToolAnnotations {
            self.inner.annotations()
        }
        fn definition(&self) -> dive_core::ToolDefinition {
            self.inner.definition()
        }
        fn preview(&self, input: &serde_json::Value) -> Option<dive_core::ToolPreview> {
            self.inner.preview(input)
        }
        /// The layer runs on the shared input: [`Tool::call_shared`](dive_core::Tool::call_shared).
        fn call(
            &self,
            input: serde_json::Value,
            ctx: dive_core::ToolContext,
        ) -> dive_core::BoxFuture<'_, Result<dive_core::ToolResult, dive_core::ToolError>> {
            self.call_shared(dive_core::Input::from(input), ctx)
        }
    };
}
pub(crate) use forward_tool;

/// A duration as people say it: `30 s`, `1.5 s`, `250 ms`.
pub(crate) fn human(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(human(Duration::from_secs(30)), "30 s");
        assert_eq!(human(Duration::from_millis(250)), "250 ms");
        assert_eq!(human(Duration::from_millis(1500)), "1.5 s");
    }
}
