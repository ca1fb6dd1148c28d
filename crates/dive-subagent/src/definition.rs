//! [`Definition`]: one kind of subagent, with Claude Code's fields, and the built-in
//! `general-purpose`, `Explore` and `Plan`.

use std::path::PathBuf;

/// Which model a subagent runs on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ModelChoice {
    /// The parent's model (`model: inherit`, or no `model` field).
    #[default]
    Inherit,
    /// A model named by alias or id (`sonnet`, `claude-haiku-4-5`, `openai/gpt-5`); the
    /// [`AgentFactory`](crate::AgentFactory) decides what the name means.
    Named(String),
}

impl ModelChoice {
    /// `inherit` (any case) or an empty text is [`Inherit`](Self::Inherit), anything else a name.
    #[must_use]
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        if text.is_empty() || text.eq_ignore_ascii_case("inherit") {
            Self::Inherit
        } else {
            Self::Named(text.to_owned())
        }
    }
}

/// Where a subagent's files live while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Isolation {
    /// The parent's working directory.
    #[default]
    None,
    /// A temporary git worktree of the parent's repository, removed when the subagent ends
    /// (`isolation: worktree`).
    Worktree,
}

/// Where a definition comes from; earlier sources win on a name clash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[non_exhaustive]
pub enum Source {
    /// Built into the library (`general-purpose`, `Explore`, `Plan`) or registered from code.
    #[default]
    Code,
    /// The project's `.dive/agents` or `.claude/agents`, loaded only in a trusted workspace.
    Project,
    /// The user's `~/.dive/agents` or `~/.claude/agents`.
    User,
}

/// One kind of subagent: what it is for, its instructions and what it may use.
///
/// Field names follow Claude Code's agent files (`tools`, `disallowedTools`, `model`,
/// `permissionMode`, `maxTurns`, `skills`, `background`, `effort`, `isolation`).
///
/// ```
/// use dive_subagent::{Definition, ModelChoice};
/// let reviewer = Definition::new("reviewer", "Reviews a diff. Use after every change.")
///     .with_prompt("You review code. Report problems by file and line.")
///     .with_tools(["Read", "Grep", "Glob"])
///     .with_model(ModelChoice::Named("haiku".into()))
///     .with_max_turns(10);
/// assert!(reviewer.allows("grep"), "tool names match case-insensitively");
/// assert!(!reviewer.allows("Write"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Definition {
    /// The name the model passes as `subagent_type`.
    pub name: String,
    /// What it does and when to use it (shown to the model in the Agent tool's description).
    pub description: String,
    /// Its system prompt (the markdown body of an agent file).
    pub prompt: String,
    /// The tools it may use; `None` inherits every parent tool (never the `Agent` tool).
    pub tools: Option<Vec<String>>,
    /// Tools it may never use, matched case-insensitively.
    pub disallowed_tools: Vec<String>,
    /// Its model.
    pub model: ModelChoice,
    /// A permission mode name (`default`, `acceptEdits`, `plan`, `bypassPermissions`,
    /// `dontAsk`), for the [`AgentFactory`](crate::AgentFactory) to apply.
    pub permission_mode: Option<String>,
    /// The most tool rounds it may take before it must answer.
    pub max_turns: Option<u32>,
    /// Skills preloaded in full into its context.
    pub skills: Vec<String>,
    /// Whether it always runs in the background.
    pub background: bool,
    /// A reasoning effort name (`low`, `medium`, `high`, `max`).
    pub effort: Option<String>,
    /// Where its files live.
    pub isolation: Isolation,
    /// Where the definition comes from.
    pub source: Source,
    /// The file it was read from, if any.
    pub path: Option<PathBuf>,
}

impl Definition {
    /// A definition from code that inherits every parent tool and the parent's model.
    #[must_use]
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self { name: name.into(), description: description.into(), ..Self::default() }
    }

    /// Sets the system prompt.
    #[must_use]
    pub fn with_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.prompt = prompt.into();
        self
    }

    /// Sets the tool allowlist.
    #[must_use]
    pub fn with_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the tools it may never use.
    #[must_use]
    pub fn with_disallowed_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.disallowed_tools = tools.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the model.
    #[must_use]
    pub fn with_model(mut self, model: ModelChoice) -> Self {
        self.model = model;
        self
    }

    /// Sets the tool round limit.
    #[must_use]
    pub fn with_max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Makes it always run in the background.
    #[must_use]
    pub fn with_background(mut self, background: bool) -> Self {
        self.background = background;
        self
    }

    /// Sets where its files live.
    #[must_use]
    pub fn with_isolation(mut self, isolation: Isolation) -> Self {
        self.isolation = isolation;
        self
    }

    /// Whether the tool `name` passes `tools` and `disallowedTools` (case-insensitive). The
    /// `Agent` tool is never allowed: subagents are single-use and never spawn others.
    #[must_use]
    pub fn allows(&self, name: &str) -> bool {
        if is_agent_tool(name) {
            return false;
        }
        let listed = |list: &[String]| list.iter().any(|t| tool_name(t).eq_ignore_ascii_case(name));
        if listed(&self.disallowed_tools) {
            return false;
        }
        self.tools.as_deref().is_none_or(listed)
    }

    /// The built-in `general-purpose` subagent: every parent tool, the parent's model.
    #[must_use]
    pub fn general_purpose() -> Self {
        Self::new(
            "general-purpose",
            "General-purpose agent for researching complex questions, searching for code and executing \
             multi-step tasks. Use it when a search may take several rounds.",
        )
        .with_prompt(
            "You are an agent working on a task for another agent. Use the tools available to complete \
             it fully, then answer with a concise report of what you found or did: the other agent sees \
             only your final message.",
        )
    }

    /// The built-in `Explore` subagent: read-only (no Edit, Write, NotebookEdit or Bash).
    #[must_use]
    pub fn explore() -> Self {
        Self::new(
            "Explore",
            "Fast read-only agent for exploring a codebase: finding files by pattern, searching code for \
             keywords, answering questions about how the code works.",
        )
        .with_prompt(
            "You are a read-only code explorer. Search and read files to answer the question; never \
             change anything. Answer with the relevant file paths and what they show.",
        )
        .with_disallowed_tools(READ_ONLY_DENIED)
    }

    /// The built-in `Plan` subagent: read-only, researches and returns a plan.
    #[must_use]
    pub fn plan() -> Self {
        Self::new(
            "Plan",
            "Read-only software architect agent for designing an implementation plan: the steps, the files \
             to change and the trade-offs.",
        )
        .with_prompt(
            "You are a software architect. Read the code you need, change nothing, and answer with a \
             step-by-step implementation plan naming the files to change.",
        )
        .with_disallowed_tools(READ_ONLY_DENIED)
    }

    /// `general-purpose`, `Explore` and `Plan`.
    #[must_use]
    pub fn builtins() -> Vec<Self> {
        vec![Self::general_purpose(), Self::explore(), Self::plan()]
    }
}

/// The tools the read-only built-ins never get.
pub const READ_ONLY_DENIED: [&str; 5] = ["Edit", "Write", "NotebookEdit", "Bash", "TextEditor"];

/// The name of the tool that spawns subagents.
pub const AGENT_TOOL: &str = "Agent";

/// `Agent`, its old name `Task`, and the `Agent(type)` form.
fn is_agent_tool(name: &str) -> bool {
    let name = tool_name(name);
    name.eq_ignore_ascii_case(AGENT_TOOL) || name.eq_ignore_ascii_case("Task")
}

/// The tool part of a `Tool(specifier)` entry.
fn tool_name(entry: &str) -> &str {
    entry.split_once('(').map_or(entry, |(name, _)| name).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_builtins_refuse_edits_and_nobody_gets_agent() {
        for def in [Definition::explore(), Definition::plan()] {
            assert!(def.allows("Read") && def.allows("Grep"));
            assert!(!def.allows("write") && !def.allows("Bash") && !def.allows("Edit"));
        }
        let gp = Definition::general_purpose();
        assert!(gp.allows("Bash"));
        assert!(!gp.allows("Agent") && !gp.allows("agent") && !gp.allows("Task"));
        let listed = Definition::new("x", "y").with_tools(["Agent(Explore)", "Bash(git *)"]);
        assert!(!listed.allows("Agent"), "an allowlist cannot give the Agent tool back");
        assert!(listed.allows("Bash"));
    }

    #[test]
    fn model_choice() {
        assert_eq!(ModelChoice::parse(" Inherit "), ModelChoice::Inherit);
        assert_eq!(ModelChoice::parse("haiku"), ModelChoice::Named("haiku".into()));
    }
}
