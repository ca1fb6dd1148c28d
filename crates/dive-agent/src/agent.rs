//! [`Agent`]: a model, a system prompt, tools and hooks, run one turn at a time.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use dive_core::{Hooks, Llm, Response, Session, Tool, Toolset, Tracer};

use crate::builder::AgentBuilder;
use crate::error::AgentError;
use crate::options::RunOptions;
use crate::settings::ModelSettings;
use crate::stream::ResponseStream;
use crate::validate::SchemaCache;

/// Execution ownership of sessions across processes: while a run holds a session's claim (a
/// lease renewed while the run lasts), another owner cannot claim it until it is released or lapses.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClaimOptions {
    /// Who claims (unique per process, e.g. host + pid).
    pub owner: String,
    /// Lease length; renewed every third of it while the run lasts.
    pub ttl: Duration,
}

impl ClaimOptions {
    /// Claims as `owner` with a `ttl` lease.
    #[must_use]
    pub fn new(owner: impl Into<String>, ttl: Duration) -> Self {
        Self { owner: owner.into(), ttl }
    }
}

/// Everything an agent is configured with; shared by every run.
pub(crate) struct AgentInner {
    /// Shared with every run's `RunInfo` (no copy a run).
    pub(crate) name: Arc<str>,
    pub(crate) id: Arc<str>,
    pub(crate) description: String,
    pub(crate) version: String,
    pub(crate) model: RwLock<Arc<dyn Llm>>,
    pub(crate) system_prompt: RwLock<String>,
    pub(crate) rules: Vec<String>,
    pub(crate) tools: Vec<Arc<dyn Tool>>,
    pub(crate) toolsets: Vec<Arc<dyn Toolset>>,
    pub(crate) hooks: Hooks,
    pub(crate) settings: ModelSettings,
    pub(crate) tracer: Arc<dyn Tracer>,
    pub(crate) session: Option<Arc<dyn Session>>,
    pub(crate) response_timeout: Option<Duration>,
    pub(crate) tool_iteration_limit: u32,
    pub(crate) parallel_tool_execution: bool,
    pub(crate) pause_turn_limit: u32,
    pub(crate) save_timeout: Duration,
    pub(crate) drop_partial_text: bool,
    pub(crate) require_reconcile: bool,
    pub(crate) discard_incomplete: bool,
    pub(crate) checkpoint_steps: bool,
    pub(crate) claim: Option<ClaimOptions>,
    pub(crate) seams: crate::seams::Seams,
    pub(crate) schemas: SchemaCache,
    /// The static tools, indexed once.
    pub(crate) tool_index: Arc<crate::run::ToolIndex>,
    pub(crate) cache_key: String,
    /// Working-set compaction (none: the loop never estimates or compacts).
    pub(crate) compaction: Option<crate::compaction::CompactionPolicy>,
}

/// An agent: a model, a system prompt, tools, toolsets and hooks. Cheap to clone (clones share
/// one configuration); safe to run concurrently on different sessions.
///
/// ```
/// # tokio_test_block_on(async {
/// use dive_agent::Agent;
/// use dive_test::ScriptedModel;
/// use dive_core::ModelResponse;
///
/// let model = ScriptedModel::new([ModelResponse::text("Hello!")]);
/// let agent = Agent::builder().name("greeter").model(model).build()?;
/// let response = agent.run("Hi").await?;
/// assert_eq!(response.output_text(), "Hello!");
/// # Ok::<_, dive_agent::AgentError>(())
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Clone)]
pub struct Agent {
    pub(crate) inner: Arc<AgentInner>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tools: Vec<&str> = self.inner.tools.iter().map(|t| t.name()).collect();
        f.debug_struct("Agent")
            .field("name", &self.inner.name)
            .field("id", &self.inner.id)
            .field("model", &self.model().model())
            .field("tools", &tools)
            .field("toolsets", &self.inner.toolsets.len())
            .field("hooks", &self.inner.hooks)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// Starts building an agent.
    pub fn builder() -> AgentBuilder {
        AgentBuilder::new()
    }

    /// The agent's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The agent's id (generated when not set).
    #[must_use]
    pub fn id(&self) -> &str {
        &self.inner.id
    }

    /// The agent's description.
    #[must_use]
    pub fn description(&self) -> &str {
        &self.inner.description
    }

    /// The agent's version.
    #[must_use]
    pub fn version(&self) -> &str {
        &self.inner.version
    }

    /// The static tools (extension tools included; toolsets are resolved per model call).
    #[must_use]
    pub fn tools(&self) -> &[Arc<dyn Tool>] {
        &self.inner.tools
    }

    /// Whether the agent has static tools or toolsets.
    #[must_use]
    pub fn has_tools(&self) -> bool {
        !self.inner.tools.is_empty() || !self.inner.toolsets.is_empty()
    }

    /// The current model.
    #[must_use]
    pub fn model(&self) -> Arc<dyn Llm> {
        Arc::clone(&self.inner.model.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Swaps the model. Runs already started keep the model they started with.
    pub fn set_model(&self, model: Arc<dyn Llm>) {
        *self.inner.model.write().unwrap_or_else(PoisonError::into_inner) = model;
    }

    /// The base system prompt (without extension rules and the reminder priming rule).
    #[must_use]
    pub fn system_prompt(&self) -> String {
        self.inner.system_prompt.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Swaps the base system prompt. Runs already started keep the prompt they started with.
    pub fn set_system_prompt(&self, prompt: impl Into<String>) {
        *self.inner.system_prompt.write().unwrap_or_else(PoisonError::into_inner) = prompt.into();
    }

    /// The system prompt as sent: the base prompt, then extension rules and, with any
    /// extension, [`REMINDER_PRIMING_RULE`](crate::REMINDER_PRIMING_RULE) (extensions add
    /// reminders mid-run, and the prefix stays stable). Without extensions a request that holds
    /// reminders gets the rule after the rest.
    #[must_use]
    pub fn effective_system_prompt(&self) -> String {
        if self.inner.rules.is_empty() {
            return self.system_prompt();
        }
        let mut parts = vec![self.system_prompt()];
        parts.extend(self.inner.rules.iter().cloned());
        parts.retain(|p| !p.trim().is_empty());
        parts.join("\n\n")
    }

    /// Runs one turn to its end and returns the response.
    ///
    /// # Errors
    /// Before the turn starts (session load, lock, SessionStart hooks, invalid input) an error
    /// with no response; after it, [`AgentError::Turn`] carrying the response of the turn that
    /// ended early (cancelled, model failure, hook abort, fatal tool error, save failure…).
    pub async fn run(&self, options: impl Into<RunOptions>) -> Result<Response, AgentError> {
        crate::run::run(self.clone(), options.into(), None).await.map(|response| *response)
    }

    /// Runs one turn and streams every item as it happens, raw model events included. The
    /// stream ends when the turn ends; [`ResponseStream::finish`] then gives the response.
    /// Dropping the stream cancels the run.
    #[must_use]
    pub fn stream(&self, options: impl Into<RunOptions>) -> ResponseStream {
        ResponseStream::start(self.clone(), options.into())
    }
}
