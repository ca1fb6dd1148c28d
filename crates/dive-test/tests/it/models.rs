//! The test models behave as documented.

use dive_core::{
    Content, Llm, LlmError, LlmErrorKind, Message, ModelRequest, ModelResponse, ResponseAccumulator, Role,
    ToolDefinition, ToolResultContent, schema_for,
};
use dive_test::{ScriptStep, ScriptedModel, TestModel};
use futures::StreamExt;
use futures::executor::block_on;

#[allow(dead_code)]
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct ReadInput {
    path: String,
    limit: Option<u32>,
}

#[test]
fn test_model_calls_each_tool_once_then_summarises() {
    let model = TestModel::new();
    let tools = vec![
        ToolDefinition::new("read", "Read a file", schema_for::<ReadInput>()),
        ToolDefinition::new("clock", "Time", dive_core::empty_object_schema()),
    ];
    let mut history = vec![Message::user("go")];
    let mut calls = Vec::new();
    for _ in 0..3 {
        let request = ModelRequest::new(history.clone()).with_tools(tools.clone());
        let response = block_on(model.generate(request)).unwrap();
        let uses: Vec<_> = response.tool_uses().cloned().collect();
        history.push(response.to_message());
        if uses.is_empty() {
            break;
        }
        for u in &uses {
            calls.push((u.name.clone(), u.input.clone().into_value()));
            history.push(Message::tool_results(vec![ToolResultContent::text(
                u.id.clone(),
                format!("{} done", u.name),
            )]));
        }
    }
    assert_eq!(calls[0], ("read".to_string(), serde_json::json!({"path": "test"})));
    assert_eq!(calls[1].0, "clock");
    let answer = history.last().unwrap();
    assert_eq!(answer.role, Role::Assistant);
    assert!(answer.text().contains("- read (ok): read done"), "{}", answer.text());
    assert!(answer.text().contains("- clock (ok): clock done"));
    model.requests().assert_count(3).assert_tool_calls_answered().assert_tools(&["read", "clock"]);
}

#[test]
fn test_model_without_tools_echoes_input() {
    let r = block_on(TestModel::new().generate(ModelRequest::new(vec![Message::user("hello")]))).unwrap();
    assert_eq!(r.text_content(), "Test response to: hello");
    assert!(r.usage.output_tokens > 0);
}

#[test]
fn scripted_model_streams_steps_and_errors() {
    let model = ScriptedModel::from_steps([
        ScriptStep::Response(ModelResponse::text("one")),
        ScriptStep::Error(LlmError::new(LlmErrorKind::Overloaded, "busy")),
    ])
    .streaming();
    assert!(model.supports_streaming());
    let stream = block_on(model.stream(ModelRequest::new(vec![Message::user("a")]))).unwrap();
    let events: Vec<_> = block_on(stream.collect::<Vec<_>>());
    let mut acc = ResponseAccumulator::new();
    for e in events {
        acc.add(&e.unwrap()).unwrap();
    }
    assert_eq!(acc.into_response().content, vec![Content::text("one")]);
    let err = block_on(model.generate(ModelRequest::new(vec![Message::user("b")]))).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::Overloaded);
    let exhausted = block_on(model.generate(ModelRequest::default())).unwrap_err();
    assert!(exhausted.message.contains("no step left"));
    model.requests().assert_count(3);
}

#[test]
fn scripted_events_cut_short_fail_generate_as_interrupted() {
    let response = ModelResponse::text("partial");
    let mut events: Vec<_> = dive_core::StreamEvent::sequence_for(&response).into_iter().map(Ok).collect();
    events.truncate(3);
    let model = ScriptedModel::from_steps([ScriptStep::Events(events)]);
    let err = block_on(model.generate(ModelRequest::default())).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::StreamInterrupted);
}
