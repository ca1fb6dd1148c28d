//! Recorded OpenRouter responses with `reasoning_details` (see
//! `tests/fixtures/recorded/README.md`): each detail is a thinking block with its signature,
//! and goes back unmodified on the next request. The expected replay is the next request the
//! recording's own client sent (and OpenRouter answered), not our encoder's output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use dive_core::{
    Content, Llm, Message, ModelRequest, ResponseAccumulator, ThinkingContent, ToolDefinition,
    ToolResultContent,
};
use futures::StreamExt;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn recorded(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded").join(name)).unwrap()
}

fn client(server: &MockServer) -> dive_openrouter::OpenRouter {
    dive_openrouter::builder()
        .api_key("sk-or-test")
        .base_url(format!("{}/api/v1", server.uri()))
        .model("anthropic/claude-sonnet-4")
        .build()
        .unwrap()
}

async fn serve(body: Vec<u8>, content_type: &str) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/api/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, content_type))
        .mount(&server)
        .await;
    server
}

fn weather() -> ToolDefinition {
    ToolDefinition::new(
        "weather",
        "Get weather information for a location",
        json!({"type": "object", "properties": {"location": {"type": "string", "description": "the city"}},
            "required": ["location"]}),
    )
}

fn thinking(r: &dive_core::ModelResponse) -> &ThinkingContent {
    r.content.iter().find_map(|c| if let Content::Thinking(t) = c { Some(t) } else { None }).unwrap()
}

/// The assistant message of the request that follows `turn` and its tool result.
fn next_assistant_message(llm: &dive_openrouter::OpenRouter, turn: Message, call_id: &str) -> Value {
    let history = vec![
        Message::user("What's the weather in Florence, Italy?"),
        turn,
        Message::tool_results(vec![ToolResultContent::text(call_id, "40 C")]),
    ];
    let request =
        ModelRequest::new(history).with_system("You are a helpful assistant").with_tools(vec![weather()]);
    llm.request_body(&request, false).unwrap()["messages"][2].clone()
}

#[tokio::test]
async fn whole_reasoning_details_go_back_as_the_recorded_client_sent_them() {
    // The recorded body starts with OpenRouter's keep-alive whitespace, as it came.
    let server =
        serve(recorded("fantasy-openrouter-claude-sonnet-4-thinking.json"), "application/json").await;
    let llm = client(&server);
    let r = llm
        .generate(ModelRequest::new(vec![Message::user("What's the weather in Florence, Italy?")]))
        .await
        .unwrap();
    let next: Value =
        serde_json::from_slice(&recorded("fantasy-openrouter-claude-sonnet-4-thinking.next-request.json"))
            .unwrap();
    let sent_before = &next["messages"][2];
    let detail = &sent_before["reasoning_details"][0];
    let t = thinking(&r);
    assert_eq!(t.thinking, detail["text"].as_str().unwrap());
    assert_eq!(t.signature.as_deref(), detail["signature"].as_str());
    assert_eq!(
        r.content.iter().filter(|c| c.kind() == "thinking").count(),
        1,
        "`reasoning` repeats the detail"
    );
    let call = r.tool_uses().next().unwrap().clone();
    let ours = next_assistant_message(&llm, r.into_message(), &call.id);
    assert_eq!(ours["reasoning_details"], sent_before["reasoning_details"]);
    assert_eq!(ours["tool_calls"][0]["id"], sent_before["tool_calls"][0]["id"]);
    let args = |m: &Value| {
        serde_json::from_str::<Value>(m["tool_calls"][0]["function"]["arguments"].as_str().unwrap()).unwrap()
    };
    assert_eq!(args(&ours), args(sent_before));
}

#[tokio::test]
async fn streamed_reasoning_details_keep_their_signature_and_go_back_whole() {
    let server =
        serve(recorded("fantasy-openrouter-claude-sonnet-4-thinking-streaming.sse"), "text/event-stream")
            .await;
    let llm = client(&server);
    let mut events = llm
        .stream(ModelRequest::new(vec![Message::user("What's the weather in Florence, Italy?")]))
        .await
        .unwrap();
    let mut acc = ResponseAccumulator::new();
    while let Some(e) = events.next().await {
        acc.add(&e.unwrap()).unwrap();
    }
    assert!(acc.is_complete());
    let r = acc.into_response();
    // The recording's 14 text fragments and its one signature fragment, read off the file.
    let text = "The user is asking for weather information for Florence, Italy. I have access to a weather \
                function that takes a location parameter. The location is clearly specified as \"Florence, \
                Italy\". I have all the required parameters to make this function call.";
    let signature = "EqcDCkgICBACGAIqQDV0Mem0naIq1Zn2wwggk+SBqPlbWaJWd11LLeySu8CMYgep7DpQTvUQOOocIXlZiARV3hK/\
                     KxqO9VNyC5IzEcwSDIyED5Kk4UIqhUCEThoMEGNZ9y48Cjh5+WoBIjACYZhkpAg12/coVhKAuddjvgfzw2bcrQwPzVk\
                     kSItP+LqK0t7y30U2coQGtPB9kDkqjAK6Ev53F38DisbWlZEcodouHMbzxFaGWc4SKckbI6WZZ4C4WGf6rtCmxUBjKGch\
                     AtnC9oloNzbXFglinSxwy4m50gBtYLluM8CqkvlM2EB+T1e9ewmhEC1GeqW3ROY6Yuf9tVRH5EROXLgIptRew/H9eeCvDku\
                     YSKzRBptR+f4xNfbSRarTrNLHagqbMDFCAWfy0/YANrWACEuHpSoShoUQhUHaHGh0W2yANNxDk8IgTzJTMpUp1KiU5iEAPG\
                     Y5afe81MqXINDWr/ldJ/iJ2xbNq36oA6wwHLAjw7qc60R9KU7OfjkhK+pHhqAak+GbTEf2ecl46vn55vQzsBzbzKUwfiAQ2\
                     KBKt23QRcoTGAE=";
    let t = thinking(&r);
    assert_eq!((t.thinking.as_str(), t.signature.as_deref()), (text, Some(signature)));
    assert_eq!(r.content.iter().filter(|c| c.kind() == "thinking").count(), 1);
    let call = r.tool_uses().next().unwrap().clone();
    assert_eq!((call.name.as_str(), &*call.input), ("weather", &json!({"location": "Florence, Italy"})));
    assert_eq!(r.stop_reason, "tool_calls");
    let ours = next_assistant_message(&llm, r.into_message(), &call.id);
    assert_eq!(
        ours["reasoning_details"],
        json!([{"type": "reasoning.text", "text": text, "signature": signature, "format": "anthropic-claude-v1", "index": 0}])
    );
}

/// `reasoning.summary` and `reasoning.encrypted` details (OpenAI models behind OpenRouter):
/// one thinking block each, in order, and both sent back exactly as they came, since
/// OpenRouter asks for `reasoning_details` to be passed back unmodified.
#[tokio::test]
async fn summary_and_encrypted_details_go_back_unmodified() {
    let body = recorded("fantasy-openrouter-gpt-5-thinking.json");
    let response: Value = serde_json::from_slice(&body).unwrap();
    let details = &response["choices"][0]["message"]["reasoning_details"];
    let server = serve(body, "application/json").await;
    let llm = client(&server);
    let r = llm
        .generate(ModelRequest::new(vec![Message::user("What's the weather in Florence, Italy?")]))
        .await
        .unwrap();
    let thinking: Vec<(&str, Option<&str>)> = r
        .content
        .iter()
        .filter_map(|c| {
            if let Content::Thinking(t) = c {
                Some((t.thinking.as_str(), t.signature.as_deref()))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(thinking, [(details[0]["summary"].as_str().unwrap(), None), ("", None)]);
    let call = r.tool_uses().next().unwrap().clone();
    let ours = next_assistant_message(&llm, r.into_message(), &call.id);
    assert_eq!(&ours["reasoning_details"], details);
}
