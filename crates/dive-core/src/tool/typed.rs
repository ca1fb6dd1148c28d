//! Typed tools: a [`TypedTool`] declares its input type; [`TypedToolAdapter`] makes it a
//! dyn [`Tool`] with a schema derived from that type.

use std::future::Future;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Tool;
use super::annotations::ToolAnnotations;
use super::context::ToolContext;
use super::error::ToolError;
use super::result::{ToolPreview, ToolResult};
use super::schema::schema_for;
use crate::future::BoxFuture;
use crate::message::Input;

/// A tool whose input is a Rust type. Wrap it with [`TypedToolAdapter::new`] (or
/// [`IntoTool::into_tool`]) to get an `Arc<dyn Tool>`.
///
/// ```
/// use dive_core::{IntoTool, ToolContext, ToolError, ToolResult, TypedTool};
///
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct AddInput { a: i64, b: i64 }
///
/// struct Add;
/// impl TypedTool for Add {
///     type Input = AddInput;
///     fn name(&self) -> &str { "add" }
///     fn description(&self) -> &str { "Adds two integers." }
///     async fn call(&self, input: AddInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
///         Ok(ToolResult::text((input.a + input.b).to_string()))
///     }
/// }
///
/// let tool = Add.into_tool();
/// assert_eq!(tool.input_schema()["required"], serde_json::json!(["a", "b"]));
/// ```
pub trait TypedTool: Send + Sync + 'static {
    /// The input type; its schema is the tool's input schema.
    type Input: DeserializeOwned + JsonSchema + Send + 'static;

    /// The tool name.
    fn name(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// Behaviour hints.
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::default()
    }

    /// A preview of a call before it runs.
    fn preview(&self, _input: &Self::Input) -> Option<ToolPreview> {
        None
    }

    /// Runs the tool.
    fn call(
        &self,
        input: Self::Input,
        ctx: ToolContext,
    ) -> impl Future<Output = Result<ToolResult, ToolError>> + Send;
}

/// Adapts a [`TypedTool`] to [`Tool`]: derives the schema once, decodes input (null or
/// empty becomes `{}`), and turns a decode failure into an error result the model can fix.
pub struct TypedToolAdapter<T: TypedTool> {
    tool: T,
    schema: Value,
    annotations: ToolAnnotations,
}

impl<T: TypedTool> std::fmt::Debug for TypedToolAdapter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedToolAdapter").field("name", &self.tool.name()).finish_non_exhaustive()
    }
}

impl<T: TypedTool> TypedToolAdapter<T> {
    /// Wraps a typed tool.
    #[must_use]
    pub fn new(tool: T) -> Self {
        let annotations = tool.annotations();
        Self { tool, schema: schema_for::<T::Input>(), annotations }
    }

    /// The wrapped tool.
    #[must_use]
    pub fn inner(&self) -> &T {
        &self.tool
    }

    /// Replaces the derived schema (for hand-tuned descriptions).
    #[must_use]
    pub fn with_schema(mut self, schema: Value) -> Self {
        self.schema = schema;
        self
    }
}

/// Decodes tool input, treating `null` as `{}`.
///
/// # Errors
/// The serde error, phrased for the model.
pub fn decode_input<T: DeserializeOwned>(tool: &str, input: Value) -> Result<T, String> {
    decode_shared(tool, &input)
}

/// [`decode_input`] reading the value where it lies: the typed tool's strings are copied out
/// of it, and no copy of the value itself is made.
fn decode_shared<T: DeserializeOwned>(tool: &str, input: &Value) -> Result<T, String> {
    read_shared(input)
        .map_err(|e| format!("Invalid input for tool {tool}: {e}. Fix the input and call the tool again."))
}

/// The input read where it lies, `null` as `{}`.
fn read_shared<T: DeserializeOwned>(input: &Value) -> serde_json::Result<T> {
    if input.is_null() {
        T::deserialize(&Value::Object(serde_json::Map::new()))
    } else {
        T::deserialize(input)
    }
}

impl<T: TypedTool> Tool for TypedToolAdapter<T> {
    fn name(&self) -> &str {
        self.tool.name()
    }

    fn description(&self) -> &str {
        self.tool.description()
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn annotations(&self) -> &ToolAnnotations {
        &self.annotations
    }

    fn preview(&self, input: &Value) -> Option<ToolPreview> {
        // Read from the borrowed input: no copy is made for a tool without a preview.
        self.tool.preview(&read_shared::<T::Input>(input).ok()?)
    }

    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        self.call_shared(Input::from(input), ctx)
    }

    fn call_shared(&self, input: Input, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let decoded = decode_shared::<T::Input>(self.tool.name(), &input);
            drop(input);
            match decoded {
                Ok(decoded) => self.tool.call(decoded, ctx).await,
                Err(message) => Ok(ToolResult::error(message)),
            }
        })
    }
}

/// Converts typed tools into `Arc<dyn Tool>`.
pub trait IntoTool {
    /// The dyn tool.
    fn into_tool(self) -> Arc<dyn Tool>;
}

impl<T: TypedTool> IntoTool for T {
    fn into_tool(self) -> Arc<dyn Tool> {
        Arc::new(TypedToolAdapter::new(self))
    }
}
