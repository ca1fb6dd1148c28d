//! The opt-in A2A 0.3 compatibility mode: the captured 0.3 requests get 0.3-shaped answers,
//! the a2a-sdk client's 0.3 transport works against us, and without the mode the 0.3 names
//! are unknown methods.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use dive_a2a::A2aServer;
use serde_json::Value;

async fn compat_server() -> dive_a2a::RunningServer {
    A2aServer::builder(common::agent("old", vec![]))
        .store(common::memory())
        .v03_compat(true)
        .build()
        .unwrap()
        .bind("127.0.0.1:0")
        .await
        .unwrap()
}

async fn post(url: &str, body: &str) -> String {
    let client = dive_provider::HttpOptions::default().build_client().unwrap();
    let response =
        client.post(url).header("content-type", "application/json").body(body.to_owned()).send().await;
    response.unwrap().text().await.unwrap()
}

/// The keys of every object, recursively, with the `kind`, `role` and `state` values: the
/// shape of a 0.3 answer without its ids and times (a status `timestamp` is optional).
fn shape(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "timestamp")
                .map(|(k, v)| {
                    let kept = matches!(k.as_str(), "kind" | "role" | "state" | "final" | "append");
                    (k.clone(), if kept { v.clone() } else { shape(v) })
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        _ => Value::Null,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_captured_0_3_requests_get_0_3_answers() {
    let server = compat_server().await;
    let url = format!("{}/", server.url());
    let ours: Value =
        serde_json::from_str(&post(&url, include_str!("../fixtures/v03_message_send.request.json")).await)
            .unwrap();
    let sdk: Value = serde_json::from_str(include_str!("../fixtures/v03_message_send.response")).unwrap();
    assert_eq!(shape(&ours["result"]), shape(&sdk["result"]), "ours: {ours}");
    assert_eq!(ours["result"]["artifacts"][0]["parts"][0]["text"], "Test response to: hello");

    let ours = post(&url, include_str!("../fixtures/v03_message_stream.request.json")).await;
    let events = |text: &str| -> Vec<Value> {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| shape(&serde_json::from_str::<Value>(d.trim()).unwrap()["result"]))
            .collect()
    };
    let (ours, sdk) = (events(&ours), events(include_str!("../fixtures/v03_message_stream.response")));
    assert_eq!(ours.first(), sdk.first(), "the task");
    assert_eq!(ours.last(), sdk.last(), "the final status update");
    assert!(ours.contains(&sdk[2]), "the artifact update: {ours:?}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_mode_0_3_names_are_unknown() {
    let server = common::serve(common::agent("new", vec![]), common::memory()).await;
    let answer: Value = serde_json::from_str(
        &post(&format!("{}/", server.url()), include_str!("../fixtures/v03_message_send.request.json")).await,
    )
    .unwrap();
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_0_3_client_drives_our_server() {
    let Some(python) = dive_test::interop::python("a2a-sdk") else { return };
    let server = compat_server().await;
    let out = tokio::process::Command::new(python)
        .arg(common::peer("sdk_client_v03.py"))
        .arg(server.url())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stdout.contains("5 passed, 0 failed"), "{stdout}\n{stderr}");
    server.shutdown().await;
}
