//! Skills and subagents for the agent: the skills and `.claude/commands` found in the project
//! (when trusted) and the user's home, the agent files beside them with the built-in `Explore`,
//! `Plan` and `general-purpose`, and the `Skill`, `Agent`, `TaskStop`, `Monitor` and
//! `TodoWrite` tools over one runs tracker. Subagents get the parent's workspace tools behind
//! the same permission hook, so a subagent's edit asks exactly as the parent's would.

use std::path::Path;
use std::sync::Arc;

use dive::skill::{DynamicContext, SkillExtension, SkillSet};
use dive::subagent::{AgentTool, DefaultFactory, Orchestration, RunStatus, Runs, TodoTracker};
use dive::{Hooks, Llm, Tool};

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
}

/// What the tools are built from.
pub struct Parts {
    /// The model subagents run on.
    pub model: Arc<dyn Llm>,
    /// The parent's tools a subagent may be given.
    pub parent_tools: Vec<Arc<dyn Tool>>,
    /// The hooks every subagent gets (the permission hook).
    pub hooks: Hooks,
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
        let orchestration = parts.map(|parts| {
            let factory =
                DefaultFactory::from_arc(parts.model).with_hooks(parts.hooks).with_skills(skills.clone());
            let agent = AgentTool::new(catalog, factory)
                .with_parent_tools(parts.parent_tools)
                .with_runs(Runs::new())
                .with_repo(workspace);
            Orchestration::new(agent).with_todos(TodoTracker::new())
        });
        let mut extension = SkillExtension::new(skills);
        if trusted {
            extension = extension.dynamic_context(DynamicContext::new(workspace));
        }
        if let Some(orchestration) = &orchestration {
            extension = extension.with_fork(orchestration.agent().clone());
        }
        Self { skills: extension, orchestration }
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
