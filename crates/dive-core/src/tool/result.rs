//! What a tool call produces: [`ToolResult`] (content, suspension or background task).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::future::BoxFuture;
use crate::message::Content;
use crate::message::content::join_text;

/// The content of a finished tool call, sent back to the model.
///
/// ```
/// use dive_core::ToolOutput;
/// let out = ToolOutput::text("42 files").with_display("**42** files");
/// assert_eq!(out.text_content(), "42 files");
/// assert!(!out.is_error);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolOutput {
    /// Blocks for the model (text, images, documents).
    pub content: crate::Blocks,
    /// The call failed; the model sees the content as an error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Markdown for people (UIs); never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    /// Model usage the call itself incurred (a subagent's model calls): the engine moves it to
    /// the call's [`ToolCallResult::usage`](crate::ToolCallResult::usage) and adds it to the
    /// turn's usage. Never sent to the model. Boxed: most calls have none, and every output
    /// and call result would otherwise carry room for one.
    #[serde(skip)]
    pub usage: Option<Box<crate::Usage>>,
    /// Attributes for the call's trace span that only the tool knows: the skill a `Skill`
    /// call loaded (`gen_ai.skill.name`), the exit code of a command it ran
    /// (`process.exit.code`). Tracers add them to the `execute_tool` span; never sent to the
    /// model, never saved.
    #[serde(skip)]
    pub span_attributes: Vec<(&'static str, Value)>,
}

impl ToolOutput {
    /// Output with these blocks.
    #[must_use]
    pub fn new(content: Vec<Content>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            display: None,
            usage: None,
            span_attributes: Vec::new(),
        }
    }

    /// Text output.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![Content::text(text)])
    }

    /// An error the model can read and correct.
    #[must_use]
    pub fn error(text: impl Into<String>) -> Self {
        Self { is_error: true, ..Self::text(text) }
    }

    /// Sets the display text.
    #[must_use]
    pub fn with_display(mut self, display: impl Into<String>) -> Self {
        self.display = Some(display.into());
        self
    }

    /// Reports the model usage the call incurred (a subagent's), so the turn's usage and cost
    /// include it.
    ///
    /// ```
    /// use dive_core::{ToolOutput, Usage};
    /// let out = ToolOutput::text("answer").with_usage(Usage::new(120, 30));
    /// assert_eq!(out.usage.unwrap().output_tokens, 30);
    /// ```
    #[must_use]
    pub fn with_usage(mut self, usage: crate::Usage) -> Self {
        self.usage = Some(Box::new(usage));
        self
    }

    /// Adds an attribute for the call's trace span (see
    /// [`span_attributes`](Self::span_attributes)).
    ///
    /// ```
    /// use dive_core::ToolOutput;
    /// let out = ToolOutput::text("loaded").with_span_attribute("gen_ai.skill.name", "pdf");
    /// assert_eq!(out.span_attributes, [("gen_ai.skill.name", serde_json::json!("pdf"))]);
    /// ```
    #[must_use]
    pub fn with_span_attribute(mut self, key: &'static str, value: impl Into<Value>) -> Self {
        self.span_attributes.push((key, value.into()));
        self
    }

    /// The text blocks joined by newlines.
    #[must_use]
    pub fn text_content(&self) -> String {
        join_text(&self.content, "\n")
    }
}

/// Why a tool suspended the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SuspendReason {
    /// A person must answer.
    #[default]
    InputRequired,
    /// A person must authenticate.
    AuthRequired,
}

/// A tool asks to pause the turn until an application supplies its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SuspendRequest {
    /// What to ask.
    pub prompt: String,
    /// Why.
    #[serde(default)]
    pub reason: SuspendReason,
    /// Anything the application needs to answer (question options, auth URL, …).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl SuspendRequest {
    /// A request for input.
    #[must_use]
    pub fn new(prompt: impl Into<String>) -> Self {
        Self { prompt: prompt.into(), reason: SuspendReason::InputRequired, metadata: Map::new() }
    }

    /// Sets the reason.
    #[must_use]
    pub fn with_reason(mut self, reason: SuspendReason) -> Self {
        self.reason = reason;
        self
    }

    /// Sets the metadata.
    #[must_use]
    pub fn with_metadata(mut self, metadata: Map<String, Value>) -> Self {
        self.metadata = metadata;
        self
    }
}

/// Work a tool continues in the background; the model is told the task started and gets
/// the result on a later call.
pub struct BackgroundTask {
    /// What the task does.
    pub description: String,
    /// The work. It outlives the tool batch, so it must own what it uses.
    pub future: BoxFuture<'static, ToolOutput>,
}

impl fmt::Debug for BackgroundTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BackgroundTask").field("description", &self.description).finish_non_exhaustive()
    }
}

/// What a tool call returns: exactly one of content, a suspension or a background task.
#[derive(Debug)]
#[non_exhaustive]
pub enum ToolResult {
    /// Finished with content.
    Output(ToolOutput),
    /// Pause the turn for an external answer.
    Suspend(SuspendRequest),
    /// Continue in the background.
    Background(BackgroundTask),
}

impl ToolResult {
    /// Text output.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self::Output(ToolOutput::text(text))
    }

    /// An error result the model can correct.
    #[must_use]
    pub fn error(text: impl Into<String>) -> Self {
        Self::Output(ToolOutput::error(text))
    }

    /// A suspension.
    #[must_use]
    pub fn suspend(request: SuspendRequest) -> Self {
        Self::Suspend(request)
    }

    /// A background task.
    pub fn background(
        description: impl Into<String>,
        work: impl std::future::Future<Output = ToolOutput> + Send + 'static,
    ) -> Self {
        Self::Background(BackgroundTask { description: description.into(), future: Box::pin(work) })
    }
}

impl From<ToolOutput> for ToolResult {
    fn from(output: ToolOutput) -> Self {
        Self::Output(output)
    }
}

/// Values a function tool may return.
pub trait IntoToolResult {
    /// Converts into a result.
    fn into_tool_result(self) -> ToolResult;
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> ToolResult {
        self
    }
}

impl IntoToolResult for ToolOutput {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::Output(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }
}

impl IntoToolResult for Value {
    fn into_tool_result(self) -> ToolResult {
        match self {
            Value::String(s) => ToolResult::text(s),
            other => ToolResult::text(other.to_string()),
        }
    }
}

/// A short description of a call, computed before it runs (for permission prompts and UIs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolPreview {
    /// One line, e.g. `Read src/main.rs`.
    pub summary: String,
    /// More detail (a diff, a command), Markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
}

impl ToolPreview {
    /// A one-line preview.
    #[must_use]
    pub fn new(summary: impl Into<String>) -> Self {
        Self { summary: summary.into(), details: None }
    }

    /// Sets the details.
    #[must_use]
    pub fn with_details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(details.into());
        self
    }
}

/// A structured progress snapshot reported by a running tool (latest wins).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolProgress {
    /// Text for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    /// Fraction done, 0.0–1.0, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fraction: Option<f64>,
    /// Anything else.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

impl ToolProgress {
    /// A progress message.
    #[must_use]
    pub fn message(display: impl Into<String>) -> Self {
        Self { display: Some(display.into()), ..Self::default() }
    }
}
