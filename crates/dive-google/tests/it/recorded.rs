//! Recorded Gemini responses (see `tests/fixtures/recorded/README.md` for where each comes
//! from): streamed function-call arguments and grounding metadata. Expected values are read
//! from the recordings themselves (the argument values in `partialArgs`, the grounding
//! segments' byte offsets and texts), never from this decoder's output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{decode_bytes, decode_chunk_lines, recorded};
use dive_core::{Content, Llm, LlmErrorKind, Message, ModelRequest, ModelResponse, TextContent};
use dive_google::Gemini;
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The JSON chunks of a `.chunks.txt` recording.
fn chunk_lines(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(recorded(name)).unwrap();
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn first_signature(chunks: &[Value]) -> String {
    chunks[0]["candidates"][0]["content"]["parts"][0]["thoughtSignature"].as_str().unwrap().to_owned()
}

#[test]
fn streamed_arguments_become_one_call_each() {
    let name = "vercel-google-stream-tool-call-arguments.chunks.txt";
    let (_, acc, error) = decode_chunk_lines(name);
    assert!(error.is_none(), "{error:?}");
    let r = acc.into_response();
    let calls: Vec<(&str, &Value)> = r.tool_uses().map(|t| (t.name.as_str(), &*t.input)).collect();
    // The recording streams `$.location` = "Boston" + "" and then "San Francisco" + "".
    assert_eq!(
        calls,
        [
            ("getWeather", &json!({"location": "Boston"})),
            ("getWeather", &json!({"location": "San Francisco"}))
        ]
    );
    assert!(r.tool_uses().all(|t| !t.name.is_empty()), "no nameless call reaches the engine");
    assert_eq!(r.content.len(), 2, "the empty `functionCall: {{}}` parts that end each call add no block");
    let signature = first_signature(&chunk_lines(name));
    assert_eq!(r.tool_uses().next().unwrap().metadata["google"]["thought_signature"], signature.as_str());
    assert_eq!(r.stop_reason, "stop");
    // Gemini gave the calls no ids: distinct synthetic ones, never sent back.
    let ids: Vec<_> = r.tool_uses().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["call_dqHOab6xGLzWodAPkPuViA4_0", "call_dqHOab6xGLzWodAPkPuViA4_1"]);
}

#[test]
fn a_call_ended_by_its_last_piece_needs_no_terminal_part() {
    let (_, acc, error) = decode_chunk_lines(
        "vercel-google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt",
    );
    assert!(error.is_none(), "{error:?}");
    let r = acc.into_response();
    let call = r.tool_uses().next().unwrap();
    assert_eq!(r.tool_uses().count(), 1);
    assert_eq!(call.name, "writeItems");
    assert_eq!(
        call.input,
        json!({"operations": [
            {"action": "add", "description": "Fresh red apple", "itemid": "apple_001", "price": 0.5},
            {"action": "add", "description": "Ripe yellow banana", "itemid": "banana_001", "price": 0.3}
        ]})
    );
}

#[test]
fn a_streamed_call_replays_as_one_whole_call() {
    let name = "vercel-google-stream-tool-call-arguments.chunks.txt";
    let (_, acc, _) = decode_chunk_lines(name);
    let turn = acc.into_response().into_message();
    let body = common::offline("gemini-3.5-flash")
        .request_body(&ModelRequest::new(vec![Message::user("Weather in Boston and SF?"), turn]), false)
        .unwrap();
    assert_eq!(
        body["contents"][1]["parts"],
        json!([
            {"functionCall": {"name": "getWeather", "args": {"location": "Boston"}},
             "thoughtSignature": first_signature(&chunk_lines(name))},
            {"functionCall": {"name": "getWeather", "args": {"location": "San Francisco"}}}
        ])
    );
}

#[test]
fn a_nameless_call_with_arguments_is_a_typed_error() {
    // The documented piece shape, with no named part before it.
    let sse = concat!(
        "data: {\"responseId\":\"r\",\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Let me check.\"}]}}]}\r\n\r\n",
        "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.location\",\"stringValue\":\"Oslo\"}]}}]},\"finishReason\":\"STOP\"}]}\r\n\r\n",
    );
    let (events, stream, error) = decode_bytes(sse.as_bytes(), 11);
    let error = error.expect("a nameless call must not decode");
    assert_eq!(error.kind, LlmErrorKind::Decode);
    assert!(error.message.contains("without a function name"), "{}", error.message);
    assert!(!events.iter().any(|e| matches!(
        e,
        dive_core::StreamEvent::ContentBlockStart { content_block, .. } if matches!(**content_block, Content::ToolUse(_))
    )));
    assert_eq!(stream.into_partial_response(false).tool_uses().count(), 0);
}

fn text_block(r: &ModelResponse) -> &TextContent {
    r.content.iter().find_map(|c| if let Content::Text(t) = c { Some(t) } else { None }).unwrap()
}

/// Every support of the recorded `groundingMetadata` is a citation on the answer's text, at
/// the recorded byte offsets, naming the recorded chunk's URL and title.
fn assert_grounded(r: &ModelResponse, grounding: &Value) {
    assert_eq!(&r.metadata["groundingMetadata"], grounding, "the metadata is kept verbatim");
    let text = text_block(r);
    let chunks = grounding["groundingChunks"].as_array().unwrap();
    let mut expected = Vec::new();
    for support in grounding["groundingSupports"].as_array().unwrap() {
        for i in support["groundingChunkIndices"].as_array().unwrap() {
            let chunk = &chunks[i.as_u64().unwrap() as usize]["web"];
            expected.push((
                support["segment"]["text"].as_str().unwrap().to_owned(),
                support["segment"]["startIndex"].as_u64().unwrap(),
                support["segment"]["endIndex"].as_u64().unwrap(),
                chunk["uri"].as_str().unwrap().to_owned(),
                chunk["title"].as_str().unwrap().to_owned(),
            ));
        }
    }
    let got: Vec<_> = text
        .citations
        .iter()
        .map(|c| {
            assert_eq!(c.kind, "google_grounding");
            (
                c.cited_text.clone().unwrap(),
                c.fields["start_index"].as_u64().unwrap(),
                c.fields["end_index"].as_u64().unwrap(),
                c.fields["url"].as_str().unwrap().to_owned(),
                c.fields["title"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(got, expected);
    for (cited, start, end, _, _) in &got {
        assert_eq!(&text.text.as_bytes()[*start as usize..*end as usize], cited.as_bytes());
    }
}

#[test]
fn streamed_grounding_metadata_is_kept_and_cites_the_text() {
    let (_, acc, error) = common::decode_bytes(
        &std::fs::read(recorded("pydantic-ai-google-web-search-stream.sse")).unwrap(),
        37,
    );
    assert!(error.is_none(), "{error:?}");
    let r = acc.into_response();
    let sse = std::fs::read_to_string(recorded("pydantic-ai-google-web-search-stream.sse")).unwrap();
    let last: Value = serde_json::from_str(sse.trim_end().rsplit("data: ").next().unwrap()).unwrap();
    let grounding = &last["candidates"][0]["groundingMetadata"];
    assert_eq!(grounding["webSearchQueries"], json!(["weather in San Francisco today"]));
    assert_grounded(&r, grounding);
    assert_eq!(text_block(&r).citations.len(), 11);
}

#[tokio::test]
async fn whole_grounded_responses_cite_by_byte_offsets() {
    let recorded_body: Value =
        serde_json::from_slice(&std::fs::read(recorded("pydantic-ai-google-web-search.json")).unwrap())
            .unwrap();
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(&recorded_body))
        .mount(&server)
        .await;
    let llm = Gemini::builder().api_key("AIza-recorded").base_url(server.uri()).build().unwrap();
    let r = llm.generate(ModelRequest::new(vec![Message::user("Weather in SF today?")])).await.unwrap();
    let grounding = &recorded_body["candidates"][0]["groundingMetadata"];
    assert_grounded(&r, grounding);
    // The text holds `°` (two bytes) before the first segment: byte and char offsets differ.
    let first = &text_block(&r).citations[0];
    assert_eq!(
        (first.fields["start_index"].as_u64(), first.fields["end_index"].as_u64()),
        (Some(426), Some(486))
    );
}

#[test]
fn a_stream_cut_inside_a_streamed_call_keeps_no_half_call() {
    // The first three recorded chunks: the call started, `$.location` still streaming.
    let text =
        std::fs::read_to_string(recorded("vercel-google-stream-tool-call-arguments.chunks.txt")).unwrap();
    let sse: String = text.lines().take(3).map(|l| format!("data: {l}\r\n\r\n")).collect();
    let (_, stream, error) = decode_bytes(sse.as_bytes(), 29);
    let error = error.expect("a stream without a finish reason is an error");
    assert_eq!(error.kind, LlmErrorKind::StreamInterrupted);
    let kept = stream.into_partial_response(false);
    assert_eq!(kept.tool_uses().count(), 0, "{kept:?}");
}
