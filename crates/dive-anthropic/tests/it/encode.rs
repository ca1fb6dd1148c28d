//! What the request encoder sends: the semantics the SDK types cannot check.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_anthropic::{Anthropic, AnthropicBuilderExt};
use dive_core::{
    CacheTtl, Content, Message, ModelRequest, Reasoning, ReasoningEffort, Reminder, Role, ThinkingContent,
    ToolUse,
};
use serde_json::{Value, json};

fn client(model: &str) -> Anthropic {
    Anthropic::builder().api_key("sk-ant-test").base_url("http://127.0.0.1:9").model(model).build().unwrap()
}

fn breakpoints(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().unwrap())
        .filter(|b| b.get("cache_control").is_some())
        .count()
}

#[test]
fn history_is_never_modified_and_unanswered_calls_are_answered_on_the_wire() {
    let history = vec![
        Message::user("go"),
        Message::new(Role::Assistant, vec![Content::tool_use("c1", "bash", json!({"cmd": "ls"}))]),
    ];
    let request = ModelRequest::new(history.clone());
    let body = client("claude-sonnet-5-5").request_body(&request, false).unwrap();
    assert_eq!(*request.messages, history);
    let last = &body["messages"][2];
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["tool_use_id"], "c1");
    assert_eq!(last["content"][0]["is_error"], true);
}

#[test]
fn operator_reminders_use_the_system_role_only_where_supported() {
    let request = ModelRequest::new(vec![Message::new(
        Role::User,
        vec![Content::text("hi"), Content::Reminder(Reminder::operator("policy", "no deletes").unwrap())],
    )]);
    let new = client("claude-opus-4-8").request_body(&request, false).unwrap();
    assert_eq!(new["messages"][1]["role"], "system");
    let old = client("claude-sonnet-4-5").request_body(&request, false).unwrap();
    assert_eq!(old["messages"].as_array().unwrap().len(), 1);
    assert!(
        old["messages"][0]["content"][1]["text"]
            .as_str()
            .unwrap()
            .contains("<system-reminder name=\"policy\">")
    );
}

#[test]
fn only_signed_anthropic_thinking_is_replayed_verbatim() {
    let mut foreign = ThinkingContent::new("openai", Some("enc".into()));
    foreign.id = Some("rs_1".into());
    let request = ModelRequest::new(vec![
        Message::user("q"),
        Message::new(
            Role::Assistant,
            vec![
                Content::Thinking(ThinkingContent::new("mine", Some("sig/+=".into()))),
                Content::Thinking(ThinkingContent::new("unsigned", None)),
                Content::Thinking(foreign),
                Content::text("a"),
            ],
        ),
    ]);
    let body = client("claude-sonnet-5-5").request_body(&request, false).unwrap();
    let blocks = body["messages"][1]["content"].as_array().unwrap();
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0], json!({"type": "thinking", "thinking": "mine", "signature": "sig/+="}));
}

#[test]
fn caching_is_automatic_with_ttl_and_at_most_four_breakpoints() {
    let messages: Vec<Message> = (0..80).map(|i| Message::user(format!("m{i}"))).collect();
    let request = ModelRequest::new(messages);
    let client = Anthropic::builder()
        .api_key("k-test")
        .base_url("http://127.0.0.1:9")
        .cache_ttl(CacheTtl::OneHour)
        .build()
        .unwrap();
    let body = client.request_body(&request, false).unwrap();
    assert_eq!(body["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}));
    assert_eq!(breakpoints(&body), 3, "automatic + 3 spaced = the API's limit of 4");
    let mut off = request.clone();
    off.caching = Some(false);
    let body = client.request_body(&off, false).unwrap();
    assert!(body.get("cache_control").is_none());
    assert_eq!(breakpoints(&body), 0);
}

#[test]
fn effort_is_clamped_to_the_model_and_sampling_is_not_sent() {
    let request = ModelRequest::new(vec![Message::user("q")])
        .with_reasoning(Reasoning::effort(ReasoningEffort::Max))
        .with_temperature(0.2);
    let body = client("claude-sonnet-4-6").request_body(&request, false).unwrap();
    assert_eq!(body["output_config"]["effort"], "high");
    assert!(body.get("temperature").is_none());
}

#[test]
fn tool_call_caller_round_trips_through_metadata() {
    let mut call = ToolUse::new("t1", "calc", json!({"x": 1}));
    call.metadata
        .insert("anthropic".into(), json!({"caller": {"type": "code_execution_20250825", "tool_id": "srv"}}));
    let request = ModelRequest::new(vec![
        Message::user("q"),
        Message::new(Role::Assistant, vec![Content::ToolUse(call)]),
    ]);
    let body = client("claude-sonnet-5-5").request_body(&request, false).unwrap();
    assert_eq!(body["messages"][1]["content"][0]["caller"]["tool_id"], "srv");
    assert!(body["messages"][1]["content"][0].get("metadata").is_none());
}
