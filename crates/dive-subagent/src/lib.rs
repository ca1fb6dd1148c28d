//! Subagents and orchestration for Dive for Rust: a parent agent hands a task to a fresh,
//! single-use agent and gets its answer back.
//!
//! A [`Definition`] is one kind of subagent with Claude Code's fields (`tools`,
//! `disallowedTools`, `model`, `maxTurns`, `isolation: worktree`, …); the built-ins are
//! `general-purpose`, the read-only `Explore` and `Plan`. [`Discovery`] reads agent files
//! (markdown with frontmatter) from `.dive/agents` and `.claude/agents` in the project (only
//! when the workspace is trusted) and in the user's home, every problem a [`Diagnostic`] naming
//! the file and the line. The [`AgentTool`] (`Agent`: `description`, `prompt`,
//! `subagent_type`, `run_in_background`) builds the subagent through an [`AgentFactory`] and
//! runs it in the foreground or the background; [`Runs`] tracks background subagents and
//! [`MonitorTool`] commands, [`TaskStopTool`] stops them, and the [`Delivery`] hook hands their
//! results to the parent's next model call. [`TodoWriteTool`] keeps the model's task list in
//! a [`TodoTracker`]. [`Orchestration`] bundles it all as one `Extension`, and [`AgentAsTool`]
//! wraps any agent as a tool with its own input schema.
//!
//! **Invariant:** a subagent never gets the `Agent` tool (subagents are single-use and never
//! spawn others), and project agent files never load in an untrusted workspace.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use dive_agent::{Agent, RunOptions};
//! use dive_core::{ModelResponse, ToolUse};
//! use dive_subagent::{AgentTool, Catalog, DefaultFactory, Orchestration};
//! use dive_test::ScriptedModel;
//! use serde_json::json;
//!
//! let model = ScriptedModel::new([
//!     // The parent delegates…
//!     ModelResponse::tool_calls(vec![ToolUse::new("c1", "Agent", json!({
//!         "description": "find the config", "prompt": "Where is the config read?", "subagent_type": "Explore"
//!     }))]),
//!     // …the subagent answers on the same model…
//!     ModelResponse::text("In src/config.rs."),
//!     // …and the parent reads the answer.
//!     ModelResponse::text("The config is read in src/config.rs."),
//! ]);
//! let agent_tool = AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(model.clone()));
//! let parent = Agent::builder().model(model.clone()).extension(Orchestration::new(agent_tool)).build().unwrap();
//! let response = parent.run(RunOptions::text("Where is the config read?")).await.unwrap();
//! assert_eq!(response.output_text(), "The config is read in src/config.rs.");
//! # });
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

mod agent_tool;
mod as_tool;
mod catalog;
mod definition;
mod delivery;
mod diagnostic;
mod discover;
mod error;
mod extension;
mod external;
mod factory;
mod file;
mod launch;
mod monitor;
mod runs;
mod skill_fork;
mod task_stop;
mod todo;
mod worktree;

pub use agent_tool::AgentTool;
pub use as_tool::AgentAsTool;
pub use catalog::Catalog;
pub use definition::{AGENT_TOOL, Definition, Isolation, ModelChoice, READ_ONLY_DENIED, Source};
pub use delivery::{Delivery, NOTIFICATION_REMINDER};
pub use diagnostic::{Diagnostic, Problem, Severity};
pub use discover::{Discovery, SEARCH_DIRS};
pub use error::SubagentError;
pub use extension::Orchestration;
pub use external::ExternalAgent;
pub use factory::{AgentFactory, DefaultFactory, Spawn};
pub use launch::Report;
pub use monitor::{DEFAULT_TIMEOUT, MAX_LINE_BYTES, MAX_TIMEOUT, MonitorTool};
pub use runs::{RunHandle, RunKind, RunSnapshot, RunStatus, Runs};
pub use task_stop::TaskStopTool;
pub use todo::{TodoItem, TodoStatus, TodoTracker, TodoWriteTool};
pub use worktree::Worktree;
