//! `context: fork` skills run by the `Agent` tool: [`AgentTool`] is a
//! [`SkillFork`](dive_skill::SkillFork), so `SkillExtension::with_fork(agent_tool)` runs
//! such a skill's instructions as the task of a fresh subagent (of the type its `agent` field
//! names, else `general-purpose`) in the foreground, on the skill's `model` and `effort` when it
//! names them (as a definition's would be), and the model gets the answer.

use dive_core::{BoxFuture, ToolContext, ToolResult};
use dive_skill::{ExecutionContext, Skill, SkillFork};

use crate::agent_tool::{AgentTool, Input};

impl SkillFork for AgentTool {
    fn run<'a>(
        &'a self,
        skill: &'a Skill,
        task: String,
        ctx: ToolContext,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let subagent_type = match &skill.context {
                ExecutionContext::Fork { agent } => agent.clone(),
                _ => None,
            };
            let input = Input {
                description: format!("skill {}", skill.name),
                prompt: task,
                subagent_type,
                run_in_background: false,
                model: skill.model.clone(),
                effort: skill.effort.clone(),
            };
            match self.run(input, ctx).await {
                Ok(ToolResult::Output(output)) if !output.is_error => Ok(output.text_content()),
                Ok(ToolResult::Output(output)) => Err(output.text_content()),
                Ok(_) => Err("the subagent did not return an answer".to_owned()),
                Err(e) => Err(e.to_string()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use dive_agent::{Agent, RunOptions};
    use dive_core::{ModelResponse, ToolUse};
    use dive_skill::{SkillExtension, SkillSet};
    use dive_test::ScriptedModel;
    use serde_json::json;

    use crate::{AgentTool, Catalog, DefaultFactory, Orchestration};

    #[tokio::test]
    async fn a_forked_skill_runs_in_a_subagent_and_only_its_answer_reaches_the_parent() {
        let skill = dive_skill::Skill::embedded(
            "skills/audit/SKILL.md",
            "---\nname: audit\ndescription: Audits the code. Use when asked for an audit.\ncontext: fork\nagent: Explore\n---\nAudit $ARGUMENTS. FORK-MARKER\n",
        )
        .unwrap();
        let model = ScriptedModel::new([
            ModelResponse::tool_calls(vec![ToolUse::new(
                "c1",
                "Skill",
                json!({"skill": "audit", "args": "src"}),
            )]),
            ModelResponse::text("No problems in src."),
            ModelResponse::text("The audit found no problems."),
        ]);
        let agent_tool = AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(model.clone()));
        let skills = SkillExtension::new(SkillSet::new().with(skill)).with_fork(agent_tool.clone());
        let parent = Agent::builder()
            .model(model.clone())
            .extension(skills)
            .extension(Orchestration::new(agent_tool))
            .build()
            .unwrap();
        let response = parent.run(RunOptions::text("audit src")).await.unwrap();
        assert_eq!(response.output_text(), "The audit found no problems.");
        let requests = model.requests().all();
        assert_eq!(requests.len(), 3);
        // The subagent (an Explore, as the skill's `agent` says) got the rendered instructions…
        let task = serde_json::to_string(&*requests[1].messages).unwrap();
        assert!(task.contains("Audit src. FORK-MARKER"), "{task}");
        let explore = Catalog::with_builtins().get("Explore").unwrap().prompt.clone();
        assert!(requests[1].system.as_deref().unwrap_or_default().starts_with(&explore));
        // …and the parent got the answer, never the instructions.
        let parent_view = serde_json::to_string(&*requests[2].messages).unwrap();
        assert!(parent_view.contains("No problems in src."), "{parent_view}");
        assert!(
            !parent_view.contains("FORK-MARKER"),
            "the forked skill's instructions leaked into the parent"
        );
    }

    #[tokio::test]
    async fn a_forked_skill_runs_on_the_model_it_names() {
        let skill = dive_skill::Skill::embedded(
            "skills/quick/SKILL.md",
            "---\nname: quick\ndescription: Answers quickly. Use for quick questions.\ncontext: fork\nmodel: haiku\neffort: low\n---\nAnswer briefly.\n",
        )
        .unwrap();
        let parent_model = ScriptedModel::new([
            ModelResponse::tool_calls(vec![ToolUse::new("c1", "Skill", json!({"skill": "quick"}))]),
            ModelResponse::text("Done."),
        ]);
        let haiku = ScriptedModel::new([ModelResponse::text("Brief answer.")]);
        let factory = DefaultFactory::new(parent_model.clone()).with_model("haiku", haiku.clone());
        let agent_tool = AgentTool::new(Catalog::with_builtins(), factory);
        let skills = SkillExtension::new(SkillSet::new().with(skill)).with_fork(agent_tool.clone());
        let parent = Agent::builder()
            .model(parent_model.clone())
            .extension(skills)
            .extension(Orchestration::new(agent_tool))
            .build()
            .unwrap();
        assert_eq!(parent.run(RunOptions::text("quick one")).await.unwrap().output_text(), "Done.");
        assert_eq!(haiku.requests().len(), 1, "the skill ran on the model it names");
        let effort = haiku.requests().all()[0].reasoning.clone().and_then(|r| r.effort);
        assert_eq!(effort, Some(dive_core::ReasoningEffort::Low), "and at its effort");
        assert_eq!(parent_model.requests().len(), 2, "the parent's model ran only the parent");
    }
}
