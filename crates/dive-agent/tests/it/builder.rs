//! Building an agent: models and tools taken by value or already shared, and the runtime a run
//! needs (a typed error, not a panic, without one).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::calls;
use dive_agent::{Agent, AgentError};
use dive_core::{FunctionTool, Llm, ModelResponse, Tool, ToolError};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

fn upper() -> FunctionTool {
    FunctionTool::new("upper", "Upper-cases.", |input: Value, _ctx| async move {
        Ok::<_, ToolError>(input["text"].as_str().unwrap_or_default().to_uppercase())
    })
}

#[tokio::test]
async fn a_model_and_a_tool_are_taken_by_value() {
    let model =
        ScriptedModel::new([calls(&[("c1", "upper", json!({"text": "hi"}))]), ModelResponse::text("ok")]);
    let agent = Agent::builder().model(model.clone()).tool(upper()).build().unwrap();
    assert_eq!(agent.tools()[0].name(), "upper");
    let response = agent.run("go").await.unwrap();
    assert_eq!(response.tool_call_results().next().unwrap().output.as_ref().unwrap().text_content(), "HI");
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn an_already_shared_model_or_tool_is_not_wrapped_again() {
    let model: Arc<dyn Llm> = Arc::new(ScriptedModel::new([ModelResponse::text("ok")]));
    let tool: Arc<dyn Tool> = Arc::new(upper());
    let agent = Agent::builder().model(Arc::clone(&model)).tool(Arc::clone(&tool)).build().unwrap();
    assert!(Arc::ptr_eq(&agent.model(), &model), "the same Arc<dyn Llm>, not an Arc around it");
    assert!(Arc::ptr_eq(&agent.tools()[0], &tool));
    assert_eq!(agent.run("go").await.unwrap().output_text(), "ok");
}

#[tokio::test]
async fn a_toolset_and_a_tracer_are_taken_by_value() {
    let model =
        ScriptedModel::new([calls(&[("c1", "upper", json!({"text": "ok"}))]), ModelResponse::text("done")]);
    let toolset = dive_core::StaticToolset::new("extra", vec![Arc::new(upper())]);
    let agent =
        Agent::builder().model(model.clone()).toolset(toolset).tracer(dive_core::NopTracer).build().unwrap();
    assert!(agent.has_tools());
    let response = agent.run("go").await.unwrap();
    assert_eq!(response.tool_call_results().next().unwrap().output.as_ref().unwrap().text_content(), "OK");
    model.requests().assert_tools(&["upper"]);
}

#[test]
fn a_run_outside_a_tokio_runtime_is_a_typed_error() {
    let model = ScriptedModel::new([ModelResponse::text("never")]);
    let agent = Agent::builder().model(model.clone()).build().unwrap();
    let err = futures::executor::block_on(agent.run("hi")).unwrap_err();
    assert!(matches!(&err, AgentError::Runtime(m) if m.contains("needs a Tokio runtime")), "{err}");
    assert!(model.requests().is_empty());
}

#[test]
fn a_run_on_a_runtime_without_timers_is_a_typed_error() {
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let model = ScriptedModel::new([ModelResponse::text("never")]);
    let agent = Agent::builder().model(model.clone()).build().unwrap();
    let err = runtime.block_on(agent.run("hi")).unwrap_err();
    assert!(matches!(&err, AgentError::Runtime(m) if m.contains("enable_all()")), "{err}");
    assert!(model.requests().is_empty());
    let streamed = runtime.block_on(agent.stream("hi").finish()).unwrap_err();
    assert!(matches!(streamed, AgentError::Runtime(_)));
}
