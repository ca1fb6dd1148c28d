//! The `Skill` tool: the model asks for a skill by name (an enum of the real skills) with
//! optional arguments; the tool renders its content for the PostToolUse hook to deliver.

use std::sync::Arc;

use dive_core::trace::attributes;
use dive_core::{BoxFuture, Tool, ToolContext, ToolError, ToolOutput, ToolResult};
use serde_json::{Value, json};

use crate::extension::Shared;
use crate::skill::{ExecutionContext, Skill};
use crate::state::SkillState;

/// The tool's name, as Claude Code's (models are tuned to it).
pub const SKILL_TOOL: &str = "Skill";

const DESCRIPTION: &str = "Loads a skill: instructions for a particular kind of task, listed in the `skills` \
reminder. Call it with the skill's name (and its arguments, if any, in `args`) before doing a task a skill \
describes, then follow the instructions it returns. A skill already loaded in this conversation does not \
need loading again.";

/// The `Skill` tool of a [`SkillExtension`](crate::SkillExtension).
pub(crate) struct SkillTool {
    shared: Arc<Shared>,
    schema: Value,
}

impl std::fmt::Debug for SkillTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillTool").field("schema", &self.schema).finish_non_exhaustive()
    }
}

impl SkillTool {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        let names: Vec<&str> = shared.skills.model_invocable().map(|s| s.name.as_str()).collect();
        let schema = json!({
            "type": "object",
            "properties": {
                "skill": {"type": "string", "enum": names, "description": "The name of the skill to load."},
                "args": {"type": "string", "description": "Arguments for the skill, if it takes any."}
            },
            "required": ["skill"],
            "additionalProperties": false
        });
        Self { shared, schema }
    }
}

impl Tool for SkillTool {
    fn name(&self) -> &str {
        SKILL_TOOL
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let name = input.get("skill").and_then(Value::as_str).unwrap_or_default();
            let args = input.get("args").and_then(Value::as_str).unwrap_or_default();
            let Some(skill) = self.shared.skills.get(name).filter(|s| s.model_invocable()) else {
                let known: Vec<&str> =
                    self.shared.skills.model_invocable().map(|s| s.name.as_str()).collect();
                return Ok(ToolResult::error(format!(
                    "There is no skill `{name}` you can load. The skills are: {}.",
                    known.join(", ")
                )));
            };
            let pending = self.shared.render(skill, args).await;
            if let (ExecutionContext::Fork { .. }, Some(fork)) = (&skill.context, &self.shared.fork) {
                let output = match fork.run(skill, pending.content, ctx).await {
                    Ok(answer) => ToolOutput::text(answer),
                    Err(message) => ToolOutput::error(format!("The skill `{name}` could not run: {message}")),
                };
                return Ok(traced(output, skill).into());
            }
            let state = SkillState::of(&ctx.run.values);
            let mut inner = state.lock();
            // The same content (same skill, same arguments) is never delivered twice.
            if inner.loaded.contains(&pending.content) {
                let output = ToolOutput::text(format!(
                    "The skill `{name}` is already loaded in this conversation with these arguments: \
                     follow its instructions above."
                ));
                return Ok(traced(output, skill).into());
            }
            inner.pending.insert(ctx.call_id.to_string(), pending);
            drop(inner);
            Ok(traced(ToolOutput::text(format!("Launching skill: {name}")), skill).into())
        })
    }
}

/// The skill on the call's `execute_tool` span, as the conventions name it: loading a skill.
fn traced(output: ToolOutput, skill: &Skill) -> ToolOutput {
    let output = output
        .with_span_attribute(attributes::SKILL_NAME, skill.name.clone())
        .with_span_attribute(attributes::SKILL_DESCRIPTION, skill.description.clone());
    match skill.dir() {
        Some(dir) => {
            output.with_span_attribute(attributes::SKILL_SOURCE_URI, format!("file://{}", dir.display()))
        }
        None => output,
    }
}
