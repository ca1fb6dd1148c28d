//! A skill loaded through the Skill tool survives a summarising compaction word for word when
//! the policy keeps `carry_over`, and is lost to the summary without it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_agent::{Agent, CompactionPolicy, Summarize};
use dive_core::{FunctionTool, ModelRequest, ModelResponse, ToolError, ToolUse};
use dive_skill::{Skill, SkillExtension, SkillSet};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

const BODY: &str = "Write 5-7-5 syllables. Never rhyme.";

async fn run(keep_skills: bool) -> ModelRequest {
    let skill = Skill::new("haiku", "Haiku rules.").with_body(BODY);
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![ToolUse::new("c1", "Skill", json!({"skill": "haiku"}))]),
        ModelResponse::tool_calls(vec![ToolUse::new("c2", "notes", json!({}))]),
        ModelResponse::text("An old pond."),
    ]);
    let notes = FunctionTool::new("notes", "Reads the notes.", |_i: Value, _c| async move {
        Ok::<_, ToolError>("note ".repeat(500))
    });
    let mut policy =
        CompactionPolicy::new(Summarize::new(ScriptedModel::new([ModelResponse::text("Summary.")])))
            .context_limit(1_000)
            .threshold(0.5);
    if keep_skills {
        policy = policy.keep(dive_skill::carry_over);
    }
    let agent = Agent::builder()
        .model(model.clone())
        .tool(notes)
        .extension(SkillExtension::new(SkillSet::new().with(skill)))
        .compaction(policy)
        .build()
        .unwrap();
    agent.run("write a haiku from my notes").await.unwrap();
    model.requests().last().unwrap()
}

fn sent_text(request: &ModelRequest) -> String {
    serde_json::to_string(&*request.messages).unwrap()
}

#[tokio::test]
async fn a_loaded_skill_survives_a_summary_with_carry_over() {
    let sent = run(true).await;
    let text = sent_text(&sent);
    assert!(text.contains("Summary of the conversation so far:"), "{text}");
    assert!(text.contains("<skill_content name=\\\"haiku\\\">") && text.contains(BODY), "{text}");
}

#[tokio::test]
async fn without_carry_over_the_summary_replaces_the_skill() {
    let sent = run(false).await;
    let text = sent_text(&sent);
    assert!(text.contains("Summary of the conversation so far:"), "{text}");
    assert!(!text.contains(BODY), "{text}");
}
