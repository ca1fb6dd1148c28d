//! The types against the wire examples captured from a2a-sdk 1.3.0 (`tests/fixtures/`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;

use super::*;

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Decodes `text` as `T` and encodes it again: the JSON must be the same value.
fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(text: &str) -> T {
    let original: Value = serde_json::from_str(text).unwrap();
    let typed: T = serde_json::from_value(original.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), original, "round trip of {text}");
    typed
}

#[test]
fn the_sdk_agent_card_round_trips() {
    let card: AgentCard = round_trip(&fixture("agent-card.json"));
    assert_eq!(card.jsonrpc_interface().unwrap().url, "http://127.0.0.1:9999/");
    assert_eq!(card.capabilities.streaming, Some(true));
    assert_eq!(card.skills[0].tags, ["test"]);
}

#[test]
fn the_sdk_task_response_round_trips() {
    let envelope: JsonRpcResponse = serde_json::from_str(&fixture("send_message_task.response")).unwrap();
    let result = envelope.result.unwrap();
    let response: SendMessageResponse = round_trip(&result.to_string());
    let SendMessageResponse::Task(task) = response else { panic!("a task") };
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(task.history[0].role, Role::User);
    assert_eq!(task.text(), "echo: hello");
}

#[test]
fn the_sdk_direct_message_round_trips() {
    let envelope: JsonRpcResponse = serde_json::from_str(&fixture("send_message_direct.response")).unwrap();
    let response: SendMessageResponse = round_trip(&envelope.result.unwrap().to_string());
    let SendMessageResponse::Message(message) = response else { panic!("a message") };
    assert_eq!((message.role.clone(), message.text()), (Role::Agent, "echo: hi".to_string()));
}

#[test]
fn the_sdk_stream_events_round_trip() {
    let text = fixture("send_streaming_message.response");
    let events: Vec<StreamResponse> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|data| {
            let envelope: JsonRpcResponse = serde_json::from_str(data).unwrap();
            round_trip(&envelope.result.unwrap().to_string())
        })
        .collect();
    assert!(matches!(&events[0], StreamResponse::Task(t) if t.status.state == TaskState::Submitted));
    assert!(matches!(&events[1], StreamResponse::StatusUpdate(u) if u.status.state == TaskState::Working));
    assert!(
        matches!(&events[2], StreamResponse::ArtifactUpdate(a) if a.artifact.text() == "echo: stream me")
    );
    assert!(matches!(&events[3], StreamResponse::StatusUpdate(u) if u.status.state == TaskState::Completed));
}

#[test]
fn the_sdk_requests_round_trip() {
    for name in ["send_message_task", "send_message_direct", "send_streaming_message"] {
        let request: JsonRpcRequest = round_trip(&fixture(&format!("{name}.request.json")));
        let params: SendMessageRequest = round_trip(&request.params.to_string());
        assert_eq!(params.message.role, Role::User);
    }
    let get: JsonRpcRequest = round_trip(&fixture("error_task_not_found.request.json"));
    let params: GetTaskRequest = round_trip(&get.params.to_string());
    assert_eq!(params.id, "nope");
}

#[test]
fn errors_are_written_as_the_sdk_writes_them() {
    for (name, code, message) in [
        ("error_task_not_found.response", ErrorCode::TaskNotFound, "Task not found"),
        ("error_method_not_found.response", ErrorCode::MethodNotFound, "Method not found"),
    ] {
        let sdk: Value = serde_json::from_str(&fixture(name)).unwrap();
        let ours = JsonRpcResponse::error(sdk["id"].clone(), RpcError::new(code, message));
        assert_eq!(serde_json::to_value(&ours).unwrap(), sdk, "{name}");
    }
}

#[test]
fn unknown_enum_values_are_kept() {
    let state: TaskState = serde_json::from_str("\"TASK_STATE_DREAMING\"").unwrap();
    assert_eq!(state, TaskState::Other("TASK_STATE_DREAMING".into()));
    assert_eq!(serde_json::to_string(&state).unwrap(), "\"TASK_STATE_DREAMING\"");
}

#[test]
fn parts_of_every_kind_round_trip() {
    for part in [
        r#"{"text":"hi"}"#,
        r#"{"data":{"toolResults":{"c1":"yes"}},"mediaType":"application/json"}"#,
        r#"{"url":"https://example.com/a.png","filename":"a.png","mediaType":"image/png"}"#,
        r#"{"raw":"aGVsbG8=","mediaType":"text/plain"}"#,
    ] {
        round_trip::<Part>(part);
    }
}
