//! [`FunctionTool`]: a tool from an async closure.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Tool;
use super::annotations::ToolAnnotations;
use super::context::ToolContext;
use super::error::ToolError;
use super::result::{IntoToolResult, ToolResult};
use super::schema::schema_for;
use super::typed::decode_input;
use crate::future::BoxFuture;

type CallFn = dyn Fn(Value, ToolContext) -> BoxFuture<'static, Result<ToolResult, ToolError>> + Send + Sync;

/// A tool built from an async closure over a typed input.
///
/// ```
/// use dive_core::{FunctionTool, Tool, ToolContext};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Input { city: String }
///
/// let weather = FunctionTool::new("weather", "Current weather for a city.", |input: Input, _ctx| async move {
///     Ok::<_, dive_core::ToolError>(format!("Sunny in {}", input.city))
/// });
/// assert_eq!(weather.name(), "weather");
/// # futures::executor::block_on(async {
/// let out = weather.call(serde_json::json!({"city": "Oslo"}), ToolContext::detached("weather")).await.unwrap();
/// # let dive_core::ToolResult::Output(out) = out else { panic!() };
/// # assert_eq!(out.text_content(), "Sunny in Oslo");
/// # });
/// ```
#[derive(Clone)]
pub struct FunctionTool {
    name: String,
    description: String,
    schema: Value,
    annotations: ToolAnnotations,
    call: Arc<CallFn>,
}

impl std::fmt::Debug for FunctionTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FunctionTool").field("name", &self.name).finish_non_exhaustive()
    }
}

impl FunctionTool {
    /// A tool named `name` that decodes its input as `I` and runs `f`.
    pub fn new<I, F, Fut, R>(name: impl Into<String>, description: impl Into<String>, f: F) -> Self
    where
        I: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(I, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ToolError>> + Send + 'static,
        R: IntoToolResult,
    {
        let name = name.into();
        let tool_name = name.clone();
        let call =
            move |input: Value, ctx: ToolContext| -> BoxFuture<'static, Result<ToolResult, ToolError>> {
                match decode_input::<I>(&tool_name, input) {
                    Ok(decoded) => {
                        let fut = f(decoded, ctx);
                        Box::pin(async move { fut.await.map(IntoToolResult::into_tool_result) })
                    }
                    Err(message) => Box::pin(async move { Ok(ToolResult::error(message)) }),
                }
            };
        Self {
            name,
            description: description.into(),
            schema: schema_for::<I>(),
            annotations: ToolAnnotations::default(),
            call: Arc::new(call),
        }
    }

    /// Sets the annotations.
    #[must_use]
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Replaces the derived schema.
    #[must_use]
    pub fn with_schema(mut self, schema: Value) -> Self {
        self.schema = schema;
        self
    }
}

impl Tool for FunctionTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }

    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        (self.call)(input, ctx)
    }
}
