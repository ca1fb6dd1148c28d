//! Provider-defined toolsets on the wire: the declared entries sent in place of the members,
//! the betas of the dated computer tools, a declaration Anthropic has no entry for refused, and
//! a computer-use turn through the engine against a local server (member call routed, its
//! result echoing the toolset name).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use dive_anthropic::{
    Anthropic, Computer, ComputerAction, ComputerMember, ComputerOutput, ComputerUse, ComputerVersion,
    Display,
};
use dive_core::{
    BoxFuture, Content, DeclaredToolset, LlmErrorKind, Message, ModelRequest, Role, ToolContext,
    ToolDeclaration, ToolDefinition, ToolError, ToolResultContent, ToolUse, Toolset,
};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A desktop that records every action and answers screenshots with a 1×1 PNG.
#[derive(Default)]
struct Desk(Mutex<Vec<ComputerAction>>);

const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

impl Computer for Desk {
    fn members(&self) -> Vec<ComputerMember> {
        vec![
            ComputerMember::Screenshot,
            ComputerMember::LeftClick,
            ComputerMember::Type,
            ComputerMember::Zoom,
        ]
    }
    fn run(
        &self,
        action: ComputerAction,
        _ctx: ToolContext,
    ) -> BoxFuture<'_, Result<ComputerOutput, ToolError>> {
        let member = action.member;
        self.0.lock().unwrap().push(action);
        Box::pin(async move {
            Ok(if member.returns_image() { ComputerOutput::png(PNG) } else { ComputerOutput::done() })
        })
    }
}

fn client(base_url: &str) -> Anthropic {
    Anthropic::builder().api_key("sk-ant-test").base_url(base_url).model("claude-sonnet-5-5").build().unwrap()
}

fn request_with(toolset: &DeclaredToolset) -> ModelRequest {
    let mut request = ModelRequest::new(vec![Message::user("open the settings")])
        .with_tools(vec![ToolDefinition::new("notes", "Takes notes.", json!({"type": "object"}))]);
    request.declared_toolsets.push(toolset.declaration().unwrap());
    request
}

#[test]
fn the_toolset_entry_replaces_the_members_and_member_calls_replay_with_their_toolset() {
    let toolset = ComputerUse::new(Desk::default()).build().unwrap();
    let mut request = request_with(&toolset);
    let mut call = ToolUse::new("toolu_1", "left_click", json!({"coordinate": [10, 20]}));
    call.toolset_name = Some("computer".into());
    let mut result = ToolResultContent::text("toolu_1", "Clicked.");
    result.toolset_name = Some("computer".into());
    Arc::make_mut(&mut request.messages).extend([
        Message::new(Role::Assistant, vec![Content::ToolUse(call)]),
        Message::new(Role::User, vec![Content::ToolResult(result)]),
    ]);
    let body = client("http://127.0.0.1:9").request_body(&request, false).unwrap();
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2, "{tools:?}");
    assert_eq!(tools[0]["name"], "notes");
    assert_eq!(tools[1]["type"], "computer_toolset_20260801");
    assert!(tools[1].get("name").is_none(), "a toolset entry carries no name");
    let configs = tools[1]["configs"].as_object().unwrap();
    assert_eq!(configs.len(), 13, "every member the desk does not serve is switched off");
    assert!(!configs.contains_key("left_click"));
    assert_eq!(body["messages"][1]["content"][0]["toolset_name"], "computer");
    assert_eq!(body["messages"][2]["content"][0]["toolset_name"], "computer");
}

#[test]
fn a_changed_declaration_is_encoded_again() {
    let llm = client("http://127.0.0.1:9");
    let toolset = ComputerUse::new(Desk::default()).build().unwrap();
    let with = llm.request_body(&request_with(&toolset), false).unwrap();
    let mut without = request_with(&toolset);
    without.declared_toolsets.clear();
    let body = llm.request_body(&without, false).unwrap();
    assert_eq!(with["tools"].as_array().unwrap().len(), 2);
    assert_eq!(body["tools"].as_array().unwrap().len(), 1, "the cached list was not reused");
}

#[test]
fn a_declaration_without_an_anthropic_entry_is_refused_not_dropped() {
    let decl = ToolDeclaration::new("browser", ["navigate"])
        .with_provider("openai", json!({"tools": [{"type": "browser"}]}));
    let mut request = ModelRequest::new(vec![Message::user("hi")]);
    request.declared_toolsets.push(Arc::new(decl));
    let err = client("http://127.0.0.1:9").request_body(&request, false).unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::InvalidRequest);
    assert!(err.message.contains("toolset browser (members navigate)"), "{}", err.message);
    assert!(err.message.contains("the anthropic provider cannot send"), "{}", err.message);
}

async fn beta_header(toolset: DeclaredToolset) -> (String, Option<String>, Value) {
    let server = MockServer::start().await;
    let reply = json!({"id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1}});
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(ResponseTemplate::new(200).set_body_json(reply))
        .mount(&server)
        .await;
    dive_core::Llm::generate(&client(&server.uri()), request_with(&toolset)).await.unwrap();
    let received = &server.received_requests().await.unwrap()[0];
    let beta = received.headers.get("anthropic-beta").map(|v| v.to_str().unwrap().to_owned());
    let body: Value = serde_json::from_slice(&received.body).unwrap();
    (received.url.query().unwrap_or("").to_owned(), beta, body)
}

#[tokio::test]
async fn the_toolset_needs_no_beta_and_a_dated_computer_tool_sends_its_own() {
    let (query, beta, _) = beta_header(ComputerUse::new(Desk::default()).build().unwrap()).await;
    assert_eq!((query.as_str(), beta), ("", None));

    let dated = ComputerUse::new(Desk::default())
        .with_version(ComputerVersion::Computer20251124)
        .with_display(Display::new(1280, 800))
        .build()
        .unwrap();
    let (query, beta, body) = beta_header(dated).await;
    assert_eq!((query.as_str(), beta.as_deref()), ("beta=true", Some("computer-use-2025-11-24")));
    assert_eq!(
        body["tools"][1],
        json!({"type": "computer_20251124", "name": "computer", "display_width_px": 1280,
               "display_height_px": 800, "enable_zoom": true})
    );
}

/// A message as the API sends it: the JSON object, or (streaming) its SSE events, each tool
/// call's input arriving as one `input_json_delta`.
fn reply(message: &Value, stream: bool) -> ResponseTemplate {
    if !stream {
        return ResponseTemplate::new(200).set_body_json(message);
    }
    let mut start = message.clone();
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    let mut events = vec![json!({"type": "message_start", "message": start})];
    for (i, block) in message["content"].as_array().unwrap().iter().enumerate() {
        let mut open = block.clone();
        if block["type"] == "tool_use" {
            open["input"] = json!({});
        } else {
            open["text"] = json!("");
        }
        events.push(json!({"type": "content_block_start", "index": i, "content_block": open}));
        let delta = if block["type"] == "tool_use" {
            json!({"type": "input_json_delta", "partial_json": block["input"].to_string()})
        } else {
            json!({"type": "text_delta", "text": block["text"]})
        };
        events.push(json!({"type": "content_block_delta", "index": i, "delta": delta}));
        events.push(json!({"type": "content_block_stop", "index": i}));
    }
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": message["stop_reason"]},
                       "usage": {"output_tokens": 5}}));
    events.push(json!({"type": "message_stop"}));
    let text: String =
        events.iter().map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap())).collect();
    ResponseTemplate::new(200).set_body_raw(text.into_bytes(), "text/event-stream")
}

#[tokio::test]
async fn a_computer_turn_routes_member_calls_and_answers_with_the_toolset_name() {
    computer_turn(false).await;
}

#[tokio::test]
async fn a_streamed_computer_turn_keeps_the_toolset_name_of_each_call() {
    computer_turn(true).await;
}

async fn computer_turn(stream: bool) {
    let server = MockServer::start().await;
    let call = json!({"id": "m1", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "left_click", "toolset_name": "computer",
             "input": {"coordinate": [40, 60]}},
            {"type": "tool_use", "id": "toolu_2", "name": "screenshot", "toolset_name": "computer", "input": {}}
        ],
        "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 5}});
    let done = json!({"id": "m2", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
        "content": [{"type": "text", "text": "Settings are open."}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 9, "output_tokens": 4}});
    Mock::given(method("POST")).respond_with(reply(&call, stream)).up_to_n_times(1).mount(&server).await;
    Mock::given(method("POST")).respond_with(reply(&done, stream)).mount(&server).await;

    let desk = Arc::new(Desk::default());
    let toolset = ComputerUse::shared(desk.clone()).build().unwrap();
    let agent = dive_agent::Agent::builder()
        .model(client(&server.uri()))
        .toolset(toolset)
        .model_settings(dive_agent::ModelSettings::default().stream(stream))
        .build()
        .unwrap();
    let response = agent.run("open the settings").await.unwrap();
    assert_eq!(response.output_text(), "Settings are open.");
    let actions = desk.0.lock().unwrap().clone();
    assert_eq!(
        actions.iter().map(|a| a.member).collect::<Vec<_>>(),
        [ComputerMember::LeftClick, ComputerMember::Screenshot]
    );
    assert_eq!(actions[0].input.coordinate, Some([40, 60]));

    let requests = server.received_requests().await.unwrap();
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    assert_eq!(first["tools"].as_array().unwrap().len(), 1, "only the toolset entry: {}", first["tools"]);
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    let results = second["messages"][2]["content"].as_array().unwrap();
    assert_eq!(results[0]["toolset_name"], "computer");
    assert_eq!(results[0]["content"][0]["text"], "Clicked.");
    assert_eq!(results[1]["toolset_name"], "computer");
    assert_eq!(results[1]["content"][0]["type"], "image");
    assert_eq!(
        second["messages"][1]["content"][0]["toolset_name"], "computer",
        "the call replays its toolset"
    );
}
