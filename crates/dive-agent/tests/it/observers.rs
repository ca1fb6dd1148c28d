//! Observers: iteration starts from 0, thinking blocks in order,
//! every tool call before it runs and its result with duration and error, the final response
//! with the iteration count, also when the iteration limit ends the turn (whose outcome then
//! carries the model's last text).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{agent_with, calls, echo, failing};
use dive_core::{
    Content, FnObserver, ModelResponse, Observer, OutcomeReason, ThinkingContent, ToolCallEnd, ToolUse,
    TurnStatus,
};
use dive_test::ScriptedModel;
use serde_json::json;

type Log = Arc<Mutex<Vec<String>>>;

fn recorder(log: &Log) -> FnObserver {
    let (a, b, c, d, e) = (log.clone(), log.clone(), log.clone(), log.clone(), log.clone());
    FnObserver::new()
        .on_iteration_start(move |ev| a.lock().unwrap().push(format!("iteration {}", ev.iteration)))
        .on_thinking(move |ev| b.lock().unwrap().push(format!("thinking {}: {}", ev.iteration, ev.text())))
        .on_tool_call(move |ev| c.lock().unwrap().push(format!("call {} {}", ev.call.name, ev.call.input)))
        .on_tool_result(move |ev: &ToolCallEnd<'_>| {
            let error = ev.result.error.as_ref().map(|e| e.message.clone()).unwrap_or_default();
            let text = ev.result.output.as_ref().map(dive_core::ToolOutput::text_content).unwrap_or_default();
            // Durations are measured on the real clock: at least the tool's sleep, zero when it
            // never ran.
            let ran = if ev.duration >= Duration::from_millis(10) { "ran" } else { "instant" };
            d.lock().unwrap().push(format!("result {} {ran} [{text}] [{error}]", ev.result.name));
        })
        .on_response(move |ev| {
            e.lock()
                .unwrap()
                .push(format!("response after {} ({:?}): {}", ev.iterations, ev.reason, ev.text));
        })
}

fn thinking(text: &str) -> Content {
    Content::Thinking(ThinkingContent::new(text, Some("sig".into())))
}

#[tokio::test]
async fn observers_see_every_milestone_in_order_with_durations_and_errors() {
    let log: Log = Arc::default();
    let tool_log = Arc::new(Mutex::new(Vec::new()));
    let mut first = calls(&[("a", "echo", json!({"text": "hi", "ms": 250})), ("b", "broken", json!({}))]);
    first.content.insert(0, thinking("plan: call both"));
    first.content.insert(1, thinking("second thought"));
    let mut last = ModelResponse::text("all done");
    last.content.insert(0, thinking("wrap up"));
    let model = ScriptedModel::new([first, last]);
    let agent = agent_with(&model)
        .tool(echo("echo", tool_log))
        .tool(failing("broken", "disk on fire", false, false))
        .observer(recorder(&log))
        .build()
        .unwrap();
    let response = agent.run("go").await.unwrap();
    assert!(response.is_completed());
    assert_eq!(
        *log.lock().unwrap(),
        [
            "iteration 0",
            "thinking 0: plan: call both",
            "thinking 0: second thought",
            r#"call echo {"ms":250,"text":"hi"}"#,
            "result echo ran [hi] []",
            "call broken {}",
            "result broken instant [Tool execution error: disk on fire] [disk on fire]",
            "iteration 1",
            "thinking 1: wrap up",
            "response after 2 (Completed): all done",
        ]
    );
}

#[tokio::test]
async fn a_parallel_batch_announces_every_call_before_any_runs() {
    let log: Log = Arc::default();
    let tool_log = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedModel::new([
        calls(&[
            ("a", "echo", json!({"text": "1", "ms": 20})),
            ("b", "echo", json!({"text": "2", "ms": 10})),
        ]),
        ModelResponse::text("ok"),
    ]);
    let agent = agent_with(&model)
        .tool(echo("echo", tool_log))
        .parallel_tool_execution(true)
        .observer(recorder(&log))
        .build()
        .unwrap();
    agent.run("go").await.unwrap();
    let log = log.lock().unwrap();
    assert_eq!(log[1], r#"call echo {"ms":20,"text":"1"}"#);
    assert_eq!(log[2], r#"call echo {"ms":10,"text":"2"}"#);
    assert_eq!(log[3], "result echo ran [2] []", "results as they complete");
    assert_eq!(log[4], "result echo ran [1] []");
}

#[tokio::test(start_paused = true)]
async fn unknown_tools_get_a_result_with_no_duration() {
    let log: Log = Arc::default();
    let model = ScriptedModel::new([calls(&[("a", "nope", json!({}))]), ModelResponse::text("ok")]);
    let agent = agent_with(&model).observer(recorder(&log)).build().unwrap();
    agent.run("go").await.unwrap();
    let log = log.lock().unwrap();
    assert_eq!(log[1], "call nope {}");
    assert!(log[2].starts_with("result nope instant ["), "{}", log[2]);
}

#[tokio::test(start_paused = true)]
async fn the_iteration_limit_reports_the_response_and_keeps_the_last_text() {
    let log: Log = Arc::default();
    let tool_log = Arc::new(Mutex::new(Vec::new()));
    let looping = |id: &str, text: &str| {
        let mut r = ModelResponse::tool_calls(vec![ToolUse::new(id, "echo", json!({"text": "again"}))]);
        r.content.insert(0, Content::text(text));
        r
    };
    let model = ScriptedModel::new([
        looping("c1", "Checking once."),
        looping("c2", "Checking twice."),
        looping("c3", "I think the answer is 42, checking again."),
    ]);
    let agent = agent_with(&model)
        .tool(echo("echo", tool_log))
        .tool_iteration_limit(2)
        .observer(recorder(&log))
        .build()
        .unwrap();
    let response = agent.run("go").await.unwrap();
    assert_eq!(response.status, TurnStatus::Incomplete);
    let outcome = response.turn.as_ref().unwrap().outcome.as_ref().unwrap();
    assert_eq!(outcome.reason, OutcomeReason::IterationLimit);
    assert_eq!(outcome.last_text.as_deref(), Some("I think the answer is 42, checking again."));
    let log = log.lock().unwrap();
    assert_eq!(
        log.last().unwrap(),
        "response after 3 (IterationLimit): I think the answer is 42, checking again."
    );
    assert_eq!(log.iter().filter(|l| l.starts_with("iteration ")).count(), 3);
}

#[tokio::test(start_paused = true)]
async fn a_limit_hit_on_a_tool_call_only_response_has_no_last_text() {
    let tool_log = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedModel::new([
        calls(&[("c1", "echo", json!({"text": "x"}))]),
        calls(&[("c2", "echo", json!({"text": "x"}))]),
    ]);
    let agent = agent_with(&model).tool(echo("echo", tool_log)).tool_iteration_limit(1).build().unwrap();
    let response = agent.run("go").await.unwrap();
    let outcome = response.turn.unwrap().outcome.unwrap();
    assert_eq!(outcome.reason, OutcomeReason::IterationLimit);
    assert_eq!(outcome.last_text, None);
    let json = serde_json::to_value(&outcome).unwrap();
    assert!(json.get("last_text").is_none(), "absent, not null, in the stored record");
}

/// An observer implemented as a trait, shared through an `Arc` to read its state.
#[derive(Default)]
struct Durations(Mutex<Vec<Duration>>);

impl Observer for Durations {
    fn tool_result(&self, event: &ToolCallEnd<'_>) {
        self.0.lock().unwrap().push(event.duration);
    }
}

#[tokio::test]
async fn a_trait_observer_shared_through_an_arc_is_an_observer() {
    let durations = Arc::new(Durations::default());
    let tool_log = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedModel::new([
        calls(&[("a", "echo", json!({"text": "t", "ms": 40}))]),
        ModelResponse::text("ok"),
    ]);
    let agent = agent_with(&model).tool(echo("echo", tool_log)).observer(durations.clone()).build().unwrap();
    agent.run("go").await.unwrap();
    let durations = durations.0.lock().unwrap();
    assert_eq!(durations.len(), 1);
    assert!(durations[0] >= Duration::from_millis(40), "covers the tool's sleep: {:?}", durations[0]);
}

#[tokio::test(start_paused = true)]
async fn a_streamed_thinking_block_is_reported_when_it_completes_before_the_text_streams() {
    let log: Log = Arc::default();
    let mut response = ModelResponse::text("the answer");
    response.content.insert(0, thinking("let me think"));
    let model = ScriptedModel::new([response]).streaming();
    let agent = agent_with(&model).observer(recorder(&log)).build().unwrap();
    let events = log.clone();
    let options = dive_agent::RunOptions::text("go").on_event(move |item| {
        if let dive_core::ResponseItem::ModelEvent { event } = item {
            let name = match event {
                dive_core::StreamEvent::ContentBlockStart { index, .. } => format!("start {index}"),
                dive_core::StreamEvent::ContentBlockStop { index } => format!("stop {index}"),
                _ => return Ok(()),
            };
            events.lock().unwrap().push(format!("event {name}"));
        }
        Ok(())
    });
    agent.run(options).await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "iteration 0",
            "event start 0",
            "thinking 0: let me think",
            "event stop 0",
            "event start 1",
            "event stop 1",
            "response after 1 (Completed): the answer",
        ],
        "thinking is reported at its block's stop (before that event is emitted), while the \
         response is still streaming"
    );
}
