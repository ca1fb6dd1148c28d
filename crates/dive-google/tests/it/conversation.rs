//! A multi-turn tool-calling conversation with thinking, against a local server: every turn
//! the model gave (streamed or not) goes back with each thought signature on the part it
//! came with, parallel calls are answered by name in call order, and the caller's history is
//! never modified.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dive_core::{
    Content, Llm, Message, ModelRequest, Reasoning, ReasoningEffort, ResponseAccumulator, StopKind,
    ToolDefinition, ToolResultContent,
};
use dive_google::Gemini;
use futures::StreamExt;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const TURN1: &str = include_str!("../fixtures/thinking_parallel_calls.sse");
const TURN3: &str = include_str!("../fixtures/text_trailing_signature.sse");

fn turn2() -> Value {
    json!({
        "candidates": [{"content": {"role": "model", "parts": [
            {"text": "Paris failed; Tokyo is known.", "thought": true, "thoughtSignature": "VHVybjJUaG91Z2h0"},
            {"text": "Tokyo is 22 °C. Paris is unavailable; "},
            {"text": "retry later.", "thoughtSignature": "VHVybjJUZXh0"}
        ]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1500, "candidatesTokenCount": 20, "thoughtsTokenCount": 15, "totalTokenCount": 1535},
        "modelVersion": "gemini-3.5-flash", "responseId": "resp-T2"
    })
}

fn weather() -> ToolDefinition {
    ToolDefinition::new(
        "get_weather",
        "Weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}, "required": ["city"]}),
    )
}

fn request(history: &[Message]) -> ModelRequest {
    ModelRequest::new(history.to_vec())
        .with_tools(vec![weather()])
        .with_reasoning(Reasoning::effort(ReasoningEffort::High))
}

async fn stream_turn(llm: &Gemini, history: &[Message]) -> Message {
    let mut acc = ResponseAccumulator::new();
    let mut events = llm.stream(request(history)).await.unwrap();
    while let Some(e) = events.next().await {
        acc.add(&e.unwrap()).unwrap();
    }
    acc.into_response().into_message()
}

#[tokio::test]
async fn thought_signatures_survive_a_multi_turn_tool_conversation() {
    let server = MockServer::start().await;
    let sse =
        |body: &str| ResponseTemplate::new(200).set_body_raw(body.as_bytes().to_vec(), "text/event-stream");
    for (route, response) in [
        (":streamGenerateContent", sse(TURN1)),
        (":generateContent", ResponseTemplate::new(200).set_body_json(turn2())),
        (":streamGenerateContent", sse(TURN3)),
        (":generateContent", ResponseTemplate::new(200).set_body_json(turn2())),
    ] {
        Mock::given(method("POST"))
            .and(path(format!("/v1beta/models/gemini-3.5-flash{route}")))
            .respond_with(response)
            .up_to_n_times(1)
            .mount(&server)
            .await;
    }
    let llm = Gemini::builder().api_key("AIza-conversation").base_url(server.uri()).build().unwrap();

    // Turn 1 (streamed): thinking, then two parallel calls.
    let mut history = vec![Message::user("Weather in Paris and Tokyo?")];
    let turn1 = stream_turn(&llm, &history).await;
    let calls: Vec<_> = turn1.tool_uses().cloned().collect();
    assert_eq!(calls.len(), 2);
    assert_ne!(calls[0].id, calls[1].id, "synthetic ids are distinct");
    history.push(turn1);
    // Results out of order, one an error.
    history.push(Message::tool_results(vec![
        ToolResultContent::text(calls[1].id.clone(), "22 °C"),
        ToolResultContent::error(calls[0].id.clone(), "service down"),
    ]));

    // Turn 2 (not streamed): signed thinking and signed text.
    let snapshot = history.clone();
    let turn2 = llm.generate(request(&history)).await.unwrap();
    assert_eq!(history, snapshot, "the caller's history is never modified");
    assert_eq!(turn2.stop_kind(), StopKind::Finished);
    assert_eq!(turn2.usage.reasoning_tokens, 15);
    history.push(turn2.into_message());

    // Turn 3 (streamed): the user follows up; the text's signature arrives in an empty part.
    history.push(Message::user("And tomorrow?"));
    let turn3 = stream_turn(&llm, &history).await;
    history.push(turn3);
    history.push(Message::user("Thanks."));
    llm.generate(request(&history)).await.unwrap();

    let bodies: Vec<Value> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(bodies.len(), 4);
    let last = &bodies[3]["contents"];
    let expected = json!([
        {"role": "user", "parts": [{"text": "Weather in Paris and Tokyo?"}]},
        {"role": "model", "parts": [
            {"text": "**Planning** I need the weather in two cities. Both calls can run at once.", "thought": true,
             "thoughtSignature": "VGhvdWdodFNpZ0E="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris", "unit": "celsius"}}, "thoughtSignature": "Q2FsbFNpZ0I="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Tokyo", "unit": "celsius"}}}
        ]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "get_weather", "response": {"error": "service down"}}},
            {"functionResponse": {"name": "get_weather", "response": {"output": "22 °C"}}}
        ]},
        {"role": "model", "parts": [
            {"text": "Paris failed; Tokyo is known.", "thought": true, "thoughtSignature": "VHVybjJUaG91Z2h0"},
            {"text": "Tokyo is 22 °C. Paris is unavailable; "},
            {"text": "retry later.", "thoughtSignature": "VHVybjJUZXh0"}
        ]},
        {"role": "user", "parts": [{"text": "And tomorrow?"}]},
        {"role": "model", "parts": [
            {"text": "Paris is 18 °C and sunny; Tokyo is 22 °C — 東京は晴れ.", "thoughtSignature": "VGV4dFNpZ0M="}
        ]},
        {"role": "user", "parts": [{"text": "Thanks."}]}
    ]);
    assert_eq!(last, &expected);
    // Every earlier request is a prefix of the last one: nothing is rewritten between turns.
    for body in &bodies[..3] {
        let n = body["contents"].as_array().unwrap().len();
        assert_eq!(body["contents"].as_array().unwrap()[..], last.as_array().unwrap()[..n]);
        assert_eq!(
            body["generationConfig"]["thinkingConfig"],
            json!({"includeThoughts": true, "thinkingLevel": "HIGH"})
        );
    }
}

#[tokio::test]
async fn a_non_streamed_turn_replays_part_for_part() {
    let parts = json!([
        {"text": "think", "thought": true, "thoughtSignature": "QUFB"},
        {"text": "Calling both."},
        {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}, "id": "fc-1"}, "thoughtSignature": "QkJC"},
        {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}, "id": "fc-2"}},
        {"executableCode": {"language": "PYTHON", "code": "print(2)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "2"}}
    ]);
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}], "responseId": "r9"})))
        .mount(&server)
        .await;
    let llm = Gemini::builder().api_key("AIza-replay").base_url(server.uri()).build().unwrap();
    let response = llm.generate(request(&[Message::user("go")])).await.unwrap();
    let ids: Vec<_> = response.tool_uses().map(|t| t.id.clone()).collect();
    assert_eq!(ids, ["fc-1", "fc-2"], "Gemini's own call ids are kept");
    assert!(matches!(response.content[4], Content::Unknown(_)));
    let history = vec![
        Message::user("go"),
        response.into_message(),
        Message::tool_results(vec![
            ToolResultContent::text("fc-2", "r"),
            ToolResultContent::text("fc-1", "o"),
        ]),
    ];
    let body = llm.request_body(&request(&history), false).unwrap();
    assert_eq!(body["contents"][1]["parts"], parts, "the model turn goes back exactly as it came");
    assert_eq!(
        body["contents"][2]["parts"],
        json!([
            {"functionResponse": {"name": "get_weather", "response": {"output": "o"}, "id": "fc-1"}},
            {"functionResponse": {"name": "get_weather", "response": {"output": "r"}, "id": "fc-2"}}
        ])
    );
}
