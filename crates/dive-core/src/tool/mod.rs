//! Tools: the dyn-compatible [`Tool`] trait, typed tools, function tools, results, previews,
//! annotations and [`Toolset`]s.
//!
//! Three ways to write a tool, from most to least control: implement [`Tool`] on your type;
//! implement [`TypedTool`] (input decoded and schema derived for you); or
//! [`FunctionTool::new`] with an async closure. A toolset a provider defines (computer use,
//! the text editor and bash tool types) is a [`DeclaredToolset`]: see [`ToolDeclaration`].

mod annotations;
mod context;
mod declared;
mod error;
mod function;
mod result;
mod schema;
mod typed;

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use annotations::ToolAnnotations;
pub use context::{ToolContext, ToolEventSink};
pub use declared::{DeclarationError, DeclaredToolset, ToolDeclaration};
pub use error::ToolError;
pub use function::FunctionTool;
pub use result::{
    BackgroundTask, IntoToolResult, SuspendReason, SuspendRequest, ToolOutput, ToolPreview, ToolProgress,
    ToolResult,
};
pub use schema::{empty_object_schema, schema_for};
pub use typed::{IntoTool, TypedTool, TypedToolAdapter, decode_input};

use crate::future::BoxFuture;
use crate::message::Input;
use crate::run::RunInfo;

static EMPTY_ANNOTATIONS: ToolAnnotations = ToolAnnotations::EMPTY;

/// A tool the model can call. Dyn-compatible: agents hold `Vec<Arc<dyn Tool>>`.
///
/// ```
/// use std::sync::Arc;
/// use dive_core::{BoxFuture, Tool, ToolContext, ToolError, ToolResult};
/// use serde_json::{json, Value};
///
/// struct Clock { schema: Value }
/// impl Tool for Clock {
///     fn name(&self) -> &str { "clock" }
///     fn description(&self) -> &str { "The current time." }
///     fn input_schema(&self) -> &Value { &self.schema }
///     fn call(&self, _input: Value, _ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
///         Box::pin(async { Ok(ToolResult::text("12:00")) })
///     }
/// }
/// let tools: Vec<Arc<dyn Tool>> = vec![Arc::new(Clock { schema: dive_core::empty_object_schema() })];
/// assert_eq!(tools[0].definition().name, "clock");
/// ```
pub trait Tool: Send + Sync {
    /// The name the model calls.
    fn name(&self) -> &str;

    /// What the tool does, for the model.
    fn description(&self) -> &str;

    /// The JSON Schema of the input (an object schema).
    fn input_schema(&self) -> &Value;

    /// Behaviour hints.
    fn annotations(&self) -> &ToolAnnotations {
        &EMPTY_ANNOTATIONS
    }

    /// What is sent to the provider. Override for provider-native tools
    /// (see [`ToolDefinition::native`]).
    fn definition(&self) -> ToolDefinition {
        ToolDefinition::new(self.name(), self.description(), self.input_schema().clone())
    }

    /// A preview of a call, computed before it runs (permission prompts, UIs).
    fn preview(&self, _input: &Value) -> Option<ToolPreview> {
        None
    }

    /// Runs the tool. Return `Err` for failures; input the model got wrong is better
    /// returned as `Ok(ToolResult::error(..))` with a hint to fix it.
    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>>;

    /// Runs the tool on a call's [`Input`] as the call holds it, shared rather than copied.
    /// This is what the agent calls. The default gives [`call`](Self::call) its own copy;
    /// override it when the tool reads its input in place, as [`TypedToolAdapter`] does
    /// (it decodes the shared value, so no copy of the input is made or dropped).
    ///
    /// ```
    /// use dive_core::{Input, IntoTool, Tool, ToolContext, ToolError, ToolResult, TypedTool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Name { name: String }
    /// struct Greet;
    /// impl TypedTool for Greet {
    ///     type Input = Name;
    ///     fn name(&self) -> &str { "greet" }
    ///     fn description(&self) -> &str { "Greets someone." }
    ///     async fn call(&self, input: Name, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
    ///         Ok(ToolResult::text(format!("Hello, {}!", input.name)))
    ///     }
    /// }
    /// # futures::executor::block_on(async {
    /// let input = Input::from(serde_json::json!({"name": "Ada"}));
    /// let result = Greet.into_tool().call_shared(input.clone(), ToolContext::detached("greet")).await;
    /// let Ok(ToolResult::Output(output)) = result else { panic!("no output") };
    /// assert_eq!(output.text_content(), "Hello, Ada!");
    /// assert_eq!(input["name"], "Ada"); // still the caller's, unchanged
    /// # });
    /// ```
    fn call_shared(&self, input: Input, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        self.call(input.into_value(), ctx)
    }
}

/// A tool shared through an `Arc` is a tool itself (so builders take `impl Tool`, and an
/// `Arc<dyn Tool>` still fits).
impl<T: Tool + ?Sized> Tool for Arc<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn description(&self) -> &str {
        (**self).description()
    }
    fn input_schema(&self) -> &Value {
        (**self).input_schema()
    }
    fn annotations(&self) -> &ToolAnnotations {
        (**self).annotations()
    }
    fn definition(&self) -> ToolDefinition {
        (**self).definition()
    }
    fn preview(&self, input: &Value) -> Option<ToolPreview> {
        (**self).preview(input)
    }
    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        (**self).call(input, ctx)
    }
    fn call_shared(&self, input: Input, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        (**self).call_shared(input, ctx)
    }
}

/// A tool as declared to a provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolDefinition {
    /// Name.
    pub name: String,
    /// Description.
    #[serde(default)]
    pub description: String,
    /// Input JSON Schema.
    pub input_schema: Value,
    /// For provider-native (server) tools: the provider's tool type, e.g.
    /// `web_search_20250305`; `None` for ordinary function tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_type: Option<String>,
    /// Provider-native tool parameters (e.g. `max_uses`, `allowed_domains`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub native_params: Map<String, Value>,
    /// Strict schema adherence (OpenAI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

impl ToolDefinition {
    /// A function tool definition.
    #[must_use]
    pub fn new(name: impl Into<String>, description: impl Into<String>, input_schema: Value) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema,
            native_type: None,
            native_params: Map::new(),
            strict: None,
        }
    }

    /// A provider-native tool (run by the provider), e.g.
    /// `ToolDefinition::native("web_search_20250305", "web_search", params)`.
    #[must_use]
    pub fn native(
        native_type: impl Into<String>,
        name: impl Into<String>,
        params: Map<String, Value>,
    ) -> Self {
        Self {
            native_type: Some(native_type.into()),
            native_params: params,
            ..Self::new(name, "", empty_object_schema())
        }
    }

    /// Whether the provider runs this tool.
    #[must_use]
    pub fn is_native(&self) -> bool {
        self.native_type.is_some()
    }
}

/// A dynamic group of tools, resolved before every model call (MCP servers,
/// permission-filtered or context-dependent tools). A resolution error ends the turn.
pub trait Toolset: Send + Sync {
    /// The toolset name.
    fn name(&self) -> &str;

    /// The tools available now.
    fn tools<'a>(&'a self, run: &'a RunInfo) -> BoxFuture<'a, Result<Vec<Arc<dyn Tool>>, ToolError>>;

    /// For a toolset a provider defines (a *tool declarer*), what it declares: its tools are
    /// then its members, left out of the request's custom tools while this toolset is present
    /// and sent by the provider as its own entry instead (see [`ToolDeclaration`] and
    /// [`DeclaredToolset`]). `None`, the default, for an ordinary toolset.
    fn declaration(&self) -> Option<Arc<ToolDeclaration>> {
        None
    }
}

/// A toolset shared through an `Arc` is a toolset itself.
impl<T: Toolset + ?Sized> Toolset for Arc<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn tools<'a>(&'a self, run: &'a RunInfo) -> BoxFuture<'a, Result<Vec<Arc<dyn Tool>>, ToolError>> {
        (**self).tools(run)
    }
    fn declaration(&self) -> Option<Arc<ToolDeclaration>> {
        (**self).declaration()
    }
}

/// A fixed toolset.
#[derive(Clone)]
pub struct StaticToolset {
    name: String,
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for StaticToolset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
        f.debug_struct("StaticToolset").field("name", &self.name).field("tools", &names).finish()
    }
}

impl StaticToolset {
    /// A named fixed set of tools.
    #[must_use]
    pub fn new(name: impl Into<String>, tools: Vec<Arc<dyn Tool>>) -> Self {
        Self { name: name.into(), tools }
    }
}

impl Toolset for StaticToolset {
    fn name(&self) -> &str {
        &self.name
    }

    fn tools<'a>(&'a self, _run: &'a RunInfo) -> BoxFuture<'a, Result<Vec<Arc<dyn Tool>>, ToolError>> {
        let tools = self.tools.clone();
        Box::pin(async move { Ok(tools) })
    }
}
