//! [`AgentTool`]: the `Agent` tool (`description`, `prompt`, `subagent_type`,
//! `run_in_background`), which runs a single-use subagent from the catalog, in the
//! foreground or in the background.

use std::path::PathBuf;
use std::sync::Arc;

use dive_core::{BoxFuture, SoftCancel, Tool, ToolContext, ToolError, ToolResult, Values};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::catalog::Catalog;
use crate::definition::AGENT_TOOL;
use crate::error::SubagentError;
use crate::factory::AgentFactory;
use crate::launch::{Launcher, Report};
use crate::runs::{RunHandle, RunKind, RunStatus, Runs};

#[derive(Debug, Deserialize)]
pub(crate) struct Input {
    pub(crate) description: String,
    pub(crate) prompt: String,
    pub(crate) subagent_type: Option<String>,
    #[serde(default)]
    pub(crate) run_in_background: bool,
    /// A model for this run instead of the definition's (a forked skill's `model`); never
    /// read from the model's call.
    #[serde(skip)]
    pub(crate) model: Option<String>,
    /// A reasoning effort for this run instead of the definition's (a forked skill's).
    #[serde(skip)]
    pub(crate) effort: Option<String>,
}

/// The `Agent` tool. Subagents it starts are single-use and never get the `Agent` tool
/// themselves; a subagent that stops early (its turn limit, an error, a cancel) returns its
/// partial answer and the reason. Cancelling the parent's turn (soft or hard) cancels a
/// foreground subagent; `TaskStop` cancels a background one.
///
/// ```
/// use dive_core::Tool;
/// use dive_subagent::{AgentTool, Catalog, DefaultFactory};
/// use dive_test::ScriptedModel;
/// let tool = AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(ScriptedModel::new([])));
/// assert_eq!(tool.name(), "Agent");
/// assert_eq!(tool.input_schema()["properties"]["subagent_type"]["enum"][1], "Explore");
/// ```
#[derive(Clone)]
pub struct AgentTool {
    launcher: Launcher,
    runs: Runs,
    description: String,
    schema: Value,
    run_values: Option<Arc<RunValuesFn>>,
}

/// Makes the values a subagent's run starts with from the parent's `Agent` call.
type RunValuesFn = dyn Fn(&ToolContext) -> Values + Send + Sync;

impl std::fmt::Debug for AgentTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentTool").field("types", &self.launcher.catalog.names()).finish_non_exhaustive()
    }
}

impl AgentTool {
    /// The tool over `catalog`, building subagents with `factory`; no parent tools yet.
    #[must_use]
    pub fn new(catalog: Catalog, factory: impl AgentFactory + 'static) -> Self {
        let launcher = Launcher {
            catalog: Arc::new(catalog),
            factory: Arc::new(factory),
            parent_tools: Vec::new(),
            repo: None,
        };
        let (description, schema) = describe(&launcher.catalog);
        Self { launcher, runs: Runs::new(), description, schema, run_values: None }
    }

    /// The parent's tools, which subagents inherit as their definitions allow (the `Agent`
    /// tool among them is always left out).
    #[must_use]
    pub fn with_parent_tools(mut self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        self.launcher.parent_tools = tools.into_iter().filter(|t| t.name() != AGENT_TOOL).collect();
        self
    }

    /// The tracker its runs are recorded in (share it with `TaskStop` and the delivery hook).
    #[must_use]
    pub fn with_runs(mut self, runs: Runs) -> Self {
        self.runs = runs;
        self
    }

    /// The repository `isolation: worktree` subagents get a worktree of (default: the
    /// current directory).
    #[must_use]
    pub fn with_repo(mut self, repo: impl Into<PathBuf>) -> Self {
        self.launcher.repo = Some(repo.into());
        self
    }

    /// The values each subagent's run starts with, made from the parent's `Agent` call: the
    /// place for trace context, so a subagent's spans are children of the parent's
    /// `execute_tool` (with dive-otel: `with_run_values(dive_otel::propagation::child_values)`).
    #[must_use]
    pub fn with_run_values(mut self, make: impl Fn(&ToolContext) -> Values + Send + Sync + 'static) -> Self {
        self.run_values = Some(Arc::new(make));
        self
    }

    /// Its runs.
    #[must_use]
    pub fn runs(&self) -> &Runs {
        &self.runs
    }

    /// The subagent types it can start (for an application's `/agents` listing).
    #[must_use]
    pub fn catalog(&self) -> &Catalog {
        &self.launcher.catalog
    }

    pub(crate) async fn run(&self, input: Input, ctx: ToolContext) -> Result<ToolResult, SubagentError> {
        let catalog = &self.launcher.catalog;
        let name = input.subagent_type.as_deref().unwrap_or("general-purpose");
        let Some(mut definition) = catalog.get(name).cloned() else {
            let known = catalog.names().into_iter().map(str::to_owned).collect();
            return Err(SubagentError::UnknownType { name: name.to_owned(), known });
        };
        if let Some(model) = input.model.as_deref() {
            definition.model = crate::definition::ModelChoice::parse(model);
        }
        if let Some(effort) = &input.effort {
            definition.effort = Some(effort.clone());
        }
        let background = input.run_in_background || definition.background;
        let label = format!("{} ({})", input.description, definition.name);
        let handle = self.runs.start(RunKind::Agent, label, background);
        let launcher = self.launcher.clone();
        let values = self.run_values.as_ref().map_or_else(Values::new, |make| make(&ctx));
        let run = {
            let handle = handle.clone();
            let soft = if background { SoftCancel::new() } else { ctx.cancel.child() };
            async move {
                let cancel = handle.token().clone();
                let report = launcher.run(&definition, input.prompt, values, soft, cancel).await;
                record(&handle, &report);
                report
            }
        };
        if background {
            tokio::spawn(run);
            return Ok(ToolResult::text(format!(
                "Started background agent {}: {}. Its result will be delivered in a later message; \
                 stop it with TaskStop.",
                handle.id(),
                input.description
            )));
        }
        // The run is a task of its own so that a hard cancel of the parent (which drops this
        // future) cancels the subagent's turn through its token and lets it close cleanly.
        let _cancel_on_drop = handle.token().clone().drop_guard();
        let report = tokio::spawn(run).await.unwrap_or_else(|e| Report {
            answer: String::new(),
            stopped: Some(format!("the subagent panicked: {e}")),
            usage: dive_core::Usage::default(),
        });
        Ok(ToolResult::Output(report.to_output()))
    }
}

fn record(handle: &RunHandle, report: &Report) {
    handle.add_usage(&report.usage);
    let status = match &report.stopped {
        None => RunStatus::Completed,
        Some(reason) if handle.token().is_cancelled() || reason.starts_with("canceled") => RunStatus::Stopped,
        Some(_) => RunStatus::Failed,
    };
    handle.finish(status, report.to_text());
}

fn describe(catalog: &Catalog) -> (String, Value) {
    let description = format!(
        "Launch a new agent to handle a complex, multi-step task on its own. Each agent type has its own \
         instructions and tools:\n{}\nGive it a short description (3-5 words) and a complete prompt: it sees \
         nothing of this conversation, and only its final message comes back to you. Set run_in_background \
         to keep working while it runs; its result is delivered to you when it finishes.",
        catalog.describe()
    );
    let schema = json!({
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": "A short (3-5 word) description of the task"},
            "prompt": {"type": "string", "description": "The task for the agent to perform"},
            "subagent_type": {
                "type": "string",
                "enum": catalog.names(),
                "description": "The type of specialized agent to use for this task"
            },
            "run_in_background": {
                "type": "boolean",
                "description": "Set to true to run this agent in the background; you are notified when it completes"
            }
        },
        "required": ["description", "prompt"],
        "additionalProperties": false
    });
    (description, schema)
}

impl Tool for AgentTool {
    fn name(&self) -> &str {
        AGENT_TOOL
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let input: Input = match serde_json::from_value(input) {
                Ok(input) => input,
                Err(e) => return Ok(ToolResult::error(format!("Invalid Agent input: {e}"))),
            };
            Ok(self.run(input, ctx).await.unwrap_or_else(|e| ToolResult::error(e.to_string())))
        })
    }
}
