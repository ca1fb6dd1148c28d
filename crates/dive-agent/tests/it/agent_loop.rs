//! The loop on `dive-test` models: text, tool rounds, streaming order, model-call records,
//! system prompt assembly, toolsets, iteration limit, timeouts, stop reasons, sessions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{agent_with, calls, echo};
use dive_agent::{Agent, AgentError, ModelSettings, RunOptions, TurnFailure};
use dive_core::{
    ContentDelta, Extension, LlmError, LlmErrorKind, Message, ModelResponse, NextStep, OutcomeReason,
    Persistence, Reminder, ResponseItem, RunInfo, SessionStartDecision, StaticToolset, StopKind, StreamEvent,
    Tool, ToolChoice, ToolError, Toolset, TurnStatus, Usage, find_turn_outcome,
};
use dive_session::MemorySession;
use dive_test::{ScriptStep, ScriptedModel};
use futures::StreamExt;
use serde_json::json;

#[tokio::test]
async fn a_text_answer_completes_the_turn() {
    let model = ScriptedModel::new([ModelResponse::text("Hello!").with_usage(Usage::new(10, 3))]);
    let agent = agent_with(&model).system_prompt("Be brief.").build().unwrap();
    let response = agent.run("Hi").await.unwrap();
    assert_eq!(response.output_text(), "Hello!");
    assert_eq!(response.status, TurnStatus::Completed);
    assert_eq!(response.usage, Usage::new(10, 3));
    let turn = response.turn.as_ref().unwrap();
    assert_eq!(turn.messages.len(), 2);
    assert_eq!(turn.persistence, Persistence::None);
    let system = model.requests().last().unwrap().system.unwrap();
    assert_eq!(system, "Be brief.", "no reminder in the request, so no priming rule");
}

#[tokio::test]
async fn a_tool_round_records_every_model_call() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let model = ScriptedModel::new([
        calls(&[("c1", "echo", json!({"text": "pong"}))]).with_usage(Usage::new(5, 5)),
        ModelResponse::text("done").with_usage(Usage::new(7, 1)),
    ])
    .with_model("model-x");
    let agent = agent_with(&model).tool(echo("echo", log.clone())).build().unwrap();
    let response = agent.run("ping").await.unwrap();
    assert_eq!(response.output_text(), "done");
    assert_eq!(response.usage, Usage::new(12, 6));
    assert_eq!(response.model_calls.len(), 2);
    let first = &response.model_calls[0];
    assert_eq!(
        (first.iteration, first.stop_kind, first.requested_model.as_str()),
        (0, StopKind::ToolUse, "model-x")
    );
    assert_eq!(first.usage, Usage::new(5, 5));
    assert_eq!(response.model_calls[1].stop_reason, "end_turn");
    // Messages: assistant(tool_use), user(tool_result), assistant(text).
    assert_eq!(response.output_messages.len(), 3);
    assert_eq!(common::last_results(&response.output_messages), vec![("c1".into(), "pong".into(), false)]);
    model.requests().assert_count(2).assert_tool_calls_answered().assert_tools(&["echo"]);
    assert_eq!(*log.lock().unwrap(), vec!["start echo pong", "end echo pong"]);
}

#[tokio::test]
async fn streaming_yields_events_then_message_then_tool_items_then_turn_ended() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let model =
        ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "a"}))]), ModelResponse::text("fin")])
            .streaming();
    let agent = agent_with(&model).tool(echo("echo", log)).build().unwrap();
    let mut stream = agent.stream("go");
    let mut kinds = Vec::new();
    while let Some(item) = stream.next().await {
        let kind = match item {
            ResponseItem::ModelEvent { event: StreamEvent::MessageStart { .. } } => "start",
            ResponseItem::ModelEvent { event: StreamEvent::MessageStop } => "stop",
            ResponseItem::ModelEvent { .. } => continue,
            ResponseItem::Message { .. } => "message",
            ResponseItem::ToolCall { .. } => "tool_call",
            ResponseItem::ToolCallResult { .. } => "tool_result",
            ResponseItem::TurnEnded { .. } => "turn_ended",
            _ => "other",
        };
        kinds.push(kind);
    }
    assert_eq!(
        kinds,
        ["start", "stop", "message", "tool_call", "tool_result", "start", "stop", "message", "turn_ended"]
    );
    let response = stream.finish().await.unwrap();
    assert_eq!(response.output_text(), "fin");
    assert!(response.model_calls.iter().all(|c| c.streamed && c.time_to_first_event_ms.is_some()));
    assert!(
        response.items.iter().all(|i| !matches!(i, ResponseItem::ModelEvent { .. })),
        "raw events are stream-only"
    );
}

#[tokio::test]
async fn streaming_can_be_turned_off_for_a_model_that_streams() {
    let model =
        ScriptedModel::new([ModelResponse::text("whole"), ModelResponse::text("streamed")]).streaming();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let options = |seen: &Arc<Mutex<Vec<&'static str>>>| {
        let seen = Arc::clone(seen);
        RunOptions::text("hi").on_event(move |item| {
            if matches!(item, ResponseItem::ModelEvent { .. }) {
                seen.lock().unwrap().push("event");
            }
            Ok(())
        })
    };
    let agent = agent_with(&model).model_settings(ModelSettings::new().stream(false)).build().unwrap();
    let response = agent.run(options(&seen)).await.unwrap();
    assert_eq!(response.output_text(), "whole");
    assert!(seen.lock().unwrap().is_empty(), "generate was called: no model events");
    assert!(!response.model_calls[0].streamed);

    let agent = agent_with(&model).model_settings(ModelSettings::new().stream(true)).build().unwrap();
    let response = agent.run(options(&seen)).await.unwrap();
    assert_eq!(response.output_text(), "streamed");
    assert!(!seen.lock().unwrap().is_empty(), "stream was called: events reached on_event");
    assert!(response.model_calls[0].streamed);
}

#[tokio::test]
async fn event_callback_sees_items_and_its_error_ends_the_turn() {
    let model =
        ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "a"}))]), ModelResponse::text("x")]);
    let agent = agent_with(&model).tool(echo("echo", Arc::default())).build().unwrap();
    let seen = Arc::new(Mutex::new(0));
    let counter = seen.clone();
    let options = RunOptions::text("go").on_event(move |item| {
        *counter.lock().unwrap() += 1;
        if matches!(item, ResponseItem::ToolCallResult { .. }) { Err("ui went away".into()) } else { Ok(()) }
    });
    let err = agent.run(options).await.unwrap_err();
    assert_eq!(err.reason(), Some(&OutcomeReason::CallbackError));
    let response = err.response().unwrap();
    assert_eq!(response.turn.as_ref().unwrap().outcome.as_ref().unwrap().next, NextStep::Continue);
    assert!(*seen.lock().unwrap() >= 3);
    assert_eq!(model.requests().len(), 1, "no model call after the callback failed");
}

struct Rules;
impl Extension for Rules {
    fn name(&self) -> &str {
        "rules"
    }
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![echo("ext_echo", Arc::default())]
    }
    fn rules(&self) -> Option<String> {
        Some("Always cite sources.".into())
    }
}

#[tokio::test]
async fn extensions_merge_tools_and_rules_and_duplicates_are_refused() {
    let model = ScriptedModel::new([ModelResponse::text("ok")]);
    let agent = agent_with(&model).system_prompt("Base.").extension(Arc::new(Rules)).build().unwrap();
    // With an extension the reminder rule is there from the first request (a stable prefix).
    assert_eq!(
        agent.effective_system_prompt(),
        format!("Base.\n\nAlways cite sources.\n\n{}", dive_agent::REMINDER_PRIMING_RULE)
    );
    agent.run("x").await.unwrap();
    model.requests().assert_tools(&["ext_echo"]);

    let dup = agent_with(&model).tool(echo("ext_echo", Arc::default())).extension(Arc::new(Rules)).build();
    assert!(matches!(dup, Err(AgentError::Config(m)) if m.contains("ext_echo")));
    assert!(matches!(Agent::builder().build(), Err(AgentError::Config(m)) if m.contains("no model")));
}

struct CountingToolset(Arc<Mutex<u32>>);
impl Toolset for CountingToolset {
    fn name(&self) -> &str {
        "counting"
    }
    fn tools<'a>(
        &'a self,
        _run: &'a RunInfo,
    ) -> dive_core::BoxFuture<'a, Result<Vec<Arc<dyn Tool>>, ToolError>> {
        Box::pin(async move {
            let mut n = self.0.lock().unwrap();
            *n += 1;
            if *n > 2 {
                return Err(ToolError::new("server went away"));
            }
            Ok(vec![echo(&format!("dyn_{n}"), Arc::default())])
        })
    }
}

#[tokio::test]
async fn toolsets_are_resolved_before_every_model_call() {
    let resolved = Arc::new(Mutex::new(0));
    let model =
        ScriptedModel::new([calls(&[("c1", "dyn_1", json!({"text": "a"}))]), ModelResponse::text("ok")]);
    let agent = agent_with(&model)
        .toolset(Arc::new(CountingToolset(resolved.clone())))
        .toolset(Arc::new(StaticToolset::new("static", vec![echo("fixed", Arc::default())])))
        .build()
        .unwrap();
    agent.run("go").await.unwrap();
    let requests = model.requests().all();
    let names = |i: usize| requests[i].tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(0), ["dyn_1", "fixed"]);
    assert_eq!(names(1), ["dyn_2", "fixed"]);
    // A failing toolset ends the turn with a typed error.
    model.push(ModelResponse::text("never"));
    let err = agent.run("again").await.unwrap_err();
    let AgentError::Turn(turn) = err else { panic!("expected a turn error") };
    assert!(matches!(&turn.cause, TurnFailure::Toolset { toolset, .. } if toolset == "counting"));
}

#[tokio::test]
async fn model_and_prompt_swaps_apply_to_the_next_run() {
    let first = ScriptedModel::new([ModelResponse::text("one")]);
    let second = ScriptedModel::new([ModelResponse::text("two")]);
    let agent = agent_with(&first).system_prompt("P1").build().unwrap();
    assert_eq!(agent.run("a").await.unwrap().output_text(), "one");
    agent.set_model(Arc::new(second.clone()));
    agent.set_system_prompt("P2");
    assert_eq!(agent.run("b").await.unwrap().output_text(), "two");
    assert!(second.requests().last().unwrap().system.unwrap().starts_with("P2"));
}

#[tokio::test]
async fn the_iteration_limit_forbids_tools_on_the_last_call_and_answers_stray_calls() {
    let model = ScriptedModel::new([
        calls(&[("c1", "echo", json!({"text": "1"}))]),
        calls(&[("c2", "echo", json!({"text": "2"}))]),
        calls(&[("c3", "echo", json!({"text": "3"}))]),
    ]);
    let log = Arc::new(Mutex::new(Vec::new()));
    let agent = agent_with(&model).tool(echo("echo", log.clone())).tool_iteration_limit(2).build().unwrap();
    let response = agent.run("loop").await.unwrap();
    assert_eq!(response.status, TurnStatus::Incomplete);
    let outcome = response.turn.as_ref().unwrap().outcome.clone().unwrap();
    assert_eq!((outcome.reason, outcome.next), (OutcomeReason::IterationLimit, NextStep::Continue));
    let last = model.requests().last().unwrap();
    assert_eq!(last.tool_choice, Some(ToolChoice::None));
    assert_eq!(log.lock().unwrap().len(), 4, "c3 never ran");
    let results = common::last_results(&response.output_messages);
    assert_eq!(results[0].0, "c3");
    assert!(results[0].1.starts_with("Not run"));
    assert_eq!(find_turn_outcome(&response.output_messages).unwrap().reason, OutcomeReason::IterationLimit);
}

#[tokio::test(start_paused = true)]
async fn the_response_timeout_ends_the_turn_as_deadline() {
    let model = ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "slow", "ms": 60_000}))])]);
    let agent = agent_with(&model)
        .tool(echo("echo", Arc::default()))
        .response_timeout(Some(Duration::from_secs(5)))
        .build()
        .unwrap();
    let err = agent.run("go").await.unwrap_err();
    assert_eq!(err.reason(), Some(&OutcomeReason::Deadline));
    let response = err.into_response().unwrap();
    let results = common::last_results(&response.output_messages);
    assert!(results[0].1.starts_with("Unknown result"), "{results:?}");
    let outcome = response.turn.unwrap().outcome.unwrap();
    assert_eq!(outcome.next, NextStep::Reconcile, "an unknown call of a non-read-only tool");
}

/// Answers its first call with a tool call at once and takes a minute over every later one.
#[derive(Clone, Default)]
struct SlowAfterFirstCall {
    calls: Arc<Mutex<usize>>,
}

impl dive_core::Llm for SlowAfterFirstCall {
    fn provider(&self) -> &str {
        "slow"
    }
    fn model(&self) -> &str {
        "slow-1"
    }
    fn generate(
        &self,
        _request: dive_core::ModelRequest,
    ) -> dive_core::BoxFuture<'_, Result<ModelResponse, LlmError>> {
        let first = {
            let mut calls = self.calls.lock().unwrap();
            *calls += 1;
            *calls == 1
        };
        Box::pin(async move {
            if first {
                return Ok(calls(&[("c1", "echo", json!({"text": "fast"}))]));
            }
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(ModelResponse::text("too late"))
        })
    }
}

#[tokio::test(start_paused = true)]
async fn the_response_timeout_spans_the_steps_and_ends_a_later_model_call() {
    let model = SlowAfterFirstCall::default();
    let log = Arc::new(Mutex::new(Vec::new()));
    let agent = Agent::builder()
        .model(model.clone())
        .tool(echo("echo", log.clone()))
        .response_timeout(Some(Duration::from_secs(5)))
        .build()
        .unwrap();
    let started = tokio::time::Instant::now();
    let err = agent.run("go").await.unwrap_err();
    assert_eq!(err.reason(), Some(&OutcomeReason::Deadline));
    // The deadline is the turn's, measured from its start, not restarted at each step.
    assert_eq!(started.elapsed(), Duration::from_secs(5));
    assert_eq!(*model.calls.lock().unwrap(), 2);
    assert_eq!(
        *log.lock().unwrap(),
        ["start echo fast", "end echo fast"],
        "the call before the slow model call ran"
    );
    let response = err.into_response().unwrap();
    assert_eq!(common::last_results(&response.output_messages)[0].1, "fast");
}

#[tokio::test]
async fn an_output_limit_drops_truncated_calls_and_answers_complete_ones() {
    let mut response = ModelResponse::tool_calls(vec![
        common::call("ok", "echo", json!({"text": "a"})),
        common::call("cut", "echo", json!("{\"text\": \"trunc")),
    ])
    .with_stop_reason("max_tokens");
    response.content.insert(0, dive_core::Content::text("Let me"));
    let model = ScriptedModel::new([response]);
    let agent = agent_with(&model).tool(echo("echo", Arc::default())).build().unwrap();
    let response = agent.run("go").await.unwrap();
    assert_eq!(response.status, TurnStatus::Incomplete);
    let assistant = response.last_message().unwrap();
    assert_eq!(assistant.tool_uses().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["ok"]);
    let results = common::last_results(&response.output_messages);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.starts_with("Not run"));
    let outcome = response.turn.unwrap().outcome.unwrap();
    assert_eq!((outcome.reason, outcome.next), (OutcomeReason::OutputLimit, NextStep::Continue));
}

#[tokio::test]
async fn a_refusal_completes_without_running_tools() {
    let model =
        ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "a"}))]).with_stop_reason("refusal")]);
    let log = Arc::new(Mutex::new(Vec::new()));
    let agent = agent_with(&model).tool(echo("echo", log.clone())).build().unwrap();
    let response = agent.run("go").await.unwrap();
    assert_eq!(response.status, TurnStatus::Completed);
    assert_eq!(response.stop_reason, "refusal");
    assert!(log.lock().unwrap().is_empty());
    assert!(find_turn_outcome(&response.output_messages).is_none(), "no outcome reminder on a refusal");
}

#[tokio::test]
async fn a_pause_is_resent_up_to_the_limit() {
    let paused = || ModelResponse::text("thinking…").with_stop_reason("pause_turn");
    let model = ScriptedModel::new([paused(), ModelResponse::text("answer")]);
    let agent = agent_with(&model).build().unwrap();
    let response = agent.run("go").await.unwrap();
    assert_eq!(response.output_text(), "answer");
    assert_eq!(model.requests().last().unwrap().messages.last().unwrap().text(), "thinking…");

    let model = ScriptedModel::new([paused(), paused(), paused()]);
    let agent = agent_with(&model).pause_turn_limit(2).build().unwrap();
    let response = agent.run("go").await.unwrap();
    assert_eq!(response.turn.unwrap().outcome.unwrap().reason, OutcomeReason::Pause);
    assert_eq!(model.requests().len(), 3);
}

#[tokio::test]
async fn a_provider_error_before_streaming_is_provider_error() {
    let model =
        ScriptedModel::from_steps([ScriptStep::Error(LlmError::new(LlmErrorKind::Overloaded, "busy"))]);
    let agent = agent_with(&model).build().unwrap();
    let err = agent.run("go").await.unwrap_err();
    assert_eq!(err.reason(), Some(&OutcomeReason::ProviderError));
    let response = err.response().unwrap();
    assert!(response.model_calls[0].error.as_deref().unwrap().contains("busy"));
    assert!(find_turn_outcome(&response.output_messages).is_some(), "the closed turn carries its outcome");
}

#[tokio::test]
async fn an_interrupted_stream_keeps_finished_text_and_reports_stream_interrupted() {
    let start = StreamEvent::message_start(ModelResponse::default());
    let model = ScriptedModel::from_steps([ScriptStep::Events(vec![
        Ok(start),
        Ok(StreamEvent::block_start(0, dive_core::Content::text(""))),
        Ok(StreamEvent::ContentBlockDelta {
            index: 0,
            delta: ContentDelta::TextDelta { text: "partial ans".into() },
        }),
        Err(LlmError::new(LlmErrorKind::Network, "connection reset")),
    ])])
    .streaming();
    let agent = agent_with(&model).build().unwrap();
    let err = agent.run("go").await.unwrap_err();
    assert_eq!(err.reason(), Some(&OutcomeReason::StreamInterrupted));
    let response = err.into_response().unwrap();
    assert_eq!(response.output_messages[0].text(), "partial ans");

    let model = ScriptedModel::from_steps([ScriptStep::Events(vec![Ok(StreamEvent::message_start(
        ModelResponse::default(),
    ))])])
    .streaming();
    let err = agent_with(&model).build().unwrap().run("go").await.unwrap_err();
    assert_eq!(err.reason(), Some(&OutcomeReason::StreamInterrupted), "a stream without its final event");
}

#[tokio::test]
async fn settings_and_model_only_reminders_reach_the_request_but_not_history() {
    let model = ScriptedModel::new([ModelResponse::text("ok")]);
    let agent = agent_with(&model).model_settings(ModelSettings::new().max_tokens(321)).build().unwrap();
    let reminder = Reminder::new("clock", "It is noon.").unwrap();
    let response = agent.run(RunOptions::text("time?").with_model_only_reminder(reminder)).await.unwrap();
    let request = model.requests().last().unwrap();
    assert_eq!(request.max_tokens, Some(321));
    assert!(request.prompt_cache_key.unwrap().starts_with("dive-agent-"));
    let tail = request.messages.last().unwrap();
    assert!(tail.content.iter().any(|c| c.as_reminder().is_some_and(|r| r.name == "clock")));
    let turn = response.turn.unwrap();
    assert!(turn.messages.iter().all(|m| m.content.iter().all(|c| c.as_reminder().is_none())));
}

#[tokio::test]
async fn session_runs_save_turns_and_continue_the_history() {
    let session = Arc::new(MemorySession::new("s-1"));
    let model = ScriptedModel::new([ModelResponse::text("first"), ModelResponse::text("second")]);
    let agent = agent_with(&model)
        .session(session.clone())
        .hooks(dive_core::Hooks::new().on_session_start(|_ctx| async {
            Ok(SessionStartDecision::seed(vec![Message::user("Seeded context.")]).persisted())
        }))
        .build()
        .unwrap();
    let r1 = agent.run("one").await.unwrap();
    assert_eq!(r1.turn.as_ref().unwrap().persistence, Persistence::Saved);
    let r2 = agent.run("two").await.unwrap();
    assert_eq!(r2.output_text(), "second");
    let texts: Vec<String> = model.requests().last().unwrap().messages.iter().map(Message::text).collect();
    assert_eq!(texts, ["Seeded context.", "one", "first", "two"], "history, seeded once, then new input");
    assert_eq!(session.turns().len(), 3, "seed event and two turns");
    assert!(model.requests().last().unwrap().prompt_cache_key.unwrap().starts_with("dive-session-"));
}

#[tokio::test]
async fn input_as_content_blocks() {
    let model = ScriptedModel::new([ModelResponse::text("a cat")]);
    let agent = agent_with(&model).build().unwrap();
    let blocks = vec![
        dive_core::Content::text("What is this?"),
        dive_core::Content::image(dive_core::MediaSource::base64("image/png", "iVBORw0KGgo=")),
    ];
    agent.run(blocks).await.unwrap();
    let sent = model.requests().last().unwrap();
    assert_eq!(sent.messages[0].content.len(), 2);
    assert!(matches!(agent.run(Vec::<Message>::new()).await, Err(AgentError::Rejected(_))));
}

/// A tracer that records what it was asked to trace.
#[derive(Default)]
struct RecordingTracer(Arc<Mutex<Vec<String>>>);

struct Span(Arc<Mutex<Vec<String>>>, &'static str);

impl dive_core::AgentRunSpan for Span {
    fn set_outcome(&mut self, status: &str, reason: Option<&str>) {
        self.0.lock().unwrap().push(format!("{} outcome {status} {}", self.1, reason.unwrap_or("-")));
    }
    fn end(self: Box<Self>) {
        self.0.lock().unwrap().push(format!("{} end", self.1));
    }
}

impl dive_core::ChatSpan for Span {
    fn set_response(&mut self, response: &ModelResponse) {
        self.0.lock().unwrap().push(format!("{} response {}", self.1, response.stop_reason));
    }
    fn end(self: Box<Self>) {
        self.0.lock().unwrap().push(format!("{} end", self.1));
    }
}

impl dive_core::ToolCallSpan for Span {
    fn set_result(&mut self, result: &dive_core::ToolCallResult) {
        self.0.lock().unwrap().push(format!("{} result {}", self.1, result.id));
    }
    fn end(self: Box<Self>) {
        self.0.lock().unwrap().push(format!("{} end", self.1));
    }
}

impl dive_core::Tracer for RecordingTracer {
    fn start_agent_run(&self, run: &RunInfo) -> Box<dyn dive_core::AgentRunSpan> {
        self.0.lock().unwrap().push(format!("run start {}", run.agent_name));
        Box::new(Span(self.0.clone(), "run"))
    }
    fn start_chat(&self, _run: &RunInfo, chat: &dive_core::ChatStart<'_>) -> Box<dyn dive_core::ChatSpan> {
        self.0.lock().unwrap().push(format!("chat start {} streaming={}", chat.provider, chat.streaming));
        Box::new(Span(self.0.clone(), "chat"))
    }
    fn start_tool_call(&self, _run: &RunInfo, call: &dive_core::ToolUse) -> Box<dyn dive_core::ToolCallSpan> {
        self.0.lock().unwrap().push(format!("tool start {}", call.id));
        Box::new(Span(self.0.clone(), "tool"))
    }
}

#[tokio::test]
async fn the_tracer_sees_the_run_every_model_call_and_every_tool_call() {
    let tracer = RecordingTracer::default();
    let log = tracer.0.clone();
    let model =
        ScriptedModel::new([calls(&[("c1", "echo", json!({"text": "a"}))]), ModelResponse::text("ok")]);
    let agent =
        agent_with(&model).tool(echo("echo", Arc::default())).tracer(Arc::new(tracer)).build().unwrap();
    agent.run("go").await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "run start test-agent",
            "chat start test streaming=false",
            "chat response tool_use",
            "chat end",
            "tool start c1",
            "tool result c1",
            "tool end",
            "chat start test streaming=false",
            "chat response end_turn",
            "chat end",
            "run outcome completed completed",
            "run end",
        ]
    );
}

/// Keeps nothing of a request but where its history and tool list live, how many holders
/// share the history while the call runs, its length and its reminder blocks.
#[derive(Clone, Default)]
struct AddressModel {
    script: Arc<Mutex<Vec<ModelResponse>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// What [`AddressModel`] saw of one request.
#[derive(Debug, Clone, Copy)]
struct Seen {
    history: usize,
    holders: usize,
    len: usize,
    tools: usize,
    reminders: usize,
}

impl dive_core::Llm for AddressModel {
    fn provider(&self) -> &str {
        "address"
    }
    fn model(&self) -> &str {
        "address-1"
    }
    fn generate(
        &self,
        request: dive_core::ModelRequest,
    ) -> dive_core::BoxFuture<'_, Result<ModelResponse, LlmError>> {
        self.seen.lock().unwrap().push(Seen {
            history: Arc::as_ptr(&request.messages) as usize,
            holders: Arc::strong_count(&request.messages),
            len: request.messages.len(),
            tools: Arc::as_ptr(&request.tools).cast::<dive_core::ToolDefinition>() as usize,
            reminders: request
                .messages
                .iter()
                .flat_map(|m| &m.content)
                .filter(|c| c.kind() == "reminder")
                .count(),
        });
        let response = self.script.lock().unwrap().remove(0);
        Box::pin(async move { Ok(response) })
    }
}

#[tokio::test]
async fn model_calls_share_the_history_and_tool_list_instead_of_copying_them() {
    let model = AddressModel::default();
    model.script.lock().unwrap().extend([
        calls(&[("c1", "echo", json!({"text": "a"}))]),
        calls(&[("c2", "echo", json!({"text": "b"}))]),
        ModelResponse::text("done"),
    ]);
    let log = Arc::new(Mutex::new(Vec::new()));
    let agent = Agent::builder().model(model.clone()).tool(echo("echo", log)).build().unwrap();
    let clock = Reminder::new("clock", "It is noon.").unwrap();
    let run = RunOptions::text("go").with_model_only_reminder(clock);
    assert_eq!(agent.run(run).await.unwrap().output_text(), "done");
    let seen = model.seen.lock().unwrap().clone();
    // Each call's reminder is appended to the shared history and taken back after the call.
    assert_eq!(
        seen.iter().map(|s| s.reminders).collect::<Vec<_>>(),
        [1, 1, 1],
        "one reminder a call: {seen:?}"
    );
    assert_eq!(seen.iter().map(|s| s.len).collect::<Vec<_>>(), [1, 3, 5], "the live history, growing");
    // A copy per call would be a new allocation held by the request alone.
    assert!(seen.iter().all(|s| s.holders == 2), "the run and the request share one history: {seen:?}");
    assert!(seen.iter().all(|s| s.history == seen[0].history), "one history for every call: {seen:?}");
    assert!(seen.iter().all(|s| s.tools == seen[0].tools), "the agent's tool list, built once: {seen:?}");
}
