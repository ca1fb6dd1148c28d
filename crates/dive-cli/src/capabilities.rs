//! Skills and subagents for the agent: the skills and `.claude/commands` found in the project
//! (when trusted) and the user's home, the agent files beside them with the built-in `Explore`,
//! `Plan` and `general-purpose`, and the `Skill`, `Agent`, `TaskStop`, `Monitor` and
//! `TodoWrite` tools over one runs tracker. Subagents get the parent's workspace tools behind
//! the same permission hook, so a subagent's edit asks exactly as the parent's would.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use dive::skill::{DynamicContext, SkillExtension, SkillSet};
use dive::subagent::{
    AgentFactory, AgentTool, DefaultFactory, Orchestration, RunStatus, Runs, Spawn, SubagentError,
    TodoTracker,
};
use dive::{Agent, BoxFuture, Hooks, Llm, Tool};

/// Tools the CLI runs without asking: they change nothing by themselves (a subagent's own
/// tool calls are checked one by one, and `TaskStop` stops only what this session started).
pub const ALLOWED_WITHOUT_ASKING: [&str; 4] = ["Skill", "Agent", "TaskStop", "TodoWrite"];

/// What the session can use beyond the workspace tools.
#[derive(Clone)]
pub struct Capabilities {
    /// The skills (the `Skill` tool and slash commands).
    pub skills: SkillExtension,
    /// The subagent and background tools (none on the offline test model, whose workspace
    /// tools are read-only).
    pub orchestration: Option<Orchestration>,
    /// The model subagents start on: the session's, switched with it by `/model`.
    model: Option<Arc<Mutex<Arc<dyn Llm>>>>,
}

/// The CLI's subagent factory: [`DefaultFactory`] on the model the session uses at the moment
/// a subagent starts.
struct CurrentModel {
    model: Arc<Mutex<Arc<dyn Llm>>>,
    hooks: Hooks,
    skills: SkillSet,
    tracer: Option<Arc<dyn dive::Tracer>>,
}

impl AgentFactory for CurrentModel {
    fn build<'a>(&'a self, spawn: Spawn<'a>) -> BoxFuture<'a, Result<Agent, SubagentError>> {
        let model = Arc::clone(&self.model.lock().unwrap_or_else(PoisonError::into_inner));
        let mut factory =
            DefaultFactory::from_arc(model).with_hooks(self.hooks.clone()).with_skills(self.skills.clone());
        if let Some(tracer) = &self.tracer {
            factory = factory.with_tracer(Arc::clone(tracer));
        }
        Box::pin(async move { factory.build(spawn).await })
    }
}

/// What the tools are built from.
pub struct Parts {
    /// The model subagents run on.
    pub model: Arc<dyn Llm>,
    /// The parent's tools a subagent may be given.
    pub parent_tools: Vec<Arc<dyn Tool>>,
    /// The hooks every subagent gets (the permission hook).
    pub hooks: Hooks,
    /// The tracer subagents report to, when tracing is on (the parent's).
    pub tracer: Option<dive::otel::OtelTracer>,
    /// Subagent types that run elsewhere (remote A2A agents).
    pub externals: Vec<(dive::subagent::Definition, Arc<dyn dive::subagent::ExternalAgent>)>,
}

impl Capabilities {
    /// Finds the skills (the project's only when `trusted`), printing the problems found as
    /// warnings.
    pub fn discover_skills(workspace: &Path, trusted: bool) -> SkillSet {
        let skills = dive::skill::Discovery::from_env().project(workspace, trusted).discover();
        for problem in skills.diagnostics().iter().filter(|d| !is_untrusted_skill(d)) {
            eprintln!("dive: {}", crate::sanitize::for_stderr(&problem.to_string()));
        }
        skills
    }

    /// Finds the agent files and builds the tools over `skills` (`parts: None`: skills only).
    /// `trusted` says whether the project's own agent files may load.
    pub fn build(workspace: &Path, trusted: bool, skills: SkillSet, parts: Option<Parts>) -> Self {
        let catalog =
            dive::subagent::Discovery::from_env().project(workspace, trusted).with_builtins().discover();
        let agent_problems =
            catalog.diagnostics().iter().filter(|d| d.problem != dive::subagent::Problem::Untrusted);
        for problem in agent_problems {
            eprintln!("dive: {}", crate::sanitize::for_stderr(&problem.to_string()));
        }
        let model = parts.as_ref().map(|parts| Arc::new(Mutex::new(Arc::clone(&parts.model))));
        let orchestration = parts.zip(model.clone()).map(|(parts, model)| {
            let catalog = parts
                .externals
                .into_iter()
                .fold(catalog, |catalog, (definition, agent)| catalog.with_external(definition, agent));
            let tracing = parts.tracer.is_some();
            let tracer = parts.tracer.map(|t| Arc::new(t) as Arc<dyn dive::Tracer>);
            let factory = CurrentModel { model, hooks: parts.hooks, skills: skills.clone(), tracer };
            let mut agent = AgentTool::new(catalog, factory);
            if tracing {
                // A subagent's spans are children of the parent's `execute_tool`.
                agent = agent.with_run_values(dive::otel::propagation::child_values);
            }
            let agent =
                agent.with_parent_tools(parts.parent_tools).with_runs(Runs::new()).with_repo(workspace);
            Orchestration::new(agent).with_todos(TodoTracker::new())
        });
        let mut extension = SkillExtension::new(skills);
        if trusted {
            extension = extension.dynamic_context(DynamicContext::new(workspace));
        }
        if let Some(orchestration) = &orchestration {
            extension = extension.with_fork(orchestration.agent().clone());
        }
        Self { skills: extension, orchestration, model }
    }

    /// Subagents started from now on run on `model` (`/model`).
    pub fn set_model(&self, model: Arc<dyn Llm>) {
        if let Some(current) = &self.model {
            *current.lock().unwrap_or_else(PoisonError::into_inner) = model;
        }
    }

    /// The runs tracker (background subagents and commands).
    pub fn runs(&self) -> Option<&Runs> {
        self.orchestration.as_ref().map(Orchestration::runs)
    }

    /// Stops the background subagents and commands still running and waits (a few seconds
    /// at most) for them to end, so nothing this session started outlives it.
    pub async fn stop_background(&self) {
        let Some(runs) = self.runs() else { return };
        let running: Vec<String> =
            runs.list().into_iter().filter(|r| r.status == RunStatus::Running).map(|r| r.id).collect();
        for id in &running {
            let _ = runs.stop(id);
        }
        let ended = futures_util::future::join_all(running.iter().map(|id| runs.wait(id)));
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), ended).await;
    }

    /// The todo list the model keeps.
    pub fn todos(&self) -> Option<&TodoTracker> {
        self.orchestration.as_ref().map(Orchestration::todos)
    }
}

fn is_untrusted_skill(d: &dive::skill::Diagnostic) -> bool {
    d.problem == dive::skill::Problem::Untrusted
}

#[cfg(test)]
mod tests {
    use super::*;
    use dive::{ModelResponse, ToolContext};
    use dive_test::ScriptedModel;
    use serde_json::json;

    #[tokio::test]
    async fn subagents_start_on_the_model_the_session_switched_to() {
        let first = ScriptedModel::new([ModelResponse::text("from the first")]);
        let second = ScriptedModel::new([ModelResponse::text("from the second")]);
        let workspace = tempfile::tempdir().unwrap();
        let parts = Parts {
            model: Arc::new(first.clone()),
            parent_tools: Vec::new(),
            hooks: Hooks::new(),
            tracer: None,
            externals: Vec::new(),
        };
        let capabilities = Capabilities::build(workspace.path(), false, SkillSet::new(), Some(parts));
        let agent = capabilities.orchestration.as_ref().unwrap().agent().clone();
        let input = json!({"description": "ask", "prompt": "hi", "subagent_type": "general-purpose"});
        let answer = |result: dive::ToolResult| match result {
            dive::ToolResult::Output(output) => output.text_content(),
            _ => String::new(),
        };
        let before = answer(agent.call(input.clone(), ToolContext::detached("Agent")).await.unwrap());
        assert!(before.contains("from the first"), "{before}");
        capabilities.set_model(Arc::new(second.clone()));
        let after = answer(agent.call(input, ToolContext::detached("Agent")).await.unwrap());
        assert!(after.contains("from the second"), "{after}");
        assert_eq!((first.requests().len(), second.requests().len()), (1, 1));
    }
}
