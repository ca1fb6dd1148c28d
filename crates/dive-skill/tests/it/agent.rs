//! The extension through a real `Agent` on dive-test's scripted model: the catalog, the rules
//! and the Skill tool in the request; the model calls `Skill` and the skill's body reaches
//! the next request; a loaded skill is not injected again; `allowed-tools` refuses other
//! tools while the skill is active, and the skill's directory stays readable.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use dive_agent::{Agent, RunOptions};
use dive_core::{
    Content, FunctionTool, Message, ModelRequest, ModelResponse, Role, ToolAnnotations, ToolCallErrorKind,
    ToolError, ToolUse, find_latest_reminder,
};
use dive_skill::{CATALOG_REMINDER, Discovery, Skill, SkillExtension, SkillSet};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Every text the model could read in a message: text blocks, tool results, reminders.
fn text_of(message: &Message) -> String {
    message
        .content
        .iter()
        .map(|c| match c {
            Content::ToolResult(r) => r.text_content(),
            Content::Reminder(r) => r.render(),
            other => other.as_text().unwrap_or_default().to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn last_text(request: &ModelRequest) -> String {
    text_of(request.messages.last().unwrap())
}

fn skill_call(id: &str, skill: &str, args: Option<&str>) -> ModelResponse {
    let mut input = json!({"skill": skill});
    if let Some(args) = args {
        input["args"] = json!(args);
    }
    ModelResponse::tool_calls(vec![ToolUse::new(id, "Skill", input)])
}

#[tokio::test]
async fn the_model_calls_skill_and_the_body_reaches_the_next_request() {
    let project = tempfile::tempdir().unwrap();
    write(
        project.path(),
        ".dive/skills/review/SKILL.md",
        "---\nname: review\ndescription: Reviews a change. Use for code review.\nargument-hint: \"[file]\"\n---\n\
         Review $1 carefully. Run scripts/check.sh first.\n",
    );
    write(project.path(), ".dive/skills/review/scripts/check.sh", "echo SECRET-SCRIPT-BODY\n");
    write(project.path(), ".claude/commands/deploy.md", "Deploy to $1.\n");
    let skills = Discovery::new().project(project.path(), true).discover();
    assert_eq!(skills.len(), 2);

    let model = ScriptedModel::new([
        skill_call("c1", "review", Some("src/lib.rs")),
        ModelResponse::text("Reviewed."),
    ]);
    let agent = Agent::builder()
        .model(model.clone())
        .system_prompt("You help.")
        .extension(SkillExtension::new(skills))
        .build()
        .unwrap();
    let response = agent.run(RunOptions::text("Review src/lib.rs")).await.unwrap();
    assert_eq!(response.output_text(), "Reviewed.");
    // The load is on the call's span as the tracing conventions name it.
    let call = response.tool_call_results().find(|r| r.name == "Skill").unwrap();
    let attributes = &call.output.as_ref().unwrap().span_attributes;
    assert!(attributes.contains(&("gen_ai.skill.name", json!("review"))), "{attributes:?}");
    assert!(
        attributes.iter().any(|(k, v)| *k == "gen_ai.skill.source.uri"
            && v.as_str()
                .is_some_and(|uri| uri.starts_with("file://") && uri.ends_with(".dive/skills/review"))),
        "{attributes:?}"
    );

    let requests = model.requests().all();
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    let tool = first.tools.iter().find(|t| t.name == "Skill").expect("the Skill tool is offered");
    assert_eq!(
        tool.input_schema["properties"]["skill"]["enum"],
        json!(["review"]),
        "user-only commands are not in the enum"
    );
    assert!(first.system.as_deref().unwrap().contains("call the `Skill` tool"), "{:?}", first.system);
    let catalog = find_latest_reminder(&first.messages, CATALOG_REMINDER).expect("the catalog reminder");
    assert!(
        catalog.content.contains("- review: Reviews a change. Use for code review. Arguments: [file]"),
        "{}",
        catalog.content
    );
    assert!(!catalog.content.contains("deploy"));

    let second = last_text(&requests[1]);
    let dir = project.path().join(".dive/skills/review");
    assert!(second.contains("Launching skill: review"), "{second}");
    assert!(second.contains("<skill_content name=\"review\">"), "{second}");
    assert!(second.contains(&format!("Base directory of this skill: {}", dir.display())), "{second}");
    assert!(second.contains("Review src/lib.rs carefully. Run scripts/check.sh first."), "{second}");
    assert!(second.contains("<skill_files>\nscripts/check.sh\n</skill_files>"), "{second}");
    assert!(!second.contains("SECRET-SCRIPT-BODY"), "bundled files are listed, not read");
    let catalogs = |r: &ModelRequest| {
        r.messages
            .iter()
            .flat_map(|m| &m.content)
            .filter_map(Content::as_reminder)
            .filter(|r| r.name == CATALOG_REMINDER)
            .count()
    };
    assert_eq!(
        (catalogs(first), catalogs(&requests[1])),
        (1, 1),
        "one catalog with every call, never piling up"
    );
}

#[tokio::test]
async fn no_model_skills_means_no_tool_no_catalog_and_no_rules() {
    let skills = SkillSet::new().with(Skill::new("deploy", "Deploys.").user_only());
    let model = ScriptedModel::new([ModelResponse::text("hi")]);
    let agent = Agent::builder()
        .model(model.clone())
        .system_prompt("Base.")
        .extension(SkillExtension::new(skills))
        .build()
        .unwrap();
    agent.run(RunOptions::text("hello")).await.unwrap();
    let request = model.requests().last().unwrap();
    assert!(request.tools.iter().all(|t| t.name != "Skill"));
    assert!(find_latest_reminder(&request.messages, CATALOG_REMINDER).is_none());
    // No skill rules: only the engine's reminder rule, there for any agent with extensions.
    assert_eq!(request.system, Some(format!("Base.\n\n{}", dive_agent::REMINDER_PRIMING_RULE)));
}

#[tokio::test]
async fn a_skill_already_in_context_is_not_injected_again() {
    let skills =
        || SkillSet::new().with(Skill::new("haiku", "Writes haikus.").with_body("Count syllables: 5-7-5."));
    // Twice in one turn: the second call is answered without a second copy.
    let model = ScriptedModel::new([
        skill_call("c1", "haiku", None),
        skill_call("c2", "haiku", None),
        ModelResponse::text("ok"),
    ]);
    let agent =
        Agent::builder().model(model.clone()).extension(SkillExtension::new(skills())).build().unwrap();
    agent.run(RunOptions::text("poem")).await.unwrap();
    let requests = model.requests().all();
    assert!(last_text(&requests[1]).contains("<skill_content name=\"haiku\">"));
    let third = last_text(&requests[2]);
    assert!(third.contains("already loaded"), "{third}");
    assert!(!third.contains("<skill_content"), "{third}");
    let copies: usize =
        requests[2].messages.iter().map(|m| text_of(m).matches("Count syllables").count()).sum();
    assert_eq!(copies, 1);

    // Other arguments make other content: that is delivered.
    let skill = Skill::new("fix", "Fixes an issue.").with_body("Fix issue $1.");
    let model = ScriptedModel::new([
        skill_call("c1", "fix", Some("1")),
        skill_call("c2", "fix", Some("2")),
        skill_call("c3", "fix", Some("1")),
        ModelResponse::text("ok"),
    ]);
    let agent = Agent::builder()
        .model(model.clone())
        .extension(SkillExtension::new(SkillSet::new().with(skill)))
        .build()
        .unwrap();
    agent.run(RunOptions::text("fix both")).await.unwrap();
    let requests = model.requests().all();
    assert!(last_text(&requests[1]).contains("Fix issue 1."));
    assert!(last_text(&requests[2]).contains("Fix issue 2."));
    assert!(
        last_text(&requests[3]).contains("already loaded")
            && !last_text(&requests[3]).contains("<skill_content")
    );

    // Loaded in an earlier turn (in the history): not injected again either.
    let history = vec![
        Message::user("poem"),
        Message::new(Role::Assistant, vec![Content::tool_use("c0", "Skill", json!({"skill": "haiku"}))]),
        Message::new(
            Role::User,
            vec![
                Content::ToolResult(dive_core::ToolResultContent::text("c0", "Launching skill: haiku")),
                Content::text("<skill_content name=\"haiku\">\nCount syllables: 5-7-5.\n</skill_content>"),
            ],
        ),
        Message::assistant("An old pond…"),
        Message::user("another"),
    ];
    let model = ScriptedModel::new([skill_call("c1", "haiku", None), ModelResponse::text("ok")]);
    let agent =
        Agent::builder().model(model.clone()).extension(SkillExtension::new(skills())).build().unwrap();
    agent.run(RunOptions::messages(history)).await.unwrap();
    let last = last_text(&model.requests().last().unwrap());
    assert!(last.contains("already loaded") && !last.contains("<skill_content"), "{last}");
}

#[tokio::test]
async fn allowed_tools_refuse_other_tools_while_the_skill_is_active() {
    let project = tempfile::tempdir().unwrap();
    write(
        project.path(),
        ".dive/skills/audit/SKILL.md",
        "---\nname: audit\ndescription: Audits files read-only.\nallowed-tools: Read Bash(git status)\n---\nOnly read.\n",
    );
    write(project.path(), ".dive/skills/audit/references/rules.md", "rule 1\n");
    let skills = Discovery::new().project(project.path(), true).discover();
    let dir = project.path().join(".dive/skills/audit");
    let inside = dir.join("references/rules.md").display().to_string();
    let outside = project.path().join("secrets.txt").display().to_string();

    let ran: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let tool = |name: &'static str, read_only: bool| {
        let ran = ran.clone();
        let annotations = ToolAnnotations::default().with_read_only(read_only);
        FunctionTool::new(name, "A tool.", move |input: Value, _ctx| {
            let ran = ran.clone();
            async move {
                ran.lock().unwrap().push(format!("{name} {input}"));
                Ok::<_, ToolError>("done")
            }
        })
        .with_annotations(annotations)
    };
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![ToolUse::new("b0", "Bash", json!({"command": "ls"}))]),
        skill_call("s1", "audit", None),
        ModelResponse::tool_calls(vec![
            ToolUse::new("b1", "Bash", json!({"command": "rm -rf /"})),
            ToolUse::new("b2", "Bash", json!({"command": "git status"})),
            ToolUse::new("r1", "Read", json!({"file_path": outside})),
            ToolUse::new("g1", "Glob", json!({"path": inside})),
            ToolUse::new("g2", "Glob", json!({"path": outside})),
        ]),
        ModelResponse::text("Audited."),
    ]);
    let agent = Agent::builder()
        .model(model.clone())
        .tool(tool("Bash", false))
        .tool(tool("Read", true))
        .tool(tool("Glob", true))
        .extension(SkillExtension::new(skills))
        .build()
        .unwrap();
    let response = agent.run(RunOptions::text("audit")).await.unwrap();

    let results: Vec<_> = response.tool_call_results().collect();
    let by_id = |id: &str| results.iter().find(|r| r.id == id).unwrap();
    assert!(by_id("b0").error.is_none(), "before the skill is active, Bash runs");
    let denied = by_id("b1");
    assert_eq!(denied.error.as_ref().map(|e| e.kind), Some(ToolCallErrorKind::Denied));
    let reason = denied.output.as_ref().unwrap().text_content();
    assert!(
        reason.contains(
            "`Bash` cannot run while the skill `audit` is active: it allows only Read, Bash(git status)"
        ),
        "{reason}"
    );
    assert!(by_id("b2").error.is_none(), "an allowed specifier runs");
    assert!(by_id("r1").error.is_none(), "an allowed tool runs");
    assert!(by_id("g1").error.is_none(), "a read inside the skill's directory runs");
    assert_eq!(by_id("g2").error.as_ref().map(|e| e.kind), Some(ToolCallErrorKind::Denied));

    let ran = ran.lock().unwrap().clone();
    assert_eq!(ran.len(), 4, "{ran:?}");
    assert!(!ran.iter().any(|r| r.contains("rm -rf")), "the refused call never ran: {ran:?}");
}

#[tokio::test]
async fn loaded_skills_survive_a_compaction_word_for_word_and_are_not_loaded_again() {
    let skills = SkillSet::new().with(
        Skill::new("haiku", "Writes haikus. Use when asked for a poem.")
            .with_body("Count 5-7-5. HAIKU-RULES"),
    );
    let model = ScriptedModel::new([
        skill_call("c1", "haiku", None),
        ModelResponse::text("An old silent pond."),
        // After the compaction the model tries to load it again.
        skill_call("c2", "haiku", None),
        ModelResponse::text("A frog jumps in."),
    ]);
    let agent = Agent::builder().model(model.clone()).extension(SkillExtension::new(skills)).build().unwrap();
    agent.run(RunOptions::text("a poem")).await.unwrap();
    let before = model.requests().all()[1].messages.to_vec();
    let kept = dive_skill::carry_over(&before).expect("the loaded skill is carried over");
    assert!(text_of(&kept).contains("HAIKU-RULES"));
    // The compacted conversation: a summary, then the skills kept.
    let compacted = vec![
        Message::user("Summary: the user wanted a poem; one was written."),
        kept,
        Message::user("another"),
    ];
    agent.run(RunOptions::messages(compacted)).await.unwrap();
    let after = model.requests().all();
    let answer = last_text(&after[3]);
    assert!(answer.contains("already loaded"), "the skill was injected a second time: {answer}");
    assert!(dive_skill::carry_over(&[Message::user("no skills here")]).is_none());
}
