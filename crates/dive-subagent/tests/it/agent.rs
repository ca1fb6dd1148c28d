//! The `Agent` tool through real `Agent`s on dive-test's scripted model: the parent calls
//! `Agent` with `subagent_type: Explore`, the subagent runs its own tool calls on the same
//! model, and its answer reaches the parent's next request; subagents never get the `Agent`
//! tool; an early stop returns the partial answer and the reason; a background subagent's
//! result arrives on the parent's next model call; a hard or soft cancel of the parent stops
//! the subagent; the factory preloads skills and makes hooks per definition.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use dive_agent::{Agent, CancellationToken, RunOptions};
use dive_core::{
    Content, FunctionTool, Message, ModelRequest, ModelResponse, Tool, ToolContext, ToolError, ToolUse, Usage,
};
use dive_subagent::{
    AgentTool, Catalog, DefaultFactory, Definition, NOTIFICATION_REMINDER, Orchestration, RunStatus,
};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

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

fn tool_names(request: &ModelRequest) -> Vec<String> {
    let mut names: Vec<String> = request.tools.iter().map(|t| t.name.clone()).collect();
    names.sort();
    names
}

fn agent_call(id: &str, subagent_type: &str, prompt: &str, background: bool) -> ModelResponse {
    ModelResponse::tool_calls(vec![ToolUse::new(
        id,
        "Agent",
        json!({"description": "look around", "prompt": prompt, "subagent_type": subagent_type,
               "run_in_background": background}),
    )])
}

/// A tool that records its input and answers `answer`.
fn recording(name: &'static str, answer: &'static str, log: &Arc<Mutex<Vec<String>>>) -> Arc<dyn Tool> {
    let log = log.clone();
    Arc::new(FunctionTool::new(name, "A tool.", move |input: Value, _ctx| {
        let log = log.clone();
        async move {
            log.lock().unwrap().push(format!("{name} {input}"));
            Ok::<_, ToolError>(answer)
        }
    }))
}

#[tokio::test]
async fn explore_runs_its_own_tools_and_its_answer_reaches_the_parents_next_request() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let parent_tools = vec![
        recording("Grep", "src/config.rs:3: fn load_config()", &log),
        recording("Write", "written", &log),
    ];
    let model = ScriptedModel::new([
        agent_call("p1", "Explore", "Find where the config is loaded.", false),
        // The subagent's own calls, on the same model.
        ModelResponse::tool_calls(vec![ToolUse::new("s1", "Grep", json!({"pattern": "load_config"}))])
            .with_usage(Usage::new(100, 10)),
        ModelResponse::text("The config is loaded in src/config.rs line 3.").with_usage(Usage::new(150, 20)),
        ModelResponse::text("It is loaded in src/config.rs.").with_usage(Usage::new(400, 8)),
    ]);
    let agent_tool = AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(model.clone()))
        .with_parent_tools(parent_tools.clone());
    let orchestration = Orchestration::new(agent_tool);
    let parent = Agent::builder()
        .model(model.clone())
        .system_prompt("You are the parent.")
        .tools(parent_tools)
        .extension(orchestration.clone())
        .build()
        .unwrap();
    let response = parent.run(RunOptions::text("Where is the config loaded?")).await.unwrap();
    assert_eq!(response.output_text(), "It is loaded in src/config.rs.");

    let requests = model.requests().all();
    assert_eq!(requests.len(), 4);
    assert!(tool_names(&requests[0]).contains(&"Agent".to_owned()));
    // The subagent's first request: Explore's prompt, the task, read-only tools, no Agent.
    let sub = &requests[1];
    assert!(sub.system.as_deref().unwrap().contains("read-only code explorer"), "{:?}", sub.system);
    assert_eq!(text_of(&sub.messages[0]), "Find where the config is loaded.");
    assert_eq!(tool_names(sub), ["Grep"], "Explore never gets Write, nor any subagent the Agent tool");
    assert_eq!(*log.lock().unwrap(), [r#"Grep {"pattern":"load_config"}"#]);
    assert!(text_of(requests[2].messages.last().unwrap()).contains("src/config.rs:3: fn load_config()"));
    // The parent's next request holds the subagent's answer and its usage.
    let answer = text_of(requests[3].messages.last().unwrap());
    assert!(answer.contains("The config is loaded in src/config.rs line 3."), "{answer}");
    assert!(answer.contains("[subagent usage: 250 input tokens, 30 output tokens]"), "{answer}");
    assert_eq!(orchestration.runs().usage().total_tokens(), 280);
    assert_eq!(orchestration.runs().list()[0].status, RunStatus::Completed);
    // The subagent's usage rolls up into the parent's turn (the parent's own calls: 408).
    assert_eq!(response.usage.total_tokens(), 280 + 408);
    let call = response.tool_call_results().find(|r| r.name == "Agent").unwrap();
    assert_eq!(call.usage.as_deref().map(Usage::total_tokens), Some(280), "kept on the call's record");
}

#[tokio::test]
async fn a_subagent_never_has_the_agent_tool_even_when_its_allowlist_names_it() {
    let model = ScriptedModel::new([
        agent_call("p1", "spawner", "Try to spawn.", false),
        ModelResponse::text("No Agent tool here."),
        ModelResponse::text("ok"),
    ]);
    let catalog = Catalog::with_builtins().with(Definition::new("spawner", "Tries to spawn.").with_tools([
        "Agent",
        "Agent(Explore)",
        "Task",
    ]));
    // The parent passes its whole toolset, an Agent tool included, as the parent tools.
    let with_agent = Orchestration::new(AgentTool::new(catalog, DefaultFactory::new(model.clone())));
    let all_tools = dive_core::Extension::tools(&with_agent);
    let agent_tool = AgentTool::new(
        Catalog::with_builtins().with(Definition::new("spawner", "Tries to spawn.").with_tools([
            "Agent",
            "Agent(Explore)",
            "Task",
        ])),
        DefaultFactory::new(model.clone()),
    )
    .with_parent_tools(all_tools);
    let parent =
        Agent::builder().model(model.clone()).extension(Orchestration::new(agent_tool)).build().unwrap();
    parent.run(RunOptions::text("go")).await.unwrap();
    let requests = model.requests().all();
    assert!(tool_names(&requests[0]).contains(&"Agent".to_owned()));
    assert!(tool_names(&requests[1]).is_empty(), "{:?}", tool_names(&requests[1]));
}

#[tokio::test]
async fn a_subagent_stopped_by_its_turn_limit_returns_its_partial_answer_and_the_reason() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let grep = recording("Grep", "nothing", &log);
    let model = ScriptedModel::new([
        agent_call("p1", "digger", "Dig.", false),
        ModelResponse::tool_calls(vec![ToolUse::new("s1", "Grep", json!({"pattern": "a"}))]),
        // Its last allowed call still asks for a tool: the turn limit stops it.
        {
            let mut r = ModelResponse::tool_calls(vec![ToolUse::new("s2", "Grep", json!({"pattern": "b"}))]);
            r.content.insert(0, Content::text("Found half of it so far."));
            r
        },
        ModelResponse::text("ok"),
    ]);
    let catalog = Catalog::new().with(Definition::new("digger", "Digs.").with_max_turns(1));
    let agent_tool =
        AgentTool::new(catalog, DefaultFactory::new(model.clone())).with_parent_tools(vec![grep.clone()]);
    let parent = Agent::builder()
        .model(model.clone())
        .tool(grep)
        .extension(Orchestration::new(agent_tool))
        .build()
        .unwrap();
    parent.run(RunOptions::text("go")).await.unwrap();
    let requests = model.requests().all();
    // The subagent's last call is told it must answer; the parent then reads the partial answer.
    let result = text_of(requests[3].messages.last().unwrap());
    assert!(result.contains("stopped early (iteration_limit)"), "{result}");
    assert!(result.contains("Found half of it so far."), "{result}");
}

#[tokio::test]
async fn an_unknown_subagent_type_is_an_error_naming_the_types() {
    let tool = AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(ScriptedModel::new([])));
    // The engine's schema check refuses it first; called directly, the tool says the same.
    assert_eq!(
        tool.input_schema()["properties"]["subagent_type"]["enum"],
        json!(["general-purpose", "Explore", "Plan"])
    );
    let input = json!({"description": "d", "prompt": "p", "subagent_type": "Nope"});
    let result = tool.call(input, ToolContext::detached("Agent")).await.unwrap();
    let dive_core::ToolResult::Output(output) = result else { panic!("an output") };
    assert!(output.is_error);
    assert_eq!(
        output.text_content(),
        r#"there is no subagent type "Nope": use one of general-purpose, Explore, Plan"#
    );
}

#[tokio::test]
async fn a_background_subagents_result_reaches_the_parents_next_model_call() {
    let parent_model = ScriptedModel::new([
        agent_call("p1", "general-purpose", "Summarise the logs.", true),
        ModelResponse::text("Started it."),
        ModelResponse::text("The logs say all is well."),
    ]);
    let sub_model = ScriptedModel::new([ModelResponse::text("All is well in the logs.")]);
    let agent_tool = AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(sub_model.clone()));
    let orchestration = Orchestration::new(agent_tool);
    let parent =
        Agent::builder().model(parent_model.clone()).extension(orchestration.clone()).build().unwrap();
    let first = parent.run(RunOptions::text("Check the logs in the background.")).await.unwrap();
    assert_eq!(first.output_text(), "Started it.");
    let started = text_of(parent_model.requests().all()[1].messages.last().unwrap());
    assert!(started.contains("Started background agent agent-1"), "{started}");

    let done = orchestration.runs().wait("agent-1").await.unwrap();
    assert_eq!(done.status, RunStatus::Completed);
    let history = [Message::user("Check the logs in the background."), Message::assistant("Started it.")];
    let mut messages = history.to_vec();
    messages.push(Message::user("Anything back?"));
    parent.run(RunOptions::messages(messages)).await.unwrap();
    let request = parent_model.requests().last().unwrap();
    let delivered = request
        .messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(Content::as_reminder)
        .find(|r| r.name == NOTIFICATION_REMINDER)
        .expect("the result arrives as a task notification");
    assert!(delivered.content.contains("<task-id>agent-1</task-id>"), "{}", delivered.content);
    assert!(delivered.content.contains("<status>completed</status>"), "{}", delivered.content);
    assert!(delivered.content.contains("All is well in the logs."), "{}", delivered.content);
    assert!(orchestration.runs().take_notifications().is_empty(), "delivered once");
}

#[tokio::test]
async fn a_hard_cancel_of_the_parent_stops_the_subagent() {
    let started = Arc::new(tokio::sync::Notify::new());
    let blocker: Arc<dyn Tool> = {
        let started = started.clone();
        Arc::new(FunctionTool::new("Wait", "Waits forever.", move |_: Value, _ctx| {
            let started = started.clone();
            async move {
                started.notify_one();
                std::future::pending::<()>().await;
                Ok::<_, ToolError>("never")
            }
        }))
    };
    let model = ScriptedModel::new([
        agent_call("p1", "general-purpose", "Wait.", false),
        ModelResponse::tool_calls(vec![ToolUse::new("s1", "Wait", json!({}))]),
    ]);
    let agent_tool = AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(model.clone()))
        .with_parent_tools(vec![blocker]);
    let orchestration = Orchestration::new(agent_tool);
    let parent = Agent::builder().model(model.clone()).extension(orchestration.clone()).build().unwrap();
    let token = CancellationToken::new();
    let run = tokio::spawn({
        let token = token.clone();
        async move { parent.run(RunOptions::text("go").with_cancel(token)).await }
    });
    started.notified().await;
    token.cancel();
    assert!(run.await.unwrap().is_err(), "the parent's turn is cancelled");
    let sub = orchestration.runs().wait("agent-1").await.unwrap();
    assert_eq!(sub.status, RunStatus::Stopped);
    assert!(sub.result.unwrap().contains("stopped early (canceled"));
}

#[tokio::test]
async fn the_factory_preloads_a_definitions_skills_applies_its_effort_and_makes_hooks_for_its_permission_mode()
 {
    let model = ScriptedModel::new([
        agent_call("p1", "reviewer", "Review it.", false),
        ModelResponse::text("Reviewed."),
        ModelResponse::text("ok"),
    ]);
    let mut reviewer = Definition::new("reviewer", "Reviews.").with_prompt("You review.");
    reviewer.skills = vec!["checklist".into(), "missing".into()];
    reviewer.permission_mode = Some("plan".into());
    reviewer.effort = Some("High".into());
    let modes = Arc::new(Mutex::new(Vec::new()));
    let factory = DefaultFactory::new(model.clone())
        .with_skills(
            dive_skill::SkillSet::new().with(
                dive_skill::Skill::new("checklist", "The review checklist.")
                    .with_body("1. Tests pass.\n2. Docs updated.\n"),
            ),
        )
        .with_hooks_for({
            let modes = modes.clone();
            move |def| {
                modes.lock().unwrap().push(def.permission_mode.clone());
                dive_core::Hooks::new()
            }
        });
    let agent_tool = AgentTool::new(Catalog::new().with(reviewer), factory);
    let parent =
        Agent::builder().model(model.clone()).extension(Orchestration::new(agent_tool)).build().unwrap();
    parent.run(RunOptions::text("go")).await.unwrap();
    let system = model.requests().all()[1].system.clone().unwrap();
    assert!(system.starts_with("You review."), "{system}");
    assert!(
        system.contains("<skill name=\"checklist\">\n1. Tests pass.\n2. Docs updated.\n</skill>"),
        "{system}"
    );
    assert_eq!(*modes.lock().unwrap(), [Some("plan".to_owned())]);
    let reasoning = model.requests().all()[1].reasoning.clone();
    assert_eq!(reasoning.and_then(|r| r.effort), Some(dive_core::ReasoningEffort::High), "effort: High");
    assert!(model.requests().all()[0].reasoning.is_none(), "the parent's own requests keep theirs");
}

#[tokio::test]
async fn a_soft_cancel_of_the_parent_stops_the_subagent_at_its_next_step() {
    let soft = dive_core::SoftCancel::new();
    let canceller: Arc<dyn Tool> = {
        let soft = soft.clone();
        Arc::new(FunctionTool::new("Step", "One step.", move |_: Value, _ctx| {
            let soft = soft.clone();
            async move {
                soft.cancel();
                Ok::<_, ToolError>("stepped")
            }
        }))
    };
    let model = ScriptedModel::new([
        agent_call("p1", "general-purpose", "Step twice.", false),
        {
            let mut r = ModelResponse::tool_calls(vec![ToolUse::new("s1", "Step", json!({}))]);
            r.content.insert(0, Content::text("Stepping once."));
            r
        },
        ModelResponse::text("never reached"),
    ]);
    let agent_tool = AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(model.clone()))
        .with_parent_tools(vec![canceller]);
    let orchestration = Orchestration::new(agent_tool);
    let parent = Agent::builder().model(model.clone()).extension(orchestration.clone()).build().unwrap();
    let _ = parent.run(RunOptions::text("go").with_soft_cancel(soft)).await;
    assert_eq!(model.requests().len(), 2, "the subagent made no call after the parent's soft cancel");
    let sub = orchestration.runs().get("agent-1").unwrap();
    assert_eq!(sub.status, RunStatus::Stopped);
    let result = sub.result.unwrap();
    assert!(result.contains("stopped early (canceled") && result.contains("Stepping once."), "{result}");
}

/// A subagent type that runs elsewhere: it upper-cases its task, or waits for its cancel.
struct Shouter;

impl dive_subagent::ExternalAgent for Shouter {
    fn run<'a>(
        &'a self,
        task: String,
        cancel: CancellationToken,
    ) -> dive_core::BoxFuture<'a, dive_subagent::Report> {
        Box::pin(async move {
            if task.contains("wait") {
                cancel.cancelled().await;
                return dive_subagent::Report::stopped("", "canceled by the parent");
            }
            dive_subagent::Report::answered(task.to_uppercase()).with_usage(Usage::new(5, 3))
        })
    }
}

#[tokio::test]
async fn an_external_subagent_type_runs_elsewhere_and_its_answer_reaches_the_parent() {
    let model = ScriptedModel::new([
        agent_call("p1", "shouter", "hello there", false),
        ModelResponse::text("It shouted."),
        agent_call("p2", "shouter", "wait for it", true),
        ModelResponse::text("Started."),
    ]);
    let catalog = Catalog::with_builtins()
        .with_external(Definition::new("shouter", "Shouts the task back (remote)."), Arc::new(Shouter));
    let agent_tool = AgentTool::new(catalog, DefaultFactory::new(model.clone()));
    assert!(agent_tool.description().contains("- shouter: Shouts the task back (remote)."));
    let orchestration = Orchestration::new(agent_tool);
    let parent = Agent::builder().model(model.clone()).extension(orchestration.clone()).build().unwrap();
    let response = parent.run(RunOptions::text("shout it")).await.unwrap();
    assert_eq!(response.output_text(), "It shouted.");
    let requests = model.requests().all();
    assert_eq!(requests.len(), 2, "the external type used none of the parent's model calls");
    assert!(text_of(requests[1].messages.last().unwrap()).contains("HELLO THERE"));
    assert_eq!(response.usage.total_tokens(), 8, "its usage rolls up too");

    // In the background, TaskStop's cancel reaches it.
    parent.run(RunOptions::text("again, in the background")).await.unwrap();
    let run = orchestration.runs().list().into_iter().find(|r| r.status == RunStatus::Running).unwrap();
    orchestration.runs().stop(&run.id).unwrap();
    let done = orchestration.runs().wait(&run.id).await.unwrap();
    assert_eq!(done.status, RunStatus::Stopped, "{done:?}");
}

/// What a parent hands its subagents through `with_run_values` (trace context, in practice).
#[derive(Clone)]
struct FromParent(String);

#[tokio::test]
async fn run_values_made_from_the_parents_call_reach_the_subagents_tools() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let probe: Arc<dyn Tool> = {
        let seen = seen.clone();
        Arc::new(FunctionTool::new("probe", "Probes.", move |_input: Value, ctx: ToolContext| {
            let seen = seen.clone();
            async move {
                seen.lock().unwrap().push(ctx.run.values.get::<FromParent>().map(|v| v.0));
                Ok::<_, ToolError>("probed")
            }
        }))
    };
    let model = ScriptedModel::new([
        agent_call("p1", "general-purpose", "Probe it.", false),
        ModelResponse::tool_calls(vec![ToolUse::new("s1", "probe", json!({}))]),
        ModelResponse::text("Probed."),
        ModelResponse::text("Done."),
    ]);
    let agent_tool = AgentTool::new(Catalog::with_builtins(), DefaultFactory::new(model.clone()))
        .with_parent_tools([probe])
        .with_run_values(|ctx| {
            let values = dive_core::Values::new();
            values.insert(FromParent(format!("from call {}", ctx.call_id)));
            values
        });
    let parent =
        Agent::builder().model(model.clone()).extension(Orchestration::new(agent_tool)).build().unwrap();
    parent.run(RunOptions::text("go")).await.unwrap();
    assert_eq!(*seen.lock().unwrap(), [Some("from call p1".to_owned())]);
}
