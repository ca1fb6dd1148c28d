//! [`AskUserTool`] (`AskUserQuestion`): asks the person a question — confirm, select,
//! multiselect or free input — through a [`UserDialog`], or by suspending the turn so an
//! application can answer later.

use std::sync::Arc;

use dive_core::{
    BoxFuture, SuspendRequest, ToolAnnotations, ToolContext, ToolError, ToolPreview, ToolResult, TypedTool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The kind of question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum QuestionType {
    /// Yes or no.
    Confirm,
    /// One of `options`.
    Select,
    /// Several of `options`.
    Multiselect,
    /// Free text.
    #[default]
    Input,
}

/// A choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
#[non_exhaustive]
pub enum QuestionOption {
    /// Just a label.
    Label(String),
    /// A label with a description.
    Described {
        /// The label (also the value answered).
        label: String,
        /// More detail.
        #[serde(default)]
        description: Option<String>,
    },
}

impl QuestionOption {
    /// The label.
    #[must_use]
    pub fn label(&self) -> &str {
        match self {
            Self::Label(l) | Self::Described { label: l, .. } => l,
        }
    }
}

/// Input of [`AskUserTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AskUserInput {
    /// The question.
    pub question: String,
    /// `confirm`, `select`, `multiselect` or `input` (default).
    #[serde(default, rename = "type")]
    pub kind: QuestionType,
    /// Choices for select and multiselect.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<QuestionOption>,
    /// The default answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Multiselect: fewest choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_select: Option<usize>,
    /// Multiselect: most choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_select: Option<usize>,
    /// Input: allow several lines.
    #[serde(default)]
    pub multiline: bool,
}

/// The answer, returned to the model as JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AskUserOutput {
    /// Confirm: the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<bool>,
    /// Select / multiselect: the chosen labels.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<String>,
    /// Input: the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The person declined to answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub canceled: bool,
}

impl AskUserOutput {
    /// A yes/no answer.
    #[must_use]
    pub fn confirmed(yes: bool) -> Self {
        Self { confirmed: Some(yes), ..Self::default() }
    }

    /// Chosen labels.
    #[must_use]
    pub fn selected(labels: Vec<String>) -> Self {
        Self { selected: labels, ..Self::default() }
    }

    /// Free text.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self { text: Some(text.into()), ..Self::default() }
    }

    /// No answer.
    #[must_use]
    pub fn canceled() -> Self {
        Self { canceled: true, ..Self::default() }
    }
}

/// Puts a question to a person and waits for the answer.
pub trait UserDialog: Send + Sync {
    /// Asks.
    fn ask<'a>(&'a self, question: &'a AskUserInput) -> BoxFuture<'a, AskUserOutput>;
}

/// How the tool gets answers.
#[derive(Clone)]
enum Mode {
    Sync(Arc<dyn UserDialog>),
    Suspend,
}

/// Asks the person a question.
#[derive(Clone)]
pub struct AskUserTool {
    mode: Mode,
}

impl std::fmt::Debug for AskUserTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mode = if matches!(self.mode, Mode::Suspend) { "suspend" } else { "dialog" };
        f.debug_struct("AskUserTool").field("mode", &mode).finish()
    }
}

impl AskUserTool {
    /// Answers through `dialog`, within the call.
    #[must_use]
    pub fn with_dialog(dialog: Arc<dyn UserDialog>) -> Self {
        Self { mode: Mode::Sync(dialog) }
    }

    /// Suspends the turn with the question in the suspension's metadata (`type`,
    /// `options`, …); the application resumes it with an [`AskUserOutput`] as the result.
    #[must_use]
    pub fn suspending() -> Self {
        Self { mode: Mode::Suspend }
    }
}

/// Checks the question is well formed; the error is for the model.
fn validate(q: &AskUserInput) -> Result<(), String> {
    if q.question.trim().is_empty() {
        return Err("the question is empty".into());
    }
    let needs_options = matches!(q.kind, QuestionType::Select | QuestionType::Multiselect);
    if needs_options && q.options.len() < 2 {
        return Err("select and multiselect questions need at least two options".into());
    }
    if let (Some(min), Some(max)) = (q.min_select, q.max_select)
        && min > max
    {
        return Err("min_select is larger than max_select".into());
    }
    Ok(())
}

/// Checks an answer against the question (labels exist, selection counts hold).
fn check_answer(q: &AskUserInput, a: &AskUserOutput) -> Result<(), String> {
    if a.canceled {
        return Ok(());
    }
    let labels: Vec<&str> = q.options.iter().map(QuestionOption::label).collect();
    if let Some(bad) = a.selected.iter().find(|s| !labels.contains(&s.as_str())) {
        return Err(format!("the answer {bad:?} is not one of the options"));
    }
    let n = a.selected.len();
    match q.kind {
        QuestionType::Select if n != 1 => Err("a select question needs exactly one choice".into()),
        QuestionType::Multiselect
            if q.min_select.is_some_and(|m| n < m) || q.max_select.is_some_and(|m| n > m) =>
        {
            Err(format!("{n} choices is outside min_select/max_select"))
        }
        _ => Ok(()),
    }
}

impl TypedTool for AskUserTool {
    type Input = AskUserInput;

    fn name(&self) -> &str {
        "AskUserQuestion"
    }

    fn description(&self) -> &str {
        "Asks the user a question when you need a decision or information only they have: confirm \
         (yes/no), select (one option), multiselect (several, within min_select/max_select) or input \
         (free text). The answer comes back as JSON."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only()
            .with_title("Ask the user")
            .with_open_world(false)
            .with_sequential_only(true)
    }

    fn preview(&self, input: &AskUserInput) -> Option<ToolPreview> {
        Some(ToolPreview::new(format!("Ask: {}", input.question)))
    }

    async fn call(&self, input: AskUserInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        if let Err(e) = validate(&input) {
            return Ok(ToolResult::error(e));
        }
        match &self.mode {
            Mode::Suspend => {
                let metadata = match serde_json::to_value(&input)? {
                    Value::Object(map) => map,
                    _ => Map::new(),
                };
                Ok(ToolResult::suspend(SuspendRequest::new(input.question.clone()).with_metadata(metadata)))
            }
            Mode::Sync(dialog) => {
                let answer = dialog.ask(&input).await;
                if let Err(e) = check_answer(&input, &answer) {
                    return Ok(ToolResult::error(e));
                }
                Ok(ToolResult::text(serde_json::to_string(&answer)?))
            }
        }
    }
}
