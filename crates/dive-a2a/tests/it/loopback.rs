//! Our server and our client on a local port: cancel of a running task, an input-required
//! round trip with tool results, failure with partial output, authentication, trace context,
//! and the bounded load test with a restart on the same SQLite database.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::HashSet;
use std::sync::Arc;

use dive_a2a::types::{ListTasksRequest, Message, Part, SendMessageRequest, SendMessageResponse, TaskState};
use dive_a2a::{A2aServer, ClientError, RemoteAgent};
use dive_core::{Secret, SessionStore};
use futures_util::future::join_all;
use serde_json::json;

async fn client(url: &str) -> RemoteAgent {
    RemoteAgent::from_url(url).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_task_is_cancelled() {
    let server =
        common::serve(common::agent("sleepy", vec![Arc::new(common::Sleep::new())]), common::memory()).await;
    let agent = client(&server.url()).await;
    let request = SendMessageRequest::new(Message::user_text("nap")).returning_immediately();
    let SendMessageResponse::Task(task) = agent.send(request).await.unwrap() else { panic!("a task") };
    assert!(matches!(task.status.state, TaskState::Submitted | TaskState::Working), "{task:?}");
    let canceled = agent.cancel_task(&task.id).await.unwrap();
    assert_eq!(canceled.status.state, TaskState::Canceled, "{canceled:?}");
    assert_eq!(agent.get_task(&task.id).await.unwrap().status.state, TaskState::Canceled);
    let again = agent.cancel_task(&task.id).await.unwrap_err();
    assert_eq!(again.rpc_code(), Some(dive_a2a::types::ErrorCode::TaskNotCancelable));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_required_is_answered_with_tool_results() {
    let server =
        common::serve(common::agent("asking", vec![Arc::new(common::AskName::new())]), common::memory())
            .await;
    let agent = client(&server.url()).await;
    let waiting = agent.send_text("who am I?").await.unwrap();
    assert!(waiting.is_input_required(), "{waiting:?}");
    assert!(waiting.text.contains("What is your name?"), "{waiting:?}");
    let task = waiting.task.unwrap();
    assert_eq!(task.metadata.as_ref().unwrap()[dive_a2a::SUSPENSION_KEY], "input-required");
    let question = task.status.message.unwrap();
    let calls = question.parts.iter().find_map(|p| p.as_data()).unwrap()["pendingToolCalls"].clone();
    let call_id = calls[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(calls[0]["name"], "ask_name");

    // An answer naming a call that is not pending is refused; the task still waits.
    let wrong =
        Message::new(dive_a2a::types::Role::User, vec![Part::data(json!({"toolResults": {"nope": "x"}}))])
            .with_task_id(&waiting.id);
    let refused = agent.send(SendMessageRequest::new(wrong)).await.unwrap_err();
    assert_eq!(refused.rpc_code(), Some(dive_a2a::types::ErrorCode::InvalidParams), "{refused}");

    let answer = Message::new(
        dive_a2a::types::Role::User,
        vec![Part::data(json!({"toolResults": {call_id: "Grace"}}))],
    )
    .with_task_id(&waiting.id);
    let SendMessageResponse::Task(done) = agent.send(SendMessageRequest::new(answer)).await.unwrap() else {
        panic!("a task")
    };
    assert_eq!(done.status.state, TaskState::Completed, "{done:?}");
    assert!(done.text().contains("Grace"), "{}", done.text());
    assert!(done.metadata.as_ref().is_none_or(|m| !m.contains_key(dive_a2a::SUSPENSION_KEY)));
    // A finished task takes no more messages.
    let late = agent.send_text_on_task(&done.id, "more").await.unwrap_err();
    assert_eq!(late.rpc_code(), Some(dive_a2a::types::ErrorCode::UnsupportedOperation), "{late}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_failure_fails_the_task() {
    let model = dive_test::ScriptedModel::new([]);
    let agent = Arc::new(dive_agent::Agent::builder().name("broken").model(model).build().unwrap());
    let server = common::serve(agent, common::memory()).await;
    let result = client(&server.url()).await.send_text("hi").await.unwrap();
    assert!(result.is_failed(), "{result:?}");
    assert!(!result.text.is_empty(), "the failure is explained: {result:?}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_keys_are_enforced_and_announced() {
    let server = A2aServer::builder(common::agent("guarded", vec![]))
        .store(common::memory())
        .api_key("X-API-Key", Secret::new("k-123"))
        .build()
        .unwrap()
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let anonymous = client(&server.url()).await;
    let card = anonymous.card().clone();
    assert_eq!(
        serde_json::to_value(&card.security_schemes).unwrap(),
        json!({"apiKey": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}}})
    );
    let refused = anonymous.send_text("hi").await.unwrap_err();
    assert!(matches!(refused, ClientError::Status { status: 401, .. }), "{refused}");
    let wrong = RemoteAgent::from_card(card.clone())
        .unwrap()
        .with_header("X-API-Key", &Secret::new("k-124"))
        .unwrap();
    assert!(matches!(wrong.send_text("hi").await.unwrap_err(), ClientError::Status { status: 401, .. }));
    let keyed =
        RemoteAgent::from_card(card).unwrap().with_header("X-API-Key", &Secret::new("k-123")).unwrap();
    assert!(keyed.send_text("hi").await.unwrap().is_completed());
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trace_context_goes_both_ways() {
    let server = common::serve(common::agent("traced", vec![]), common::memory()).await;
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let agent = client(&server.url()).await.with_traceparent(traceparent).unwrap();
    let result = agent.send_text("hi").await.unwrap();
    let task = agent.get_task(&result.id).await.unwrap();
    assert_eq!(task.metadata.unwrap()["traceparent"], traceparent);
    let http = dive_provider::HttpOptions::default().build_client().unwrap();
    let response = http
        .post(format!("{}/", server.url()))
        .header("traceparent", traceparent)
        .header("A2A-Version", "1.0")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["traceparent"], traceparent);
    server.shutdown().await;
}

/// 150 concurrent tasks on the SQLite store, the server stopped and a new one started on the
/// same database: every task is there once, finished and readable; a task left running by
/// the first server is failed, not lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_tasks_survive_a_restart_on_sqlite() {
    const TASKS: usize = 150;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("tasks.db");
    let store = || -> Arc<dyn SessionStore> { Arc::new(dive_session::SqliteStore::open(&db).unwrap()) };

    let first = common::serve(common::agent("load", vec![]), store()).await;
    let agent = Arc::new(client(&first.url()).await);
    let sends = (0..TASKS).map(|i| {
        let agent = agent.clone();
        async move {
            let request = SendMessageRequest::new(Message::user_text(format!("task {i}")));
            match agent.send(request).await.unwrap() {
                SendMessageResponse::Task(t) => (i, t),
                other => panic!("a task, not {other:?}"),
            }
        }
    });
    let sent = join_all(sends).await;
    for (i, task) in &sent {
        assert_eq!(task.status.state, TaskState::Completed, "{task:?}");
        assert_eq!(task.text(), format!("Test response to: task {i}"));
    }
    // A task still running when the server goes away.
    let sleepy = common::serve(common::agent("sleepy", vec![Arc::new(common::Sleep::new())]), store()).await;
    let request = SendMessageRequest::new(Message::user_text("nap")).returning_immediately();
    let SendMessageResponse::Task(napping) = client(&sleepy.url()).await.send(request).await.unwrap() else {
        panic!("a task")
    };
    first.shutdown().await;
    drop(sleepy);

    let second = A2aServer::builder(common::agent("load", vec![])).store(store()).build().unwrap();
    assert_eq!(second.recover().await.unwrap(), 1, "the task left running is recovered once");
    let second = second.bind("127.0.0.1:0").await.unwrap();
    let agent = client(&second.url()).await;
    let mut listed = Vec::new();
    let mut request = ListTasksRequest::new().with_page_size(40).with_artifacts();
    loop {
        let page = agent.list_tasks(&request).await.unwrap();
        assert_eq!(page.total_size as usize, TASKS + 1);
        listed.extend(page.tasks);
        if page.next_page_token.is_empty() {
            break;
        }
        request = request.with_page_token(page.next_page_token);
    }
    assert_eq!(listed.len(), TASKS + 1, "every task listed once");
    let ids: HashSet<&str> = listed.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids.len(), TASKS + 1, "no task listed twice");
    for (i, task) in &sent {
        assert!(ids.contains(task.id.as_str()));
        let stored = agent.get_task(&task.id).await.unwrap();
        assert_eq!(stored.status.state, TaskState::Completed);
        assert_eq!(stored.text(), format!("Test response to: task {i}"));
        assert_eq!(stored.history.len(), 2, "the question and the answer");
    }
    let recovered = agent.get_task(&napping.id).await.unwrap();
    assert_eq!(recovered.status.state, TaskState::Failed, "{recovered:?}");
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_task_in_a_context_sees_the_conversation_before_it() {
    let model = dive_test::ScriptedModel::new([
        dive_core::ModelResponse::text("Nice to meet you, Ada."),
        dive_core::ModelResponse::text("You are Ada."),
    ]);
    let requests = model.requests();
    let agent = Arc::new(dive_agent::Agent::builder().name("memory").model(model).build().unwrap());
    let server = common::serve(agent, common::memory()).await;
    let remote = client(&server.url()).await;
    let first = remote.send_text("I am Ada.").await.unwrap();
    let second = remote.send_text("Who am I?").await.unwrap();
    assert_ne!(first.id, second.id, "each message starts a task");
    assert_eq!(first.context_id, second.context_id, "in the tracked context");
    assert_eq!(second.text, "You are Ada.");
    let texts: Vec<String> = requests.all()[1].messages.iter().map(dive_core::Message::text).collect();
    assert_eq!(texts, ["I am Ada.", "Nice to meet you, Ada.", "Who am I?"]);
    // Another context starts afresh.
    let mut other = Message::user_text("Hello?");
    other.context_id = Some("ctx-other".into());
    let _ = remote.send(SendMessageRequest::new(other)).await.unwrap();
    assert_eq!(requests.all()[2].messages.len(), 1);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_sees_a_running_task_to_its_end() {
    use futures_util::StreamExt;
    let server =
        common::serve(common::agent("sleepy", vec![Arc::new(common::Sleep::new())]), common::memory()).await;
    let agent = client(&server.url()).await;
    let request = SendMessageRequest::new(Message::user_text("nap")).returning_immediately();
    let SendMessageResponse::Task(task) = agent.send(request).await.unwrap() else { panic!("a task") };
    let mut events = agent.subscribe(&task.id).await.unwrap();
    let first = events.next().await.unwrap().unwrap();
    assert!(matches!(&first, dive_a2a::types::StreamResponse::Task(t) if t.id == task.id), "{first:?}");
    agent.cancel_task(&task.id).await.unwrap();
    let mut last = None;
    while let Some(event) = events.next().await {
        last = Some(event.unwrap());
    }
    let Some(dive_a2a::types::StreamResponse::StatusUpdate(update)) = last else {
        panic!("a final status: {last:?}")
    };
    assert_eq!(update.status.state, TaskState::Canceled);
    // A finished task cannot be subscribed to.
    let refused = match agent.subscribe(&task.id).await {
        Ok(mut s) => s.next().await.unwrap().unwrap_err(),
        Err(e) => e,
    };
    assert_eq!(refused.rpc_code(), Some(dive_a2a::types::ErrorCode::UnsupportedOperation), "{refused}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_cut_short_fails_with_its_partial_output() {
    let cut = dive_core::ModelResponse::text("The first half of the answer").with_stop_reason("max_tokens");
    let model = dive_test::ScriptedModel::new([cut]);
    let agent = Arc::new(dive_agent::Agent::builder().name("short").model(model).build().unwrap());
    let server = common::serve(agent, common::memory()).await;
    let result = client(&server.url()).await.send_text("Tell me everything").await.unwrap();
    assert!(result.is_failed(), "{result:?}");
    let task = result.task.unwrap();
    assert_eq!(task.artifacts[0].text(), "The first half of the answer");
    assert_eq!(task.artifacts[0].description.as_deref(), Some("partial output"));
    let why = task.status.message.unwrap().text();
    assert!(why.contains("output_limit"), "{why}");
    server.shutdown().await;
}

/// What the served run's values carried (put there by the server's run-values hook).
#[derive(Clone)]
struct Incoming(String);

/// A tool that answers with the `Incoming` traceparent its run started with.
struct WhichTrace(serde_json::Value);

impl dive_core::Tool for WhichTrace {
    fn name(&self) -> &str {
        "which_trace"
    }
    fn description(&self) -> &str {
        "Says which trace this run continues."
    }
    fn input_schema(&self) -> &serde_json::Value {
        &self.0
    }
    fn call(
        &self,
        _input: serde_json::Value,
        ctx: dive_core::ToolContext,
    ) -> dive_core::BoxFuture<'_, Result<dive_core::ToolResult, dive_core::ToolError>> {
        let seen = ctx.run.values.get::<Incoming>().map_or_else(|| "none".to_owned(), |i| i.0);
        Box::pin(async move { Ok(dive_core::ToolResult::text(seen)) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tools_traceparent_reaches_the_served_run() {
    use dive_core::Tool;
    let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let served = common::agent("traced", vec![Arc::new(WhichTrace(dive_core::empty_object_schema()))]);
    let hook: dive_a2a::RunValues = Arc::new(|tp| {
        let values = dive_core::Values::new();
        if let Some(tp) = tp {
            values.insert(Incoming(tp.to_owned()));
        }
        values
    });
    let server = A2aServer::builder(served).store(common::memory()).run_values(hook).build().unwrap();
    let server = server.bind("127.0.0.1:0").await.unwrap();
    let remote = Arc::new(client(&server.url()).await);
    let tool = dive_a2a::RemoteAgentTool::new(remote.clone())
        .with_traceparent_source(Arc::new(move |_ctx| Some(traceparent.to_owned())));
    let out = tool
        .call(json!({"message": "which trace?"}), dive_core::ToolContext::detached("ask_traced"))
        .await
        .unwrap();
    let dive_core::ToolResult::Output(output) = out else { panic!("an output") };
    assert!(output.text_content().contains(traceparent), "{}", output.text_content());
    // Without a traceparent the run starts with none.
    let plain = remote.send_text("which trace now?").await.unwrap();
    assert!(plain.text.contains("none"), "{}", plain.text);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_answers_to_one_question_run_once() {
    let server =
        common::serve(common::agent("asking", vec![Arc::new(common::AskName::new())]), common::memory())
            .await;
    let agent = Arc::new(client(&server.url()).await);
    let waiting = agent.send_text("who am I?").await.unwrap();
    assert!(waiting.is_input_required());
    let answers = ["Ada", "Grace"].map(|name| {
        let (agent, id) = (agent.clone(), waiting.id.clone());
        async move { agent.send_text_on_task(&id, name).await }
    });
    let results = join_all(answers).await;
    let done: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
    assert_eq!(done.len(), 1, "{results:?}");
    assert!(done[0].is_completed(), "{:?}", done[0]);
    let refused = results.iter().find_map(|r| r.as_ref().err()).unwrap();
    assert_eq!(refused.rpc_code(), Some(dive_a2a::types::ErrorCode::UnsupportedOperation), "{refused}");
    let task = agent.get_task(&waiting.id).await.unwrap();
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(
        task.history.iter().filter(|m| m.role == dive_a2a::types::Role::User).count(),
        2,
        "the question's ask and one answer"
    );
    server.shutdown().await;
}
