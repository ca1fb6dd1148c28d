//! Our client against the official a2a-sdk server (Python, `tests/peers/a2a_echo_server.py`):
//! the card, a blocking send, a direct message, a stream, get, list, cancel, a typed error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use dive_a2a::types::{ErrorCode, ListTasksRequest, Message, SendMessageRequest, StreamResponse, TaskState};
use dive_a2a::{RemoteAgent, RemoteAgentTool};
use dive_core::{Tool, ToolContext, ToolResult};
use futures_util::StreamExt;
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_drives_the_python_sdk_server() {
    let Some(python) = dive_test::interop::python("a2a-sdk") else { return };
    let port = common::free_port();
    let mut child = tokio::process::Command::new(&python)
        .arg(common::peer("a2a_echo_server.py"))
        .args(["--port", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    common::wait_for_port(port, Duration::from_secs(60)).await;
    let base = format!("http://127.0.0.1:{port}");
    let agent = RemoteAgent::from_url(&base).await.unwrap();
    assert_eq!(agent.card().name, "echo");

    // A blocking send: the task comes back completed, with its artifact.
    let result = agent.send_text("hello").await.unwrap();
    assert!(result.is_completed(), "{result:?}");
    assert_eq!(result.text, "echo: hello");
    assert_eq!(agent.context_id().as_deref(), Some(result.context_id.as_str()));
    assert_eq!(agent.last_task_id().as_deref(), Some(result.id.as_str()));

    // A direct message (no task).
    let direct = agent.send_text("direct:hi").await.unwrap();
    assert!(direct.task.is_none());
    assert_eq!(direct.text, "echo: hi");

    // A stream: the task, working, the artifact, completed.
    let mut events = agent.stream(SendMessageRequest::new(Message::user_text("stream me"))).await.unwrap();
    let mut seen = Vec::new();
    let mut text = String::new();
    while let Some(event) = events.next().await {
        match event.unwrap() {
            StreamResponse::Task(t) => seen.push(format!("task:{}", t.status.state.as_str())),
            StreamResponse::StatusUpdate(u) => seen.push(u.status.state.as_str().to_owned()),
            StreamResponse::ArtifactUpdate(a) => {
                text.push_str(&a.artifact.text());
                seen.push("artifact".into());
            }
            other => seen.push(format!("{other:?}")),
        }
    }
    assert_eq!(text, "echo: stream me");
    assert_eq!(seen.last().map(String::as_str), Some("TASK_STATE_COMPLETED"), "{seen:?}");

    // Get, list, cancel and a typed error.
    let task = agent.get_task(&result.id).await.unwrap();
    assert_eq!(task.status.state, TaskState::Completed);
    let page = agent.list_tasks(&ListTasksRequest::default()).await.unwrap();
    assert!(page.tasks.iter().any(|t| t.id == result.id), "{page:?}");
    let refused = agent.cancel_task(&result.id).await.unwrap_err();
    assert_eq!(refused.rpc_code(), Some(ErrorCode::TaskNotCancelable), "{refused}");
    let missing = agent.get_task("nope").await.unwrap_err();
    assert_eq!(missing.rpc_code(), Some(ErrorCode::TaskNotFound), "{missing}");

    // The remote agent as a tool.
    let tool = RemoteAgentTool::new(Arc::new(agent));
    assert_eq!(tool.name(), "ask_echo");
    let out = tool
        .call(serde_json::json!({"message": "via tool"}), ToolContext::detached("ask_echo"))
        .await
        .unwrap();
    let ToolResult::Output(output) = out else { panic!("an output") };
    assert_eq!(output.text_content(), "echo: via tool");
    child.kill().await.unwrap();
}
