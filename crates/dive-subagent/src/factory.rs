//! [`AgentFactory`]: the seam that turns a [`Definition`] into the subagent's [`Agent`]
//! (its model, tools, hooks, workspace), and [`DefaultFactory`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dive_agent::Agent;
use dive_core::{BoxFuture, Hooks, Llm, Tool};

use crate::definition::{Definition, ModelChoice};
use crate::error::SubagentError;

/// What a factory is asked to build.
#[derive(Clone)]
#[non_exhaustive]
pub struct Spawn<'a> {
    /// The definition.
    pub definition: &'a Definition,
    /// The parent's tools the definition allows (never the `Agent` tool).
    pub tools: Vec<Arc<dyn Tool>>,
    /// The directory the subagent works in when it is isolated (a temporary git worktree);
    /// `None` means the parent's.
    pub workdir: Option<PathBuf>,
}

impl std::fmt::Debug for Spawn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tools: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
        f.debug_struct("Spawn")
            .field("definition", &self.definition.name)
            .field("tools", &tools)
            .field("workdir", &self.workdir)
            .finish()
    }
}

/// Builds a subagent's [`Agent`] from its definition: the place for per-subagent model
/// routing, sessions, sandboxes, hooks and tools bound to a worktree.
pub trait AgentFactory: Send + Sync {
    /// Builds the agent for one single-use run.
    fn build<'a>(&'a self, spawn: Spawn<'a>) -> BoxFuture<'a, Result<Agent, SubagentError>>;
}

type ToolsFor = dyn Fn(&Path, &[Arc<dyn Tool>]) -> Vec<Arc<dyn Tool>> + Send + Sync;
type HooksFor = dyn Fn(&Definition) -> Hooks + Send + Sync;

/// The factory most applications need: the parent's model (or a named one from
/// [`with_model`](Self::with_model)), the definition's prompt as system prompt, the filtered
/// tools, `maxTurns` as the tool round limit, the definition's `skills` preloaded in full
/// into its system prompt (from [`with_skills`](Self::with_skills)), and hooks.
///
/// The definition's `effort` (`low`, `medium`, `high`, `xhigh`, `max`, `minimal`, `none`)
/// becomes the subagent's reasoning effort (an unknown name is logged and ignored); its
/// `permissionMode` is applied through [`with_hooks_for`](Self::with_hooks_for) (a permission
/// hook for the mode).
///
/// ```
/// use dive_subagent::DefaultFactory;
/// use dive_test::ScriptedModel;
/// let factory = DefaultFactory::new(ScriptedModel::new([]))
///     .with_model("haiku", ScriptedModel::new([]).with_model("claude-haiku-4-5"));
/// # let _ = factory;
/// ```
#[derive(Clone)]
pub struct DefaultFactory {
    model: Arc<dyn Llm>,
    models: HashMap<String, Arc<dyn Llm>>,
    hooks: Hooks,
    hooks_for: Option<Arc<HooksFor>>,
    tools_for: Option<Arc<ToolsFor>>,
    skills: dive_skill::SkillSet,
    tracer: Option<Arc<dyn dive_core::Tracer>>,
}

impl std::fmt::Debug for DefaultFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut models: Vec<&String> = self.models.keys().collect();
        models.sort();
        f.debug_struct("DefaultFactory").field("models", &models).finish_non_exhaustive()
    }
}

impl DefaultFactory {
    /// Subagents on `model` (normally the parent's).
    #[must_use]
    pub fn new(model: impl Llm + 'static) -> Self {
        Self::from_arc(Arc::new(model))
    }

    /// Subagents on a shared model.
    #[must_use]
    pub fn from_arc(model: Arc<dyn Llm>) -> Self {
        Self {
            model,
            models: HashMap::new(),
            hooks: Hooks::new(),
            hooks_for: None,
            tools_for: None,
            skills: dive_skill::SkillSet::new(),
            tracer: None,
        }
    }

    /// The model a definition's `model: <name>` means (case-insensitive). A name the factory
    /// does not know makes the `Agent` call fail with an error naming it.
    #[must_use]
    pub fn with_model(mut self, name: impl Into<String>, model: impl Llm + 'static) -> Self {
        self.models.insert(name.into().to_ascii_lowercase(), Arc::new(model));
        self
    }

    /// Hooks every subagent gets (a permission hook, tracing).
    #[must_use]
    pub fn with_hooks(mut self, hooks: Hooks) -> Self {
        self.hooks = hooks;
        self
    }

    /// Hooks made for each definition, added after [`with_hooks`](Self::with_hooks)'s: the
    /// place to turn `permissionMode` into a permission hook.
    #[must_use]
    pub fn with_hooks_for(
        mut self,
        hooks_for: impl Fn(&Definition) -> Hooks + Send + Sync + 'static,
    ) -> Self {
        self.hooks_for = Some(Arc::new(hooks_for));
        self
    }

    /// The tracer every subagent reports to (the parent's, so its spans sit in the same trace;
    /// pair it with `AgentTool::with_run_values` for the parent link).
    #[must_use]
    pub fn with_tracer(mut self, tracer: Arc<dyn dive_core::Tracer>) -> Self {
        self.tracer = Some(tracer);
        self
    }

    /// The skills a definition's `skills` field names; each named skill's instructions are
    /// preloaded in full into the subagent's system prompt (a name not found is logged and
    /// skipped).
    #[must_use]
    pub fn with_skills(mut self, skills: dive_skill::SkillSet) -> Self {
        self.skills = skills;
        self
    }

    /// The system prompt: the definition's, then its preloaded skills.
    fn system_prompt(&self, definition: &Definition) -> String {
        let mut prompt = definition.prompt.clone();
        for name in &definition.skills {
            let Some(skill) = self.skills.get(name) else {
                tracing::warn!(subagent = %definition.name, skill = %name, "a subagent's preloaded skill was not found");
                continue;
            };
            prompt.push_str(&format!(
                "\n\n<skill name=\"{}\">\n{}\n</skill>",
                skill.name,
                skill.body.trim_end()
            ));
        }
        prompt
    }

    /// Tools for an isolated subagent: given its worktree and the filtered parent tools,
    /// returns the tools it gets (e.g. a toolkit rooted in the worktree). Without it an
    /// isolated subagent gets the parent's tools unchanged.
    #[must_use]
    pub fn with_tools_for(
        mut self,
        tools_for: impl Fn(&Path, &[Arc<dyn Tool>]) -> Vec<Arc<dyn Tool>> + Send + Sync + 'static,
    ) -> Self {
        self.tools_for = Some(Arc::new(tools_for));
        self
    }

    fn model_for(&self, definition: &Definition) -> Result<Arc<dyn Llm>, SubagentError> {
        match &definition.model {
            ModelChoice::Named(name) => {
                self.models.get(&name.to_ascii_lowercase()).cloned().ok_or_else(|| {
                    SubagentError::UnknownModel { subagent: definition.name.clone(), model: name.clone() }
                })
            }
            _ => Ok(Arc::clone(&self.model)),
        }
    }
}

impl AgentFactory for DefaultFactory {
    fn build<'a>(&'a self, spawn: Spawn<'a>) -> BoxFuture<'a, Result<Agent, SubagentError>> {
        Box::pin(async move {
            let def = spawn.definition;
            let tools = match (&spawn.workdir, &self.tools_for) {
                (Some(dir), Some(tools_for)) => tools_for(dir, &spawn.tools),
                _ => spawn.tools,
            };
            let tools: Vec<Arc<dyn Tool>> = tools.into_iter().filter(|t| def.allows(t.name())).collect();
            let mut builder = Agent::builder()
                .name(def.name.clone())
                .description(def.description.clone())
                .system_prompt(self.system_prompt(def))
                .tools(tools);
            let mut hooks = self.hooks.clone();
            if let Some(hooks_for) = &self.hooks_for {
                hooks.extend(hooks_for(def));
            }
            builder = builder.hooks(hooks);
            if let Some(tracer) = &self.tracer {
                builder = builder.tracer(Arc::clone(tracer));
            }
            builder = builder.model(self.model_for(def)?);
            if let Some(turns) = def.max_turns {
                builder = builder.tool_iteration_limit(turns);
            }
            if let Some(effort) = def.effort.as_deref().and_then(|e| effort_of(&def.name, e)) {
                builder = builder.model_settings(
                    dive_agent::ModelSettings::new().reasoning(dive_core::Reasoning::effort(effort)),
                );
            }
            builder.build().map_err(|e| SubagentError::Build { subagent: def.name.clone(), source: e })
        })
    }
}

/// The reasoning effort an `effort` field names; `None` (logged) for a name there is none of.
fn effort_of(subagent: &str, name: &str) -> Option<dive_core::ReasoningEffort> {
    let parsed = serde_json::from_value(serde_json::Value::String(name.trim().to_ascii_lowercase())).ok();
    if parsed.is_none() {
        tracing::warn!(
            subagent,
            effort = name,
            "a subagent's effort is none of low, medium, high, xhigh, max; ignored"
        );
    }
    parsed
}
