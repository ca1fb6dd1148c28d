//! [`SkillFork`]: the seam that runs a `context: fork` skill in a subagent. This crate knows
//! nothing of subagents; `dive-subagent`'s `AgentTool` implements it, and an application
//! hands one to [`SkillExtension::with_fork`](crate::SkillExtension::with_fork).

use dive_core::{BoxFuture, ToolContext};

use crate::skill::Skill;

/// Runs a skill's rendered instructions as the whole task of a fresh subagent and returns
/// its answer, which becomes the `Skill` call's result (the instructions never enter the
/// parent's conversation).
///
/// ```
/// use dive_core::{BoxFuture, ToolContext};
/// use dive_skill::{Skill, SkillFork};
///
/// /// Answers every forked skill with the length of its instructions.
/// struct Measure;
/// impl SkillFork for Measure {
///     fn run<'a>(&'a self, _skill: &'a Skill, task: String, _ctx: ToolContext) -> BoxFuture<'a, Result<String, String>> {
///         Box::pin(async move { Ok(format!("{} characters", task.len())) })
///     }
/// }
/// ```
pub trait SkillFork: Send + Sync {
    /// Runs `task` (the skill's `<skill_content>` block for the call's arguments) in a
    /// subagent of the type the skill's `agent` field names (or the default type).
    ///
    /// # Errors
    /// A message for the model when the subagent cannot run (an unknown type, a failure).
    fn run<'a>(
        &'a self,
        skill: &'a Skill,
        task: String,
        ctx: ToolContext,
    ) -> BoxFuture<'a, Result<String, String>>;
}
