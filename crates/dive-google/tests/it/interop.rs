//! Interop with the official `google-genai` Python SDK: every `contents` item, `tools`,
//! `toolConfig` and `generationConfig` we send is valid for its types (unknown keys
//! rejected, strict types, base64 checked), and the SSE fixtures decode to the same model
//! turn the SDK's chat records.
//!
//! Needs the pinned `google-genai` SDK (`crates/dive-test/interop/requirements.txt`, checked by
//! `dive_test::interop`; `cargo xtask ci` installs it into `target/interop-venv` when missing).
//! Without it the tests FAIL; `DIVE_SKIP_PYTHON_INTEROP=1` skips them, outside CI only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Command;

use common::{decode_fixture, fixture, interop_dir, offline};
use dive_core::{
    Content, DocumentContent, FileContent, ImageContent, LlmErrorKind, MediaSource, Message, ModelRequest,
    Reasoning, ReasoningEffort, Reminder, ResponseFormat, Role, ThinkingContent, ThinkingDisplay,
    ThinkingMode, ToolChoice, ToolDefinition, ToolResultContent,
};
use dive_google::{GeminiOptions, SafetySetting};
use serde_json::{Value, json};

/// The official SDK these tests check against (its Python is found by `dive_test::interop::python`).
const SDK: &str = "google-genai";

const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn weather_tool() -> ToolDefinition {
    ToolDefinition::new(
        "get_weather",
        "Current weather in a city.",
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "unit": {"oneOf": [{"const": "celsius"}, {"const": "fahrenheit"}]},
                "days": {"type": ["integer", "null"], "exclusiveMinimum": 0, "maximum": 7},
                "at": {"$ref": "#/definitions/Time"}
            },
            "required": ["city"],
            "additionalProperties": false,
            "definitions": {"Time": {"type": "string", "format": "date-time"}}
        }),
    )
}

fn no_args_tool() -> ToolDefinition {
    ToolDefinition::new("now", "The current time.", json!({"type": "object", "properties": {}}))
}

fn assistant(blocks: Vec<Content>) -> Message {
    Message::new(Role::Assistant, blocks)
}

/// A conversation with parallel calls, an error result and an image in a result.
fn tool_history() -> Vec<Message> {
    vec![
        Message::user("Weather in Paris and Tokyo, with a map?"),
        assistant(vec![
            Content::tool_use("call_r_0", "get_weather", json!({"city": "Paris"})),
            Content::tool_use("call_r_1", "get_weather", json!({"city": "Tokyo"})),
        ]),
        // Results in the opposite order of the calls: they must be sent in call order.
        Message::new(
            Role::User,
            vec![
                Content::ToolResult(ToolResultContent::error("call_r_1", "service down")),
                Content::ToolResult(ToolResultContent::new(
                    "call_r_0",
                    vec![Content::text("18 °C"), Content::image(MediaSource::base64("image/png", PNG))],
                )),
                Content::text("Also, is it a good day for a walk?"),
            ],
        ),
    ]
}

/// (name, model, request) for every case of the matrix.
fn matrix() -> Vec<(&'static str, &'static str, ModelRequest)> {
    let flash3 = "gemini-3.5-flash";
    let flash25 = "gemini-2.5-flash";
    let mut cases = Vec::new();

    let mut r = ModelRequest::new(vec![
        Message::user("Count to 3"),
        Message::assistant("1, 2"),
        Message::user("go on"),
    ])
    .with_system("Be brief.")
    .with_max_tokens(256)
    .with_temperature(0.2);
    r.top_p = Some(0.9);
    r.presence_penalty = Some(0.1);
    r.frequency_penalty = Some(0.2);
    r.stop_sequences = vec!["END".into()];
    cases.push(("text_and_sampling", flash3, r));

    for (name, choice) in [
        ("tools_default", None),
        ("tools_auto", Some(ToolChoice::Auto)),
        ("tools_any", Some(ToolChoice::Any)),
        ("tools_none", Some(ToolChoice::None)),
        ("tools_named", Some(ToolChoice::Tool { name: "get_weather".into() })),
    ] {
        let mut r = ModelRequest::new(vec![Message::user("Weather?")])
            .with_tools(vec![weather_tool(), no_args_tool()]);
        r.tool_choice = choice;
        cases.push((name, flash3, r));
    }

    cases.push((
        "tool_results_multimodal",
        flash3,
        ModelRequest::new(tool_history()).with_tools(vec![weather_tool()]),
    ));
    cases.push((
        "tool_results_lifted_media",
        flash25,
        ModelRequest::new(tool_history()).with_tools(vec![weather_tool()]),
    ));
    let mut unanswered = tool_history();
    unanswered.pop();
    cases.push(("unanswered_tool_calls", flash3, ModelRequest::new(unanswered)));

    let media = Message::new(
        Role::User,
        vec![
            Content::image(MediaSource::base64("image/png", PNG)),
            Content::Image(ImageContent::new(MediaSource::url("https://example.com/cat.jpg"))),
            Content::image(MediaSource::file("files/img123")),
            Content::Document(
                DocumentContent::new(MediaSource::base64("application/pdf", "JVBERi0xLjQK"))
                    .with_title("Spec"),
            ),
            Content::document(MediaSource::url("gs://bucket/paper.pdf")),
            Content::Document(
                DocumentContent::new(MediaSource::Text {
                    media_type: "text/plain".into(),
                    data: "plain notes".into(),
                })
                .with_title("Notes"),
            ),
            Content::File(
                serde_json::from_value::<FileContent>(
                    json!({"file_id": "files/vid9", "media_type": "video/mp4"}),
                )
                .unwrap(),
            ),
            Content::text("Summarise all of these."),
        ],
    );
    cases.push(("media", flash3, ModelRequest::new(vec![media])));

    let hi = || vec![Message::user("Think about it.")];
    for (name, model, reasoning) in [
        ("thinking_level", flash3, Reasoning::effort(ReasoningEffort::High)),
        ("thinking_level_xhigh", "gemini-3.7-ultra", Reasoning::effort(ReasoningEffort::Xhigh)),
        ("thinking_budget", flash25, Reasoning::budget(4096)),
        ("thinking_budget_on_level_model", flash3, Reasoning::budget(2048)),
        ("thinking_dynamic", flash25, Reasoning::adaptive()),
        ("thinking_effort_as_budget", "gemini-2.5-pro", Reasoning::effort(ReasoningEffort::Low)),
    ] {
        cases.push((name, model, ModelRequest::new(hi()).with_reasoning(reasoning)));
    }
    let mut off = Reasoning::default();
    off.thinking = Some(ThinkingMode::Disabled);
    cases.push(("thinking_disabled", flash25, ModelRequest::new(hi()).with_reasoning(off.clone())));
    cases.push(("thinking_disabled_level", flash3, ModelRequest::new(hi()).with_reasoning(off)));
    let mut hidden = Reasoning::effort(ReasoningEffort::Low);
    hidden.display = Some(ThinkingDisplay::Omitted);
    cases.push(("thinking_hidden", flash3, ModelRequest::new(hi()).with_reasoning(hidden)));

    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}, "tags": {"type": "array",
        "items": {"type": "string"}}}, "required": ["name"], "additionalProperties": false});
    cases.push((
        "structured_output",
        flash3,
        ModelRequest::new(hi()).with_response_format(
            serde_json::from_value(json!({"type": "json_schema", "name": "person", "schema": schema}))
                .unwrap(),
        ),
    ));
    cases.push((
        "json_object",
        flash3,
        ModelRequest::new(hi()).with_response_format(ResponseFormat::JsonObject),
    ));

    let reminders = vec![
        Message::user("Hello"),
        Reminder::new("todo-list", "1. reply").unwrap().into_message(),
        Message::new(
            Role::User,
            vec![
                Content::text("And then?"),
                Content::Reminder(Reminder::operator("policy", "Be kind.").unwrap()),
            ],
        ),
    ];
    cases.push(("reminders", flash3, ModelRequest::new(reminders)));

    // Another provider's history: signed Anthropic thinking and server tools are dropped.
    let foreign = vec![
        Message::user("Search it"),
        assistant(vec![
            Content::Thinking(ThinkingContent::new("hmm", Some("anthropic-sig".into()))),
            serde_json::from_value(json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}})).unwrap(),
            Content::text("Found it."),
        ]),
        Message::user("Thanks"),
    ];
    cases.push(("foreign_history", flash3, ModelRequest::new(foreign)));

    let mut r = ModelRequest::new(hi());
    r.provider_options.insert(
        "safetySettings".into(),
        json!([{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "threshold": "BLOCK_ONLY_HIGH"}]),
    );
    r.provider_options.insert("generationConfig".into(), json!({"seed": 7, "candidateCount": 1}));
    cases.push(("provider_options", flash3, r));

    // Streamed function-call arguments, turned on through provider options.
    let mut r = ModelRequest::new(vec![Message::user("Weather?")]).with_tools(vec![weather_tool()]);
    r.tool_choice = Some(ToolChoice::Any);
    r.provider_options
        .insert("toolConfig".into(), json!({"functionCallingConfig": {"streamFunctionCallArguments": true}}));
    cases.push(("stream_function_call_arguments", flash3, r));

    // The same fields through the typed Gemini options.
    let r = ModelRequest::new(vec![Message::user("Weather?")])
        .with_tools(vec![weather_tool()])
        .with_tool_choice(ToolChoice::Any)
        .with_option(
            GeminiOptions::default()
                .with_safety_setting(SafetySetting::new("HARM_CATEGORY_DANGEROUS_CONTENT", "BLOCK_ONLY_HIGH"))
                .with_seed(7)
                .with_stream_function_call_arguments(true)
                .with_cached_content("cachedContents/abc123"),
        );
    cases.push(("gemini_options", flash3, r));

    // The streamed turn of a fixture, replayed with its signatures, then answered.
    let (_, acc, error) = decode_fixture("thinking_parallel_calls.sse");
    assert!(error.is_none());
    let turn = acc.into_response().into_message();
    let ids: Vec<String> = turn.tool_uses().map(|t| t.id.clone()).collect();
    let replay = vec![
        Message::user("Weather in Paris and Tokyo?"),
        turn,
        Message::tool_results(ids.iter().map(|id| ToolResultContent::text(id.clone(), "20 °C")).collect()),
    ];
    cases.push(("replay_streamed_turn", flash3, ModelRequest::new(replay).with_tools(vec![weather_tool()])));

    // A recorded turn whose call arguments were streamed (`partialArgs`), replayed and answered.
    let (_, acc, error) = common::decode_chunk_lines("vercel-google-stream-tool-call-arguments.chunks.txt");
    assert!(error.is_none());
    let turn = acc.into_response().into_message();
    let ids: Vec<String> = turn.tool_uses().map(|t| t.id.clone()).collect();
    let replay = vec![
        Message::user("Weather in Boston and San Francisco?"),
        turn,
        Message::tool_results(ids.iter().map(|id| ToolResultContent::text(id.clone(), "20 °C")).collect()),
    ];
    cases.push(("replay_streamed_arguments", flash3, ModelRequest::new(replay)));
    cases
}

#[test]
fn request_bodies_are_valid_for_the_official_sdk() {
    let dir = tempfile::tempdir().unwrap();
    let mut written = 0;
    for (name, model, request) in matrix() {
        let body = offline(model).request_body(&request, false).unwrap();
        std::fs::write(dir.path().join(format!("{name}.json")), serde_json::to_vec_pretty(&body).unwrap())
            .unwrap();
        written += 1;
    }
    let Some(py) = dive_test::interop::python(SDK) else { return };
    dive_test::interop::assert_bodies_valid(
        &py,
        &interop_dir().join("validate_requests.py"),
        dir.path(),
        written,
    );
}

#[test]
fn bodies_carry_what_each_case_asks_for() {
    let bodies: std::collections::HashMap<&str, Value> =
        matrix().into_iter().map(|(n, m, r)| (n, offline(m).request_body(&r, false).unwrap())).collect();
    let b = &bodies["text_and_sampling"];
    assert_eq!(b["systemInstruction"], json!({"parts": [{"text": "Be brief."}]}));
    assert_eq!(b["contents"][1]["role"], "model");
    assert_eq!(b["generationConfig"]["maxOutputTokens"], 256);
    assert_eq!(b["generationConfig"]["stopSequences"], json!(["END"]));

    let tools = &bodies["tools_default"]["tools"][0]["functionDeclarations"];
    assert_eq!(
        tools[0]["parametersJsonSchema"]["properties"]["unit"],
        json!({"anyOf": [{"enum": ["celsius"]}, {"enum": ["fahrenheit"]}]})
    );
    assert_eq!(
        tools[0]["parametersJsonSchema"]["properties"]["days"],
        json!({"type": ["integer", "null"], "minimum": 1, "maximum": 7})
    );
    assert_eq!(tools[0]["parametersJsonSchema"]["properties"]["at"], json!({"$ref": "#/$defs/Time"}));
    assert!(tools[1].get("parametersJsonSchema").is_none(), "a function without parameters sends no schema");
    assert!(bodies["tools_default"].get("toolConfig").is_none());
    assert_eq!(bodies["tools_any"]["toolConfig"], json!({"functionCallingConfig": {"mode": "ANY"}}));
    assert_eq!(bodies["tools_none"]["toolConfig"], json!({"functionCallingConfig": {"mode": "NONE"}}));
    assert_eq!(
        bodies["tools_named"]["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["get_weather"]}})
    );

    // Results in call order, named after their calls, media inside (Gemini 3) or lifted (2.5).
    let c = &bodies["tool_results_multimodal"]["contents"];
    assert_eq!(c[2]["parts"][0]["functionResponse"]["response"], json!({"output": "18 °C"}));
    assert_eq!(c[2]["parts"][0]["functionResponse"]["name"], "get_weather");
    assert_eq!(c[2]["parts"][0]["functionResponse"]["parts"][0]["inlineData"]["mimeType"], "image/png");
    assert_eq!(c[2]["parts"][1]["functionResponse"]["response"], json!({"error": "service down"}));
    assert_eq!(c[3], json!({"role": "user", "parts": [{"text": "Also, is it a good day for a walk?"}]}));
    let c = &bodies["tool_results_lifted_media"]["contents"];
    assert!(c[2]["parts"][0]["functionResponse"].get("parts").is_none());
    assert_eq!(c[3]["parts"][1]["inlineData"]["mimeType"], "image/png");
    assert_eq!(bodies["unanswered_tool_calls"]["contents"][2]["parts"].as_array().unwrap().len(), 2);

    let parts = &bodies["media"]["contents"][0]["parts"];
    assert_eq!(
        parts[1]["fileData"],
        json!({"fileUri": "https://example.com/cat.jpg", "mimeType": "image/jpeg"})
    );
    assert_eq!(parts[2]["fileData"]["fileUri"], "http://127.0.0.1:9/v1beta/files/img123");
    assert_eq!(parts[3]["inlineData"]["mimeType"], "application/pdf");
    assert_eq!(
        parts[4]["fileData"],
        json!({"fileUri": "gs://bucket/paper.pdf", "mimeType": "application/pdf"})
    );
    assert_eq!(parts[5]["text"], "Notes\n\nplain notes");
    assert_eq!(parts[6]["fileData"]["mimeType"], "video/mp4");

    let thinking = |n: &str| bodies[n]["generationConfig"]["thinkingConfig"].clone();
    assert_eq!(thinking("thinking_level"), json!({"includeThoughts": true, "thinkingLevel": "HIGH"}));
    assert_eq!(thinking("thinking_level_xhigh")["thinkingLevel"], "XHIGH");
    assert_eq!(thinking("thinking_budget"), json!({"includeThoughts": true, "thinkingBudget": 4096}));
    assert_eq!(thinking("thinking_dynamic")["thinkingBudget"], -1);
    assert_eq!(thinking("thinking_effort_as_budget")["thinkingBudget"], 1024);
    assert_eq!(thinking("thinking_disabled")["thinkingBudget"], 0);
    assert_eq!(thinking("thinking_disabled_level")["thinkingLevel"], "MINIMAL");
    assert_eq!(thinking("thinking_hidden")["includeThoughts"], false);

    assert_eq!(bodies["structured_output"]["generationConfig"]["responseMimeType"], "application/json");
    assert_eq!(
        bodies["structured_output"]["generationConfig"]["responseJsonSchema"]["required"],
        json!(["name"])
    );

    let c = &bodies["reminders"]["contents"];
    let all_text = c.to_string();
    assert!(all_text.contains("<system-reminder name=\\\"todo-list\\\">"), "{all_text}");
    assert!(all_text.contains("<system-reminder name=\\\"policy\\\">"), "{all_text}");
    assert!(c.as_array().unwrap().iter().all(|m| m["role"] == "user"));

    assert_eq!(
        bodies["foreign_history"]["contents"][1],
        json!({"role": "model", "parts": [{"text": "Found it."}]})
    );
    assert_eq!(bodies["provider_options"]["generationConfig"]["seed"], 7);
    assert_eq!(bodies["provider_options"]["generationConfig"]["maxOutputTokens"], 32_768);
    assert_eq!(
        bodies["stream_function_call_arguments"]["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "streamFunctionCallArguments": true}})
    );
    let typed = &bodies["gemini_options"];
    assert_eq!(
        typed["safetySettings"],
        json!([{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "threshold": "BLOCK_ONLY_HIGH"}])
    );
    assert_eq!(typed["generationConfig"]["seed"], 7);
    assert_eq!(typed["toolConfig"], bodies["stream_function_call_arguments"]["toolConfig"]);
    assert_eq!(typed["cachedContent"], "cachedContents/abc123");

    // The streamed turn goes back with every signature on the part it came with.
    let turn = &bodies["replay_streamed_turn"]["contents"][1];
    assert_eq!(
        turn,
        &json!({"role": "model", "parts": [
            {"text": "**Planning** I need the weather in two cities. Both calls can run at once.", "thought": true,
             "thoughtSignature": "VGhvdWdodFNpZ0E="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris", "unit": "celsius"}}, "thoughtSignature": "Q2FsbFNpZ0I="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Tokyo", "unit": "celsius"}}}
        ]})
    );
    let results = &bodies["replay_streamed_turn"]["contents"][2]["parts"];
    assert_eq!(
        results[0]["functionResponse"],
        json!({"name": "get_weather", "response": {"output": "20 °C"}})
    );
    assert!(
        !bodies["replay_streamed_turn"].to_string().contains("call_resp-Abc1"),
        "synthetic ids stay local"
    );
}

#[test]
fn unsupported_schema_keywords_are_a_typed_error() {
    let tool = ToolDefinition::new(
        "pick",
        "",
        json!({"type": "object", "properties": {"x": {"not": {"type": "null"}}}}),
    );
    let err = offline("gemini-3.5-flash")
        .request_body(&ModelRequest::new(vec![Message::user("hi")]).with_tools(vec![tool]), false)
        .unwrap_err();
    assert_eq!(err.kind, LlmErrorKind::InvalidRequest);
    assert!(err.message.contains("tool `pick` uses `not` at `/properties/x`"), "{}", err.message);
    let mut source: Option<&(dyn std::error::Error + 'static)> =
        err.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static));
    let mut found = None;
    while let Some(s) = source {
        if let Some(e) = s.downcast_ref::<dive_google::SchemaError>() {
            found = Some(e.clone());
        }
        source = s.source();
    }
    assert_eq!(found.unwrap().keyword, "not");
}

/// Our blocks in the grouping `sdk_stream.py` applies to the SDK's parts.
fn our_blocks(content: &[Content]) -> Vec<Value> {
    content
        .iter()
        .map(|c| {
            let (mut block, meta) = match c {
                Content::Text(t) => (json!({"text": t.text, "thought": false}), &t.metadata),
                Content::Thinking(t) => (json!({"text": t.thinking, "thought": true}), &t.metadata),
                Content::ToolUse(t) => (json!({"call": {"name": t.name, "args": t.input}}), &t.metadata),
                other => {
                    (json!({"other": serde_json::to_value(other).unwrap()["part"]}), &serde_json::Map::new())
                }
            };
            if let Some(sig) = meta.get("google").and_then(|g| g.get("thought_signature")) {
                block["sig"] = sig.clone();
            }
            block
        })
        .collect()
}

fn assert_same_turn(name: &str) {
    let (_, acc, error) = decode_fixture(name);
    assert!(error.is_none(), "{name}: {error:?}");
    assert!(acc.is_complete());
    let ours = acc.into_response();
    let Some(py) = dive_test::interop::python(SDK) else { return };
    let out = Command::new(py).arg(interop_dir().join("sdk_stream.py")).arg(fixture(name)).output().unwrap();
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let sdk: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sdk["problems"], json!([]), "{name}: fixture events invalid for the SDK");
    assert_eq!(sdk["recorded_valid"], true, "{name}");
    assert!(sdk["path"].as_str().unwrap().ends_with(":streamGenerateContent?alt=sse"));
    assert_eq!(Value::Array(our_blocks(&ours.content)), sdk["blocks"], "{name}: blocks differ");
    assert_eq!(ours.stop_reason, sdk["finish_reason"].as_str().unwrap().to_lowercase(), "{name}");
    let u = &sdk["usage"];
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    assert_eq!(ours.usage.cache_read_input_tokens, n("cachedContentTokenCount"), "{name}");
    assert_eq!(ours.usage.input_tokens + ours.usage.cache_read_input_tokens, n("promptTokenCount"), "{name}");
    assert_eq!(ours.usage.output_tokens, n("candidatesTokenCount") + n("thoughtsTokenCount"), "{name}");
    assert_eq!(ours.usage.reasoning_tokens, n("thoughtsTokenCount"), "{name}");
    assert_eq!(ours.usage.total_tokens(), n("totalTokenCount"), "{name}");
}

#[test]
fn thinking_and_parallel_calls_stream_matches_the_sdk() {
    assert_same_turn("thinking_parallel_calls.sse");
}

#[test]
fn trailing_signature_stream_matches_the_sdk() {
    assert_same_turn("text_trailing_signature.sse");
}

#[test]
fn safety_stop_stream_matches_the_sdk() {
    assert_same_turn("safety_stop.sse");
    let (_, acc, _) = decode_fixture("safety_stop.sse");
    let r = acc.into_response();
    assert_eq!(r.stop_kind(), dive_core::StopKind::Refusal);
    assert_eq!(r.stop_details.unwrap()["safetyRatings"][0]["category"], "HARM_CATEGORY_DANGEROUS_CONTENT");
}
