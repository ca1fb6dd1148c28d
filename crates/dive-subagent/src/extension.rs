//! [`Orchestration`]: the `Agent`, `TaskStop`, `Monitor` and `TodoWrite` tools over one runs
//! tracker, with the hook that delivers background results, as one `Extension`.

use std::sync::Arc;

use dive_core::{Extension, Hooks, Tool};

use crate::agent_tool::AgentTool;
use crate::delivery::Delivery;
use crate::monitor::MonitorTool;
use crate::runs::Runs;
use crate::task_stop::TaskStopTool;
use crate::todo::{TodoTracker, TodoWriteTool};

/// Subagents and background work for an agent, in one [`Extension`].
///
/// ```
/// use dive_core::Extension;
/// use dive_subagent::{AgentTool, Catalog, DefaultFactory, Orchestration};
/// use dive_test::ScriptedModel;
/// let model = ScriptedModel::new([]);
/// let orchestration =
///     Orchestration::new(AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(model)));
/// let names: Vec<String> = orchestration.tools().iter().map(|t| t.name().to_owned()).collect();
/// assert_eq!(names, ["Agent", "TaskStop", "Monitor", "TodoWrite"]);
/// ```
#[derive(Debug, Clone)]
pub struct Orchestration {
    agent: AgentTool,
    runs: Runs,
    todos: TodoTracker,
}

impl Orchestration {
    /// The extension around an `Agent` tool; `TaskStop`, `Monitor` and the delivery hook
    /// share its runs tracker.
    #[must_use]
    pub fn new(agent: AgentTool) -> Self {
        let runs = agent.runs().clone();
        Self { agent, runs, todos: TodoTracker::new() }
    }

    /// The todo tracker `TodoWrite` writes to (subscribe to it to render a checklist).
    #[must_use]
    pub fn with_todos(mut self, todos: TodoTracker) -> Self {
        self.todos = todos;
        self
    }

    /// The runs tracker (list runs, sum subagent usage).
    #[must_use]
    pub fn runs(&self) -> &Runs {
        &self.runs
    }

    /// The todo tracker.
    #[must_use]
    pub fn todos(&self) -> &TodoTracker {
        &self.todos
    }

    /// The `Agent` tool (its catalog lists the subagent types).
    #[must_use]
    pub fn agent(&self) -> &AgentTool {
        &self.agent
    }
}

impl Extension for Orchestration {
    fn name(&self) -> &str {
        "orchestration"
    }

    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![
            Arc::new(self.agent.clone()),
            Arc::new(TaskStopTool::new(self.runs.clone())),
            Arc::new(MonitorTool::new(self.runs.clone())),
            Arc::new(TodoWriteTool::new(self.todos.clone())),
        ]
    }

    fn hooks(&self) -> Hooks {
        Hooks::new().on_pre_iteration(Delivery::new(self.runs.clone()))
    }
}
