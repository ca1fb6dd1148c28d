//! [`AgentBuilder`]: every option an agent takes, checked once when it is built.

use std::collections::HashSet;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use dive_core::{Extension, Hooks, IntoTool, Llm, NopTracer, Session, Tool, Toolset, Tracer};

use crate::agent::{Agent, AgentInner, ClaimOptions};
use crate::error::AgentError;
use crate::settings::ModelSettings;
use crate::validate::SchemaCache;

/// `value` itself when it already is the shared handle `A` (no second `Arc` around it), else
/// `wrap(value)`.
fn shared<T: 'static, A: Clone + 'static>(value: T, wrap: impl FnOnce(T) -> A) -> A {
    match (&value as &dyn std::any::Any).downcast_ref::<A>() {
        Some(handle) => handle.clone(),
        None => wrap(value),
    }
}

/// Refuses a default session that lacks a capability the agent's options need.
fn check_session(session: &dyn Session, checkpoints: bool, claims: bool) -> Result<(), AgentError> {
    let can = session.capabilities();
    let missing = if checkpoints && !can.turn_store {
        "record step checkpoints (checkpoint_steps needs a session that is a TurnStore)"
    } else if claims && !can.claims {
        "be claimed (claim_sessions needs a session that is a SessionClaimer)"
    } else {
        return Ok(());
    };
    Err(AgentError::Config(format!(
        "session {:?} cannot {missing}: use a store that offers it (dive-session's stores do) or turn the option off",
        session.id()
    )))
}

/// Default tool iterations a turn (the model may be called one more time than this).
pub const DEFAULT_TOOL_ITERATION_LIMIT: u32 = 100;
/// Default number of times a paused model response is resent within one turn.
pub const DEFAULT_PAUSE_TURN_LIMIT: u32 = 10;
/// Default bound on the end-of-turn session write.
pub const DEFAULT_SAVE_TIMEOUT: Duration = Duration::from_secs(30);
/// Default response timeout of a whole invocation.
pub const DEFAULT_RESPONSE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Builds an [`Agent`].
///
/// Builder methods follow one naming rule (see `docs/guides/agents.md`): a setter is named
/// after what it sets, with no `with_`/`set_` prefix (`model`, `system_prompt`); an adder of one
/// item takes the singular (`tool`, `toolset`, `extension`), of many the plural (`tools`,
/// `hooks`); a boolean switch is named after the behaviour it turns on (`checkpoint_steps`).
///
/// ```
/// use dive_agent::{Agent, ModelSettings};
/// use dive_test::TestModel;
/// let agent = Agent::builder()
///     .name("assistant")
///     .system_prompt("You are helpful.")
///     .model(TestModel::new())
///     .model_settings(ModelSettings::new().max_tokens(1024))
///     .parallel_tool_execution(true)
///     .build()
///     .unwrap();
/// assert_eq!(agent.name(), "assistant");
/// ```
#[must_use]
pub struct AgentBuilder {
    name: String,
    id: Option<String>,
    description: String,
    version: String,
    system_prompt: String,
    model: Option<Arc<dyn Llm>>,
    tools: Vec<Arc<dyn Tool>>,
    toolsets: Vec<Arc<dyn Toolset>>,
    extensions: Vec<Arc<dyn Extension>>,
    hooks: Hooks,
    settings: ModelSettings,
    tracer: Arc<dyn Tracer>,
    session: Option<Arc<dyn Session>>,
    response_timeout: Option<Duration>,
    tool_iteration_limit: u32,
    parallel_tool_execution: bool,
    pause_turn_limit: u32,
    save_timeout: Duration,
    drop_partial_text: bool,
    require_reconcile: bool,
    discard_incomplete: bool,
    checkpoint_steps: bool,
    claim: Option<ClaimOptions>,
    compaction: Option<crate::compaction::CompactionPolicy>,
    seams: crate::seams::Seams,
}

impl std::fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentBuilder").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Default for AgentBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl AgentBuilder {
    /// A builder with the defaults: name `agent`, 100 tool iterations, 30 min response
    /// timeout, sequential tool execution, no session.
    pub fn new() -> Self {
        Self {
            name: "agent".into(),
            id: None,
            description: String::new(),
            version: String::new(),
            system_prompt: String::new(),
            model: None,
            tools: Vec::new(),
            toolsets: Vec::new(),
            extensions: Vec::new(),
            hooks: Hooks::new(),
            settings: ModelSettings::default(),
            tracer: Arc::new(NopTracer),
            session: None,
            response_timeout: Some(DEFAULT_RESPONSE_TIMEOUT),
            tool_iteration_limit: DEFAULT_TOOL_ITERATION_LIMIT,
            parallel_tool_execution: false,
            pause_turn_limit: DEFAULT_PAUSE_TURN_LIMIT,
            save_timeout: DEFAULT_SAVE_TIMEOUT,
            drop_partial_text: false,
            require_reconcile: false,
            discard_incomplete: false,
            checkpoint_steps: false,
            claim: None,
            compaction: None,
            seams: crate::seams::Seams::default(),
        }
    }

    /// The agent's name (surfaced to hooks and tracing).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The agent's id (default: generated).
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// The agent's description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// The agent's version.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = version.into();
        self
    }

    /// The base system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = prompt.into();
        self
    }

    /// The model (required): any [`Llm`], or an `Arc<dyn Llm>` already shared.
    pub fn model(mut self, model: impl Llm + 'static) -> Self {
        self.model = Some(shared(model, |m| Arc::new(m) as Arc<dyn Llm>));
        self
    }

    /// Adds a tool: any [`Tool`], or an `Arc<dyn Tool>` already shared.
    pub fn tool(mut self, tool: impl Tool + 'static) -> Self {
        self.tools.push(shared(tool, |t| Arc::new(t) as Arc<dyn Tool>));
        self
    }

    /// Adds a typed tool.
    pub fn typed_tool(self, tool: impl IntoTool) -> Self {
        self.tool(tool.into_tool())
    }

    /// Adds tools.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Adds a toolset, resolved before every model call: any [`Toolset`], or an
    /// `Arc<dyn Toolset>` already shared.
    pub fn toolset(mut self, toolset: impl Toolset + 'static) -> Self {
        self.toolsets.push(shared(toolset, |t| Arc::new(t) as Arc<dyn Toolset>));
        self
    }

    /// Adds an extension: its tools, hooks (after the agent's own) and rules (appended to
    /// the system prompt) are merged at build. Any [`Extension`], or an `Arc<dyn Extension>`.
    pub fn extension(mut self, extension: impl Extension + 'static) -> Self {
        self.extensions.push(shared(extension, |e| Arc::new(e) as Arc<dyn Extension>));
        self
    }

    /// Adds hooks (appended to any already added).
    pub fn hooks(mut self, hooks: Hooks) -> Self {
        self.hooks.extend(hooks);
        self
    }

    /// Adds an observer: read-only callbacks on iteration starts, thinking blocks, tool calls
    /// and results, and the final response (see [`dive_core::Observer`]).
    pub fn observer(mut self, observer: impl dive_core::Observer + 'static) -> Self {
        self.hooks.observers.push(std::sync::Arc::new(observer));
        self
    }

    /// Model options applied to every request.
    pub fn model_settings(mut self, settings: ModelSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The clock the engine records turn and response times with (default: the system
    /// clock). With [`id_generator`](Self::id_generator) and [`spawner`](Self::spawner), the
    /// seams a durable-execution engine replaces for deterministic replay.
    pub fn clock(mut self, clock: impl dive_core::Clock + 'static) -> Self {
        self.seams.clock = Arc::new(clock);
        self
    }

    /// How the engine makes turn, response and background-task ids (default: random).
    pub fn id_generator(mut self, ids: impl dive_core::IdGenerator + 'static) -> Self {
        self.seams.ids = Arc::new(ids);
        self
    }

    /// Where a tool's background work runs (default: the current tokio runtime).
    pub fn spawner(mut self, spawner: impl dive_core::Spawner + 'static) -> Self {
        self.seams.spawner = Arc::new(spawner);
        self
    }

    /// Compacts the working set with a strategy when the context fills up, and once on a
    /// context overflow (see [`CompactionPolicy`](crate::CompactionPolicy) and `docs/guides/compaction.md`).
    /// Default: none, and the loop does no estimating at all.
    pub fn compaction(mut self, compaction: crate::compaction::CompactionPolicy) -> Self {
        self.compaction = Some(compaction);
        self
    }

    /// The tracer (default: none): any [`Tracer`], or an `Arc<dyn Tracer>` already shared.
    pub fn tracer(mut self, tracer: impl Tracer + 'static) -> Self {
        self.tracer = shared(tracer, |t| Arc::new(t) as Arc<dyn Tracer>);
        self
    }

    /// The default session (a run's own session option wins).
    pub fn session(mut self, session: Arc<dyn Session>) -> Self {
        self.session = Some(session);
        self
    }

    /// Bound on one invocation's active time (default 30 minutes; `None`: unbounded).
    pub fn response_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.response_timeout = timeout;
        self
    }

    /// Tool-batch iterations a turn (default 100); the last model call is told to answer
    /// without tools.
    pub fn tool_iteration_limit(mut self, limit: u32) -> Self {
        self.tool_iteration_limit = limit;
        self
    }

    /// Runs a batch of several tool calls concurrently (default off).
    pub fn parallel_tool_execution(mut self, parallel: bool) -> Self {
        self.parallel_tool_execution = parallel;
        self
    }

    /// How many times a paused response is resent in one turn (default 10).
    pub fn pause_turn_limit(mut self, limit: u32) -> Self {
        self.pause_turn_limit = limit;
        self
    }

    /// Bound on the end-of-turn session write (default 30 s).
    pub fn save_timeout(mut self, timeout: Duration) -> Self {
        self.save_timeout = timeout;
        self
    }

    /// Drops half-streamed text of an interrupted model call instead of keeping it.
    pub fn drop_partial_text(mut self, drop: bool) -> Self {
        self.drop_partial_text = drop;
        self
    }

    /// Refuses new input while the latest turn has tool calls of unknown effect (outcome
    /// `next: reconcile`); the caller must continue that turn first.
    pub fn require_reconcile(mut self, require: bool) -> Self {
        self.require_reconcile = require;
        self
    }

    /// Pre-outcome behaviour for turns that end with an error: nothing is saved and no
    /// OnIncompleteTurn hook runs (model-stop endings are still closed and saved).
    pub fn discard_incomplete_turns(mut self, discard: bool) -> Self {
        self.discard_incomplete = discard;
        self
    }

    /// Records the turn as `running` before every step (needs a `TurnStore` session), so a
    /// crash mid-turn is recovered as `process_exit` with the running call `unknown`.
    pub fn checkpoint_steps(mut self, checkpoint: bool) -> Self {
        self.checkpoint_steps = checkpoint;
        self
    }

    /// Claims the session for the run (needs a `SessionClaimer` session); a run on a session
    /// another owner holds fails before doing anything, and losing the claim cancels the run.
    pub fn claim_sessions(mut self, claim: ClaimOptions) -> Self {
        self.claim = Some(claim);
        self
    }

    /// Builds the agent.
    ///
    /// # Errors
    /// [`AgentError::Config`] when no model was given, two tools share a name, or the default
    /// session cannot do what the agent asks of it (step checkpoints need a turn store, claims
    /// need a claimer).
    pub fn build(self) -> Result<Agent, AgentError> {
        let model = self.model.ok_or_else(|| AgentError::Config("no model: call .model(...)".into()))?;
        if let Some(session) = &self.session {
            check_session(&**session, self.checkpoint_steps, self.claim.is_some())?;
        }
        let mut tools = self.tools;
        let mut hooks = self.hooks;
        let mut rules = Vec::new();
        for ext in &self.extensions {
            tools.extend(ext.tools());
            hooks.extend(ext.hooks());
            if let Some(r) = ext.rules().filter(|r| !r.trim().is_empty()) {
                rules.push(r);
            }
        }
        if !self.extensions.is_empty() {
            // Extensions add reminders as the run goes (skills, memory, subagents): the rule for
            // reading them is in the system prompt from the first request, so the first
            // reminder does not change the cached prefix.
            rules.push(crate::texts::REMINDER_PRIMING_RULE.to_owned());
        }
        let mut seen = HashSet::new();
        for tool in &tools {
            if !seen.insert(tool.name().to_owned()) {
                return Err(AgentError::Config(format!("two tools are named {:?}", tool.name())));
            }
        }
        let id = self.id.unwrap_or_else(|| self.seams.new_id("agent"));
        let tool_index = Arc::new(crate::run::ToolIndex::new(tools.iter().cloned()));
        Ok(Agent {
            inner: Arc::new(AgentInner {
                cache_key: format!("dive-agent-{id}"),
                compaction: self.compaction,
                name: self.name.into(),
                id: id.into(),
                description: self.description,
                version: self.version,
                model: RwLock::new(model),
                system_prompt: RwLock::new(self.system_prompt),
                rules,
                tools,
                toolsets: self.toolsets,
                hooks,
                settings: self.settings,
                tracer: self.tracer,
                session: self.session,
                response_timeout: self.response_timeout,
                tool_iteration_limit: self.tool_iteration_limit,
                parallel_tool_execution: self.parallel_tool_execution,
                pause_turn_limit: self.pause_turn_limit,
                save_timeout: self.save_timeout,
                drop_partial_text: self.drop_partial_text,
                require_reconcile: self.require_reconcile,
                discard_incomplete: self.discard_incomplete,
                checkpoint_steps: self.checkpoint_steps,
                claim: self.claim,
                seams: self.seams,
                schemas: SchemaCache::default(),
                tool_index,
            }),
        })
    }
}
