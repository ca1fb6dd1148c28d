//! Table-driven bad input to the JSON-RPC endpoint: every case is answered with the JSON-RPC
//! error the SDKs use, and the server keeps serving (no panic).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use dive_a2a::A2aServer;
use serde_json::{Value, json};

async fn post(url: &str, body: impl Into<reqwest::Body>, version: Option<&str>) -> (u16, Value) {
    let client = dive_provider::HttpOptions::default().build_client().unwrap();
    let mut request = client.post(url).header("content-type", "application/json").body(body);
    if let Some(v) = version {
        request = request.header("A2A-Version", v);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_typed_errors() {
    let server = common::serve(common::agent("plain", vec![]), common::memory()).await;
    let url = format!("{}/", server.url());
    let send = |params: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": params}).to_string()
    };
    let cases: Vec<(&str, String, Option<&str>, i64)> = vec![
        ("not JSON", "{nope".into(), Some("1.0"), -32700),
        ("empty body", String::new(), Some("1.0"), -32700),
        ("an array (batch)", "[]".into(), Some("1.0"), -32600),
        ("a string", "\"SendMessage\"".into(), Some("1.0"), -32600),
        ("no jsonrpc", json!({"id": 1, "method": "GetTask"}).to_string(), Some("1.0"), -32600),
        (
            "jsonrpc 1.0",
            json!({"jsonrpc": "1.0", "id": 1, "method": "GetTask"}).to_string(),
            Some("1.0"),
            -32600,
        ),
        ("method a number", json!({"jsonrpc": "2.0", "id": 1, "method": 7}).to_string(), Some("1.0"), -32600),
        (
            "id an object",
            json!({"jsonrpc": "2.0", "id": {}, "method": "GetTask"}).to_string(),
            Some("1.0"),
            -32600,
        ),
        (
            "unknown method",
            json!({"jsonrpc": "2.0", "id": 6, "method": "Nope", "params": {}}).to_string(),
            Some("1.0"),
            -32601,
        ),
        (
            "0.3 method name",
            json!({"jsonrpc": "2.0", "id": 6, "method": "message/send", "params": {}}).to_string(),
            Some("1.0"),
            -32601,
        ),
        (
            "no version header",
            send(json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}})),
            None,
            -32009,
        ),
        (
            "version 2.0",
            send(json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}})),
            Some("2.0"),
            -32009,
        ),
        (
            "no params",
            json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage"}).to_string(),
            Some("1.0"),
            -32602,
        ),
        ("message missing", send(json!({})), Some("1.0"), -32602),
        (
            "parts not a list",
            send(json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": "hi"}})),
            Some("1.0"),
            -32602,
        ),
        (
            "a part of no kind",
            send(json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{}]}})),
            Some("1.0"),
            -32602,
        ),
        (
            "an unknown task",
            json!({"jsonrpc": "2.0", "id": 5, "method": "GetTask", "params": {"id": "nope"}}).to_string(),
            Some("1.0"),
            -32001,
        ),
        (
            "a task id no store accepts",
            json!({"jsonrpc": "2.0", "id": 5, "method": "GetTask", "params": {"id": "../../etc/passwd"}})
                .to_string(),
            Some("1.0"),
            -32001,
        ),
        (
            "a message on an unknown task",
            send(
                json!({"message": {"messageId": "m", "taskId": "nope", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}),
            ),
            Some("1.0"),
            -32001,
        ),
        (
            "cancel an unknown task",
            json!({"jsonrpc": "2.0", "id": 5, "method": "CancelTask", "params": {"id": "nope"}}).to_string(),
            Some("1.0"),
            -32001,
        ),
        (
            "page size 0",
            json!({"jsonrpc": "2.0", "id": 5, "method": "ListTasks", "params": {"pageSize": 0}}).to_string(),
            Some("1.0"),
            -32602,
        ),
        (
            "page size 1000",
            json!({"jsonrpc": "2.0", "id": 5, "method": "ListTasks", "params": {"pageSize": 1000}})
                .to_string(),
            Some("1.0"),
            -32602,
        ),
        (
            "a bad page token",
            json!({"jsonrpc": "2.0", "id": 5, "method": "ListTasks", "params": {"pageToken": "zz"}})
                .to_string(),
            Some("1.0"),
            -32602,
        ),
        (
            "push notifications",
            json!({"jsonrpc": "2.0", "id": 5, "method": "GetTaskPushNotificationConfig", "params": {}})
                .to_string(),
            Some("1.0"),
            -32003,
        ),
        (
            "subscribe to an unknown task",
            json!({"jsonrpc": "2.0", "id": 5, "method": "SubscribeToTask", "params": {"id": "nope"}})
                .to_string(),
            Some("1.0"),
            -32001,
        ),
    ];
    for (name, body, version, code) in cases {
        let (status, answer) = post(&url, body, version).await;
        assert_eq!(status, 200, "{name}: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0", "{name}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{name}: {answer}");
        assert!(answer["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{name}: {answer}");
        assert!(answer.get("result").is_none(), "{name}: {answer}");
    }
    // The same error bodies as the SDK for the captured cases.
    let (_, answer) =
        post(&url, include_str!("../fixtures/error_task_not_found.request.json"), Some("1.0")).await;
    let sdk: Value = serde_json::from_str(include_str!("../fixtures/error_task_not_found.response")).unwrap();
    assert_eq!(answer, sdk);
    let (_, answer) =
        post(&url, include_str!("../fixtures/error_method_not_found.request.json"), Some("1.0")).await;
    let sdk: Value =
        serde_json::from_str(include_str!("../fixtures/error_method_not_found.response")).unwrap();
    assert_eq!(answer, sdk);
    let (_, answer) =
        post(&url, include_str!("../fixtures/error_no_version_header.request.json"), None).await;
    let sdk: Value =
        serde_json::from_str(include_str!("../fixtures/error_no_version_header.response")).unwrap();
    assert_eq!(answer, sdk);
    // Still serving.
    let (_, answer) =
        post(&url, include_str!("../fixtures/send_message_task.request.json"), Some("1.0")).await;
    assert_eq!(answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{answer}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_past_the_limit_is_refused() {
    let server = A2aServer::builder(common::agent("plain", vec![]))
        .store(common::memory())
        .body_limit(1024)
        .build()
        .unwrap()
        .bind("127.0.0.1:0")
        .await
        .unwrap();
    let url = format!("{}/", server.url());
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x".repeat(4096)}]}}});
    let (status, _) = post(&url, big.to_string(), Some("1.0")).await;
    assert_eq!(status, 413);
    let (status, answer) =
        post(&url, include_str!("../fixtures/send_message_task.request.json"), Some("1.0")).await;
    assert_eq!((status, &answer["result"]["task"]["status"]["state"]), (200, &json!("TASK_STATE_COMPLETED")));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rest_binding_answers_bad_input_with_status_bodies() {
    let server = common::serve(common::agent("plain", vec![]), common::memory()).await;
    let client = dive_provider::HttpOptions::default().build_client().unwrap();
    let get = |path: &str| client.get(format!("{}/rest{path}", server.url())).header("A2A-Version", "1.0");
    let cases: Vec<(reqwest::RequestBuilder, u16, &str)> = vec![
        (get("/tasks/nope"), 404, "TASK_NOT_FOUND"),
        (get("/tasks?pageSize=0"), 400, "INVALID_PARAMS"),
        (get("/tasks?pageToken=zz"), 400, "INVALID_PARAMS"),
        (get("/tasks/nope:frobnicate"), 404, "METHOD_NOT_FOUND"),
        (client.get(format!("{}/rest/tasks", server.url())), 400, "VERSION_NOT_SUPPORTED"),
        (
            client
                .post(format!("{}/rest/message:send", server.url()))
                .header("A2A-Version", "1.0")
                .body("{nope"),
            400,
            "",
        ),
        (
            client
                .post(format!("{}/rest/message:send", server.url()))
                .header("A2A-Version", "1.0")
                .body("{}"),
            400,
            "INVALID_PARAMS",
        ),
        (
            client.post(format!("{}/rest/tasks/nope:cancel", server.url())).header("A2A-Version", "1.0"),
            404,
            "TASK_NOT_FOUND",
        ),
    ];
    for (i, (request, status, reason)) in cases.into_iter().enumerate() {
        let response = request.send().await.unwrap();
        assert_eq!(response.status().as_u16(), status, "case {i}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], status, "case {i}: {body}");
        assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "case {i}: {body}");
        if !reason.is_empty() {
            assert_eq!(body["error"]["details"][0]["reason"], reason, "case {i}: {body}");
        }
    }
    // A good request still works.
    let send = json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}});
    let response = client
        .post(format!("{}/rest/message:send", server.url()))
        .header("A2A-Version", "1.0")
        .body(send.to_string())
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{body}");
    server.shutdown().await;
}
