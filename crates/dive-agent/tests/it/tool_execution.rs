//! Tool execution: parallel ordering, panics, unknown tools, schema
//! validation, halting batches, fatal errors, suspension, background work, streaming output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{agent_with, calls, echo, failing, last_results, result_order};
use dive_agent::{AgentError, RunOptions, TurnFailure, await_background_tasks};
use dive_core::{
    FunctionTool, ModelResponse, OutcomeReason, ResponseItem, SuspendRequest, ToolAnnotations,
    ToolCallErrorKind, ToolCallState, ToolError, ToolOutput, ToolProgress, ToolResult, TurnStatus,
};
use dive_test::ScriptedModel;
use serde_json::{Value, json};

#[tokio::test(start_paused = true)]
async fn parallel_batches_emit_by_completion_and_answer_by_declaration() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedModel::new([
        calls(&[
            ("slow", "echo", json!({"text": "slow", "ms": 300})),
            ("fast", "echo", json!({"text": "fast", "ms": 10})),
            ("mid", "echo", json!({"text": "mid", "ms": 100})),
        ]),
        ModelResponse::text("ok"),
    ]);
    let agent =
        agent_with(&model).tool(echo("echo", log.clone())).parallel_tool_execution(true).build().unwrap();
    let started = tokio::time::Instant::now();
    let response = agent.run("go").await.unwrap();
    assert!(started.elapsed() < Duration::from_millis(350), "calls overlapped: {:?}", started.elapsed());
    assert_eq!(result_order(&response.items), ["fast", "mid", "slow"]);
    let ids: Vec<String> = last_results(&response.output_messages).into_iter().map(|r| r.0).collect();
    assert_eq!(ids, ["slow", "fast", "mid"]);
    assert_eq!(log.lock().unwrap()[..3], ["start echo slow", "start echo fast", "start echo mid"]);
}

#[tokio::test(start_paused = true)]
async fn sequential_only_tools_force_sequential_execution() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let inner = log.clone();
    let serial = FunctionTool::new("serial", "Serial.", move |_input: Value, _ctx| {
        let log = inner.clone();
        async move {
            log.lock().unwrap().push("serial".to_owned());
            Ok::<_, ToolError>("done")
        }
    })
    .with_annotations(ToolAnnotations::default().with_sequential_only(true));
    let model = ScriptedModel::new([
        calls(&[("a", "echo", json!({"text": "a", "ms": 50})), ("b", "serial", json!({}))]),
        ModelResponse::text("ok"),
    ]);
    let agent = agent_with(&model)
        .tool(echo("echo", log.clone()))
        .tool(Arc::new(serial))
        .parallel_tool_execution(true)
        .build()
        .unwrap();
    agent.run("go").await.unwrap();
    assert_eq!(*log.lock().unwrap(), ["start echo a", "end echo a", "serial"]);
}

#[tokio::test]
async fn a_panicking_tool_becomes_an_error_result_and_the_agent_lives() {
    let boom = FunctionTool::new("boom", "Panics.", |_input: Value, _ctx| async move {
        if true {
            panic!("kaboom");
        }
        Ok::<_, ToolError>("unreachable")
    });
    let model = ScriptedModel::new([calls(&[("c1", "boom", json!({}))]), ModelResponse::text("recovered")]);
    let agent = agent_with(&model).tool(Arc::new(boom)).build().unwrap();
    let response = agent.run("go").await.unwrap();
    assert_eq!(response.output_text(), "recovered");
    let result = response.tool_call_results().next().unwrap();
    assert_eq!(result.error.as_ref().unwrap().kind, ToolCallErrorKind::Panicked);
    let (_, text, is_error) = &last_results(&response.output_messages)[0];
    assert!(*is_error && text.contains("panicked: kaboom"), "{text}");
    // The agent still works.
    model.push(ModelResponse::text("again"));
    assert_eq!(agent.run("more").await.unwrap().output_text(), "again");
}

#[tokio::test]
async fn an_unknown_tool_gets_suggestions_and_the_turn_continues() {
    let model =
        ScriptedModel::new([calls(&[("c1", "ehco", json!({"text": "a"}))]), ModelResponse::text("fixed")]);
    let agent = agent_with(&model)
        .tool(echo("echo", Arc::default()))
        .tool(echo("read_file", Arc::default()))
        .build()
        .unwrap();
    let response = agent.run("go").await.unwrap();
    let (_, text, is_error) = &last_results(&response.output_messages)[0];
    assert!(*is_error);
    assert_eq!(text, "Unknown tool \"ehco\". Did you mean \"echo\"?");
    assert_eq!(
        response.tool_call_results().next().unwrap().error.as_ref().unwrap().kind,
        ToolCallErrorKind::UnknownTool
    );
    assert_eq!(response.output_text(), "fixed");
}

#[tokio::test]
async fn schema_invalid_input_is_corrected_by_the_model_on_the_next_iteration() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedModel::new([
        calls(&[("c1", "echo", json!({"text": 42}))]),
        calls(&[("c2", "echo", json!({"text": "42"}))]),
        ModelResponse::text("done"),
    ]);
    let agent = agent_with(&model).tool(echo("echo", log.clone())).build().unwrap();
    let response = agent.run("go").await.unwrap();
    let results: Vec<_> = response.tool_call_results().collect();
    assert_eq!(results[0].error.as_ref().unwrap().kind, ToolCallErrorKind::InvalidInput);
    let feedback = results[0].output.as_ref().unwrap().text_content();
    assert!(feedback.contains("Invalid input for tool echo") && feedback.contains("/text"), "{feedback}");
    assert!(results[1].error.is_none());
    assert_eq!(*log.lock().unwrap(), ["start echo 42", "end echo 42"], "the invalid call never ran");
    let second_request = &model.requests().all()[1];
    assert!(second_request.messages.last().unwrap().tool_results_iter().next().unwrap().is_error);
}

#[tokio::test]
async fn a_halting_batch_skips_later_halting_calls_after_a_failure() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedModel::new([
        calls(&[
            ("a", "step_fail", json!({})),
            ("b", "echo", json!({"text": "plain"})),
            ("c", "step", json!({"text": "halting"})),
        ]),
        ModelResponse::text("ok"),
    ]);
    let step = FunctionTool::new("step", "A halting step.", |_input: Value, _ctx| async move {
        Ok::<_, ToolError>("ran")
    })
    .with_annotations(ToolAnnotations::default().with_halts_batch(true));
    let agent = agent_with(&model)
        .tool(failing("step_fail", "disk full", false, true))
        .tool(echo("echo", log.clone()))
        .tool(Arc::new(step))
        .parallel_tool_execution(true)
        .build()
        .unwrap();
    let response = agent.run("go").await.unwrap();
    let results: Vec<_> = response.tool_call_results().collect();
    assert_eq!(results[0].error.as_ref().unwrap().kind, ToolCallErrorKind::Failed);
    assert!(results[1].error.is_none(), "non-halting calls still run");
    assert_eq!(results[2].error.as_ref().unwrap().kind, ToolCallErrorKind::BatchHalted);
    assert_eq!(log.lock().unwrap().len(), 2);
    let turn = response.turn.unwrap();
    assert_eq!(turn.tool_calls[2].state, ToolCallState::NotStarted);
}

#[tokio::test]
async fn a_fatal_tool_error_ends_the_turn_but_a_recoverable_one_does_not() {
    let model = ScriptedModel::new([
        calls(&[("c1", "soft", json!({}))]),
        calls(&[("c2", "hard", json!({})), ("c3", "soft", json!({}))]),
    ]);
    let agent = agent_with(&model)
        .tool(failing("soft", "try again", false, false))
        .tool(failing("hard", "credentials revoked", true, false))
        .build()
        .unwrap();
    let err = agent.run("go").await.unwrap_err();
    let AgentError::Turn(turn) = err else { panic!("expected a turn error") };
    assert!(matches!(&turn.cause, TurnFailure::FatalTool { tool, .. } if tool == "hard"));
    assert_eq!(turn.reason, OutcomeReason::Error);
    let results = last_results(&turn.response.output_messages);
    assert!(results[0].1.contains("credentials revoked"));
    assert!(results[1].1.starts_with("Not run"), "the call after the fatal one never ran");
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn a_suspending_tool_suspends_the_turn_with_pending_and_completed_calls() {
    let ask = FunctionTool::new("ask", "Asks a human.", |_input: Value, _ctx| async move {
        Ok::<_, ToolError>(ToolResult::suspend(SuspendRequest::new("Approve the deploy?")))
    });
    let model =
        ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "prep"})), ("c2", "ask", json!({}))])]);
    let agent = agent_with(&model).tool(echo("echo", Arc::default())).tool(Arc::new(ask)).build().unwrap();
    let response = agent.run("deploy").await.unwrap();
    assert_eq!(response.status, TurnStatus::Suspended);
    let suspension = response.suspension.clone().unwrap();
    assert_eq!(suspension.pending[0].prompt, "Approve the deploy?");
    assert_eq!(suspension.completed[0].id, "c1");
    assert_eq!(suspension.turn_messages.len(), 2, "input and the assistant message");
    let turn = response.turn.unwrap();
    assert_eq!(
        turn.tool_calls.iter().map(|c| c.state).collect::<Vec<_>>(),
        [ToolCallState::Completed, ToolCallState::Waiting]
    );
}

#[tokio::test]
async fn background_results_are_delivered_on_the_next_call() {
    let build = FunctionTool::new("build", "Builds in the background.", |_input: Value, _ctx| async move {
        Ok::<_, ToolError>(ToolResult::background("cargo build", async { ToolOutput::text("build ok") }))
    });
    let model = ScriptedModel::new([
        calls(&[("c1", "build", json!({}))]),
        ModelResponse::text("started"),
        ModelResponse::text("build finished fine"),
    ]);
    let delivered = Arc::new(Mutex::new(Vec::new()));
    let seen = delivered.clone();
    let agent = agent_with(&model)
        .tool(Arc::new(build))
        .hooks(dive_core::Hooks::new().on_post_background_tool_use(
            move |ctx: dive_core::ToolResultContext| {
                let seen = seen.clone();
                async move {
                    seen.lock().unwrap().push(ctx.task_id.unwrap_or_default());
                    Ok(())
                }
            },
        ))
        .build()
        .unwrap();
    let response = agent.run("build it").await.unwrap();
    assert_eq!(response.background_tasks.len(), 1);
    let started = last_results(&response.output_messages)[0].1.clone();
    assert!(started.starts_with("Started background task"), "{started}");
    let handles = await_background_tasks(&response.background_tasks).await;
    let mut history = response.turn.unwrap().messages;
    history.push(dive_core::Message::user("status?"));
    let next =
        agent.run(RunOptions::messages(history).with_background_results(handles.clone())).await.unwrap();
    assert_eq!(next.output_text(), "build finished fine");
    let sent = model.requests().last().unwrap();
    let reminder = sent.messages.last().unwrap().content[0].as_reminder().unwrap().clone();
    assert!(reminder.content.contains("build ok") && reminder.content.contains(&handles[0].task_id));
    assert_eq!(*delivered.lock().unwrap(), [handles[0].task_id.clone()]);
}

#[tokio::test]
async fn tool_output_streams_and_progress_reach_the_stream() {
    let chatty =
        FunctionTool::new("chatty", "Streams.", |_input: Value, ctx: dive_core::ToolContext| async move {
            ctx.stream_output("line 1\n");
            ctx.report_progress(ToolProgress::message("half way"));
            assert!(ctx.turn_id().is_some());
            Ok::<_, ToolError>("all done")
        });
    let model = ScriptedModel::new([calls(&[("c1", "chatty", json!({}))]), ModelResponse::text("ok")]);
    let agent = agent_with(&model).tool(Arc::new(chatty)).build().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    agent
        .run(RunOptions::text("go").on_event(move |item| {
            match item {
                ResponseItem::ToolStream { text, .. } => sink.lock().unwrap().push(format!("stream {text}")),
                ResponseItem::ToolProgress { progress, .. } => {
                    sink.lock()
                        .unwrap()
                        .push(format!("progress {}", progress.display.clone().unwrap_or_default()));
                }
                _ => {}
            }
            Ok(())
        }))
        .await
        .unwrap();
    assert_eq!(*seen.lock().unwrap(), ["stream line 1\n", "progress half way"]);
}
