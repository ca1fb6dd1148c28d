//! A multi-turn tool-calling conversation replayed through both APIs: what the model said
//! (reasoning items with encrypted content, message ids and `phase`, call ids and argument
//! strings) goes back exactly as the API requires, and request-only rewrites (reminders,
//! unanswered calls, `previous_response_id`) never touch the caller's history.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{chat, decode_fixture_ok, responses};
use dive_core::{Content, Message, ModelRequest, Reminder, ToolResultContent};
use serde_json::{Value, json};

fn fixture_final(name: &str) -> Value {
    let text = std::fs::read_to_string(common::fixture_path(name)).unwrap();
    let last = text.lines().rev().find_map(|l| l.strip_prefix("data: ")).unwrap();
    serde_json::from_str::<Value>(last).unwrap()["response"].clone()
}

async fn conversation() -> Vec<Message> {
    let turn = decode_fixture_ok("responses_reasoning_tools.sse").await;
    vec![
        Message::user("Weather in Paris and Oslo?"),
        turn.into_message(),
        Message::tool_results(vec![
            ToolResultContent::text("call_Paris01", "14°C, cloudy"),
            ToolResultContent::error("call_Oslo02", "station offline"),
        ]),
    ]
}

#[tokio::test]
async fn responses_history_is_sent_back_exactly() {
    let history = conversation().await;
    let body = responses("gpt-5.5").request_body(&ModelRequest::new(history.clone()), false).unwrap();
    let input = body["input"].as_array().unwrap();
    let output = fixture_final("responses_reasoning_tools.sse")["output"].as_array().unwrap().clone();

    assert_eq!(
        input[0],
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Weather in Paris and Oslo?"}]})
    );
    // The reasoning item: id, both summary parts, encrypted content, verbatim.
    let mut reasoning = output[0].clone();
    reasoning.as_object_mut().unwrap().remove("status");
    assert_eq!(input[1], reasoning);
    // The commentary message with its id and phase.
    assert_eq!(
        input[2],
        json!({"type": "message", "role": "assistant", "id": "msg_0c0m", "status": "completed",
        "phase": "commentary", "content": [{"type": "output_text", "text": "Checking both cities — one moment.", "annotations": []}]})
    );
    // Both calls: call ids, names, the exact argument strings, item ids.
    for (sent, original) in input[3..5].iter().zip(&output[2..4]) {
        for key in ["type", "id", "call_id", "name", "arguments"] {
            assert_eq!(sent[key], original[key], "{key}");
        }
    }
    assert_eq!(
        input[5],
        json!({"type": "function_call_output", "call_id": "call_Paris01", "output": "14°C, cloudy"})
    );
    assert_eq!(
        input[6],
        json!({"type": "function_call_output", "call_id": "call_Oslo02", "output": "Error: station offline"})
    );
    assert_eq!(input.len(), 7);
    assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(body["store"], json!(false));
}

#[tokio::test]
async fn chat_history_keeps_call_ids_and_arguments() {
    let history = conversation().await;
    let body = chat("gpt-5.5").request_body(&ModelRequest::new(history), false).unwrap();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[1]["content"], json!("Checking both cities — one moment."));
    assert_eq!(
        messages[1]["tool_calls"][0],
        json!({"id": "call_Paris01", "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\",\"unit\":\"celsius\"}"}})
    );
    assert_eq!(messages[1]["tool_calls"][1]["id"], "call_Oslo02");
    assert_eq!(
        messages[2],
        json!({"role": "tool", "tool_call_id": "call_Paris01", "content": "14°C, cloudy"})
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "call_Oslo02", "content": "Error: station offline"})
    );
    assert_eq!(messages.len(), 4);
}

#[tokio::test]
async fn unanswered_calls_are_answered_on_the_request_only() {
    let mut history = conversation().await;
    history.pop();
    let before = history.clone();
    let request = ModelRequest::new(history);
    let body = responses("gpt-5.5").request_body(&request, false).unwrap();
    let outputs: Vec<&Value> =
        body["input"].as_array().unwrap().iter().filter(|i| i["type"] == "function_call_output").collect();
    assert_eq!(outputs.len(), 2);
    assert!(outputs.iter().all(|o| o["output"].as_str().unwrap().contains("Unknown result")), "{outputs:?}");
    let chat_body = chat("gpt-5.5").request_body(&request, false).unwrap();
    assert_eq!(chat_body["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "tool").count(), 2);
    assert_eq!(*request.messages, before);
}

#[test]
fn operator_reminders_are_developer_messages_on_openai() {
    let request = ModelRequest::new(vec![
        Message::user("Hi"),
        Reminder::operator("policy", "Answer in French.").unwrap().into_message(),
        Reminder::new("todo-list", "2 open").unwrap().into_message(),
    ]);
    let body = responses("gpt-5.5").request_body(&request, false).unwrap();
    let input = body["input"].as_array().unwrap();
    assert!(input.iter().any(|i| i["role"] == "developer" && i["content"].as_str().unwrap().contains("Answer in French.")), "{input:?}");
    assert!(input.iter().any(|i| {
        i["role"] == "user"
            && i["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .contains("<system-reminder name=\"todo-list\">")
    }));
    let chat_body = chat("gpt-5.5").request_body(&request, false).unwrap();
    assert!(chat_body["messages"].as_array().unwrap().iter().any(|m| m["role"] == "developer"));
}

#[test]
fn previous_response_id_sends_only_the_new_turn() {
    let request =
        ModelRequest::new(vec![Message::user("first"), Message::assistant("ok"), Message::user("second")])
            .with_option(dive_openai::OpenAiOptions::default().with_previous_response_id("resp_prev"));
    let body = responses("gpt-5.5").request_body(&request, true).unwrap();
    assert_eq!(
        body["input"],
        json!([{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "second"}]}])
    );
    assert_eq!(
        (body["previous_response_id"].clone(), body["store"].clone(), body["stream"].clone()),
        (json!("resp_prev"), json!(true), json!(true))
    );
}

#[test]
fn thinking_from_other_providers_is_not_replayed_as_reasoning() {
    let foreign = Message::new(
        dive_core::Role::Assistant,
        vec![
            Content::Thinking(dive_core::ThinkingContent::new("hmm", Some("anthropic-signature".into()))),
            Content::text("Hello"),
        ],
    );
    let body = responses("gpt-5.5")
        .request_body(&ModelRequest::new(vec![Message::user("Hi"), foreign]), false)
        .unwrap();
    assert_eq!(body["input"][1], json!({"type": "message", "role": "assistant", "content": "Hello"}));
    assert_eq!(body["input"].as_array().unwrap().len(), 2);
}
