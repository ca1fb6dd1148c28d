//! Provider-defined toolsets (tool declarers): members routed by name through the ordinary
//! path (hooks per member), left out of the request's custom tools while the declaration
//! rides along, results carrying the toolset name, and batches of toolset calls halting.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use common::{agent_with, echo, failing};
use dive_core::{
    DeclaredToolset, HookError, Hooks, ModelResponse, PreToolUseDecision, Tool, ToolCallErrorKind,
    ToolDeclaration, ToolUse, ToolUseContext,
};
use dive_test::ScriptedModel;
use serde_json::json;

fn declaration(members: &[&str]) -> ToolDeclaration {
    ToolDeclaration::new("computer", members.iter().copied())
        .with_provider("anthropic", json!({"tools": [{"type": "computer_toolset_20260801"}]}))
}

fn member_call(id: &str, name: &str, input: serde_json::Value) -> ToolUse {
    let mut call = ToolUse::new(id, name, input);
    call.toolset_name = Some("computer".into());
    call
}

#[tokio::test]
async fn members_route_by_name_are_left_out_of_the_tools_and_results_carry_the_toolset() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let toolset = DeclaredToolset::new(
        declaration(&["left_click", "screenshot"]),
        vec![echo("left_click", log.clone()), echo("screenshot", log.clone())],
    )
    .unwrap();
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![member_call("c1", "left_click", json!({"text": "ok"}))]),
        ModelResponse::text("done"),
    ]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let hooked = seen.clone();
    let hooks = Hooks::new().on_pre_tool_use(move |c: ToolUseContext| {
        let seen = hooked.clone();
        async move {
            seen.lock().unwrap().push(c.call.name.clone());
            Ok::<_, HookError>(PreToolUseDecision::allow())
        }
    });
    let agent =
        agent_with(&model).tool(echo("plain", log.clone())).toolset(toolset).hooks(hooks).build().unwrap();
    let response = agent.run("click it").await.unwrap();

    let first = &model.requests().all()[0];
    let names: Vec<&str> = first.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["plain"], "members are not sent as custom tools");
    assert_eq!(first.declared_toolsets.len(), 1);
    assert_eq!(first.declared_toolsets[0].members, ["left_click", "screenshot"]);
    assert_eq!(*log.lock().unwrap(), ["start left_click ok", "end left_click ok"]);
    assert_eq!(*seen.lock().unwrap(), ["left_click"], "hooks see the member, by its name");

    let result = response.tool_call_results().next().unwrap();
    assert_eq!(result.toolset_name.as_deref(), Some("computer"));
    let second = &model.requests().all()[1];
    let block = second.messages.last().unwrap().tool_results_iter().next().unwrap().clone();
    assert_eq!(block.toolset_name.as_deref(), Some("computer"), "the tool_result echoes the toolset");
    assert_eq!(block.text_content(), "ok");
}

#[tokio::test]
async fn a_denied_member_is_refused_alone() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let toolset = DeclaredToolset::new(
        declaration(&["type", "screenshot"]),
        vec![echo("type", log.clone()), echo("screenshot", log.clone())],
    )
    .unwrap();
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![
            member_call("c1", "screenshot", json!({"text": "look"})),
            member_call("c2", "type", json!({"text": "secret"})),
        ]),
        ModelResponse::text("done"),
    ]);
    let hooks = Hooks::new().on_pre_tool_use(|c: ToolUseContext| async move {
        if c.call.name == "type" {
            return Ok(PreToolUseDecision::deny("typing needs approval"));
        }
        Ok::<_, HookError>(PreToolUseDecision::allow())
    });
    let agent = agent_with(&model).toolset(toolset).hooks(hooks).build().unwrap();
    let response = agent.run("go").await.unwrap();
    let results: Vec<_> = response.tool_call_results().collect();
    assert!(results[0].error.is_none());
    assert!(results[1].output.as_ref().unwrap().text_content().contains("typing needs approval"));
    assert_eq!(*log.lock().unwrap(), ["start screenshot look", "end screenshot look"]);
}

#[tokio::test]
async fn toolset_calls_halt_their_batch_without_the_annotation() {
    let log = Arc::new(Mutex::new(Vec::new()));
    // Neither member is annotated halts_batch: membership alone makes the batch halt.
    let toolset = DeclaredToolset::new(
        declaration(&["left_click", "type"]),
        vec![failing("left_click", "no display", false, false), echo("type", log.clone())],
    )
    .unwrap();
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![
            member_call("c1", "left_click", json!({})),
            ToolUse::new("c2", "plain", json!({"text": "independent", "ms": 20})),
            member_call("c3", "type", json!({"text": "hello"})),
        ]),
        ModelResponse::text("done"),
    ]);
    let agent = agent_with(&model)
        .tool(echo("plain", log.clone()))
        .toolset(toolset)
        .parallel_tool_execution(true)
        .build()
        .unwrap();
    let response = agent.run("go").await.unwrap();
    let results: Vec<_> = response.tool_call_results().collect();
    assert_eq!(results[0].error.as_ref().unwrap().kind, ToolCallErrorKind::Failed);
    assert!(results[1].error.is_none(), "a call outside the toolset still runs");
    assert_eq!(results[2].error.as_ref().unwrap().kind, ToolCallErrorKind::BatchHalted);
    assert_eq!(results[2].toolset_name.as_deref(), Some("computer"), "a skipped call's result too");
    // Sequential, in order: the plain call started after the failed click, never alongside.
    assert_eq!(*log.lock().unwrap(), ["start plain independent", "end plain independent"]);
}

#[tokio::test]
async fn a_tool_of_a_declarer_that_is_not_a_member_is_an_ordinary_tool() {
    struct Mixed(Vec<Arc<dyn Tool>>);
    impl dive_core::Toolset for Mixed {
        fn name(&self) -> &str {
            "mixed"
        }
        fn tools<'a>(
            &'a self,
            _run: &'a dive_core::RunInfo,
        ) -> dive_core::BoxFuture<'a, Result<Vec<Arc<dyn Tool>>, dive_core::ToolError>> {
            let tools = self.0.clone();
            Box::pin(async move { Ok(tools) })
        }
        fn declaration(&self) -> Option<Arc<ToolDeclaration>> {
            Some(Arc::new(declaration(&["screenshot"])))
        }
    }
    let log = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedModel::new([ModelResponse::text("hi")]);
    let agent = agent_with(&model)
        .toolset(Mixed(vec![echo("screenshot", log.clone()), echo("notes", log)]))
        .build()
        .unwrap();
    agent.run("go").await.unwrap();
    let request = model.requests().last().unwrap();
    let names: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["notes"]);
    assert_eq!(request.declared_toolsets[0].toolset, "computer");
}

#[tokio::test]
async fn a_resumed_toolset_batch_still_echoes_the_toolset_name() {
    // A member that waits for a person (a confirm step), then the batch is resumed.
    let confirm = dive_core::FunctionTool::new("type", "Types.", |_: serde_json::Value, _ctx| async move {
        Ok::<_, dive_core::ToolError>(dive_core::ToolResult::suspend(dive_core::SuspendRequest::new(
            "Type into the focused window?",
        )))
    });
    let log = Arc::new(Mutex::new(Vec::new()));
    let toolset = DeclaredToolset::new(
        declaration(&["screenshot", "type"]),
        vec![echo("screenshot", log), Arc::new(confirm) as Arc<dyn Tool>],
    )
    .unwrap();
    let model = ScriptedModel::new([
        ModelResponse::tool_calls(vec![
            member_call("c1", "screenshot", json!({"text": "look"})),
            member_call("c2", "type", json!({"text": "hello"})),
        ]),
        ModelResponse::text("typed"),
    ]);
    let agent = agent_with(&model).toolset(toolset).build().unwrap();
    let input = vec![dive_core::Message::user("type hello")];
    let first = agent.run(input).await.unwrap();
    let state = first.suspension.clone().unwrap();
    assert!(state.pending[0].halts_batch, "a toolset call halts its batch across the suspension");
    let resumed = agent
        .run(dive_agent::RunInput::resume_stateless(
            Vec::new(),
            state,
            [("c2", dive_core::ToolOutput::text("Typed."))],
        ))
        .await
        .unwrap();
    assert_eq!(resumed.output_text(), "typed");
    let sent = model.requests().last().unwrap();
    let blocks: Vec<_> = sent.messages.last().unwrap().tool_results_iter().cloned().collect();
    assert_eq!(blocks.len(), 2);
    for block in &blocks {
        assert_eq!(block.toolset_name.as_deref(), Some("computer"), "{block:?}");
    }
    let supplied = resumed.tool_call_results().find(|r| r.id == "c2").unwrap();
    assert_eq!(supplied.toolset_name.as_deref(), Some("computer"));
}
