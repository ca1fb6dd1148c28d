//! Interop with the official `openai` Python SDK: the request bodies we send (Responses and
//! Chat Completions, streaming and not, OpenAI and a compatible dialect) are valid
//! `*CreateParams` with unknown keys rejected, and the SSE fixtures decode to the same message
//! the SDK accumulates.
//!
//! Needs the pinned `openai` SDK (`crates/dive-test/interop/requirements.txt`, checked by
//! `dive_test::interop`; `cargo xtask ci` installs it into `target/interop-venv` when missing).
//! Without it the tests FAIL; `DIVE_SKIP_PYTHON_INTEROP=1` skips them, outside CI only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Command;

use common::{chat, decode_fixture, decode_fixture_ok, interop_dir, responses};
use dive_core::{
    Content, DocumentContent, FileContent, ImageContent, McpServerConfig, MediaSource, Message, ModelRequest,
    ModelResponse, Reasoning, ReasoningEffort, ReasoningSummary, Reminder, ResponseFormat, Role, ToolChoice,
    ToolDefinition, ToolResultContent,
};
use serde_json::{Map, Value, json};

const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn calc_tool() -> ToolDefinition {
    ToolDefinition::new(
        "calc",
        "Evaluates arithmetic.",
        json!({"type": "object", "properties": {"expr": {"type": "string"}, "precision": {"type": "integer"}},
            "required": ["expr"]}),
    )
}

fn params(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn assistant(blocks: Vec<Content>) -> Message {
    Message::new(Role::Assistant, blocks)
}

/// An assistant turn as decoded from the Responses fixture with reasoning and parallel calls.
fn replayed_history() -> Vec<Message> {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let response = rt.block_on(decode_fixture_ok("responses_reasoning_tools.sse"));
    vec![
        Message::user("Weather in Paris and Oslo?"),
        response.into_message(),
        Message::tool_results(vec![
            ToolResultContent::text("call_Paris01", "14°C, cloudy"),
            ToolResultContent::error("call_Oslo02", "station offline"),
        ]),
    ]
}

/// (name, model, request) for every case of the matrix.
fn matrix() -> Vec<(&'static str, &'static str, ModelRequest)> {
    let mut cases = Vec::new();
    let gpt = "gpt-5.5";
    let gpt41 = "gpt-4.1";

    cases.push(("text", gpt, ModelRequest::new(vec![Message::user("Hello")])));

    let mut r = ModelRequest::new(vec![
        Message::user("Count to 3"),
        Message::assistant("1, 2"),
        Message::user("go on"),
    ])
    .with_system("Be brief.")
    .with_max_tokens(512)
    .with_temperature(0.2);
    r.top_p = Some(0.9);
    r.stop_sequences = vec!["END".into()];
    r.presence_penalty = Some(0.1);
    cases.push(("system_sampling_stops", gpt41, r));

    for (name, choice, parallel) in [
        ("tools_auto_serial", Some(ToolChoice::Auto), Some(false)),
        ("tools_any", Some(ToolChoice::Any), None),
        ("tools_named", Some(ToolChoice::Tool { name: "calc".into() }), Some(true)),
        ("tools_none", Some(ToolChoice::None), None),
    ] {
        let mut r = ModelRequest::new(vec![Message::user("2+2?")]).with_tools(vec![calc_tool()]);
        r.tool_choice = choice;
        r.parallel_tool_calls = parallel;
        cases.push((name, gpt, r));
    }
    let mut strict = calc_tool();
    strict.strict = Some(true);
    cases.push(("strict_tool", gpt, ModelRequest::new(vec![Message::user("2+2?")]).with_tools(vec![strict])));

    let history = vec![
        Message::user("2+2 and a picture?"),
        assistant(vec![
            Content::text("Computing."),
            Content::tool_use("call_1", "calc", json!({"expr": "2+2"})),
            Content::tool_use("call_2", "calc", json!({"expr": "bad"})),
        ]),
        Message::tool_results(vec![
            ToolResultContent::new(
                "call_1",
                vec![Content::text("4"), Content::image(MediaSource::base64("image/png", PNG))],
            ),
            ToolResultContent::error("call_2", "syntax error"),
        ]),
    ];
    cases.push(("tool_results", gpt, ModelRequest::new(history.clone()).with_tools(vec![calc_tool()])));
    let mut unanswered = history;
    unanswered.pop();
    cases.push(("unanswered_tool_calls", gpt, ModelRequest::new(unanswered).with_tools(vec![calc_tool()])));

    let media = Message::new(
        Role::User,
        vec![
            Content::image(MediaSource::base64("image/png", PNG)),
            Content::Image(ImageContent::new(MediaSource::url("https://example.com/cat.jpg"))),
            Content::image(MediaSource::file("file-img1")),
            Content::Document(
                DocumentContent::new(MediaSource::base64("application/pdf", "JVBERi0xLjQK"))
                    .with_title("spec.pdf"),
            ),
            Content::document(MediaSource::url("https://example.com/paper.pdf")),
            Content::document(MediaSource::file("file-doc1")),
            Content::Document(DocumentContent::new(MediaSource::Text {
                media_type: "text/plain".into(),
                data: "notes".into(),
            })),
            Content::File(
                serde_json::from_value::<FileContent>(json!({"file_id": "file-2", "filename": "a.pdf"}))
                    .unwrap(),
            ),
            Content::text("Summarise all of these."),
        ],
    );
    cases.push(("images_and_documents", gpt, ModelRequest::new(vec![media])));

    let mut r = ModelRequest::new(replayed_history()).with_tools(vec![calc_tool()]);
    let mut reasoning = Reasoning::effort(ReasoningEffort::High);
    reasoning.summary = Some(ReasoningSummary::Detailed);
    r.reasoning = Some(reasoning);
    r.prompt_cache_key = Some("user-42".into());
    r.options.insert(dive_openai::OpenAiOptions::default().with_service_tier("flex"));
    cases.push(("reasoning_replay", gpt, r));

    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}}}, "required": ["city"]});
    cases.push((
        "structured_strict",
        gpt,
        ModelRequest::new(vec![Message::user("Plan a trip")]).with_response_format(
            serde_json::from_value::<ResponseFormat>(
                json!({"type": "json_schema", "name": "trip", "schema": schema,
                "description": "A trip plan"}),
            )
            .unwrap(),
        ),
    ));
    cases.push((
        "structured_json_object",
        gpt41,
        ModelRequest::new(vec![Message::user("JSON please")])
            .with_response_format(ResponseFormat::JsonObject),
    ));

    let web = dive_openai::responses::decode_item(&json!({"type": "web_search_call", "id": "ws_1",
        "status": "completed", "action": {"type": "search", "query": "rust 1.95"}}));
    let list = dive_openai::responses::decode_item(&json!({"type": "mcp_list_tools", "id": "mcpl_1",
        "server_label": "docs", "tools": [{"name": "search", "input_schema": {"type": "object"}}]}));
    let mcp = dive_openai::responses::decode_item(
        &json!({"type": "mcp_call", "id": "mcp_1", "server_label": "docs",
        "name": "search", "arguments": "{\"q\":\"x\"}", "output": "found", "status": "completed"}),
    );
    let mut answer = dive_openai::responses::decode_item(
        &json!({"type": "message", "id": "msg_9", "role": "assistant",
        "status": "completed", "phase": "final_answer", "content": [{"type": "output_text", "text": "Rust 1.95 is out.",
        "annotations": [{"type": "url_citation", "start_index": 0, "end_index": 4, "url": "https://blog.rust-lang.org/",
        "title": "Rust Blog"}]}]}),
    );
    let mut blocks = web;
    blocks.extend(list);
    blocks.extend(mcp);
    blocks.append(&mut answer);
    let mut r = ModelRequest::new(vec![
        Message::user("What's new in Rust?"),
        assistant(blocks),
        Message::user("More?"),
    ])
    .with_tools(vec![ToolDefinition::native(
        "web_search",
        "web_search",
        params(json!({"search_context_size": "low"})),
    )]);
    let mut server = McpServerConfig::url("docs", "https://mcp.example.com/sse");
    server.allowed_tools = vec!["search".into()];
    r.mcp_servers = vec![server];
    cases.push(("server_tools_replay", gpt, r));

    let reminders = vec![
        Message::user("Hi"),
        Reminder::operator("policy", "Answer in French.").unwrap().into_message(),
        Reminder::new("todo-list", "2 items open").unwrap().into_message(),
    ];
    cases.push(("reminders", gpt, ModelRequest::new(reminders)));

    let r =
        ModelRequest::new(vec![Message::user("first"), Message::assistant("ok"), Message::user("second")])
            .with_option(dive_openai::OpenAiOptions::default().with_previous_response_id("resp_prev1"));
    cases.push(("previous_response_id", gpt, r));
    cases
}

fn compatible() -> dive_openai::CompatibleChat {
    dive_openai::compatible::<dive_openai::Chat>("http://127.0.0.1:9/v1").model("m").build().unwrap()
}

#[test]
fn request_bodies_are_valid_for_the_official_sdk() {
    let Some(py) = dive_test::interop::python("openai") else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut count = 0;
    for (name, model, request) in matrix() {
        for stream in [false, true] {
            let suffix = if stream { "-stream" } else { "" };
            let mut bodies =
                vec![("openai-responses", responses(model).request_body(&request, stream).unwrap())];
            if name == "previous_response_id" {
                // Chaining on a stored response is the Responses API's alone: Chat refuses it.
                let refused = chat(model).request_body(&request, stream).unwrap_err();
                assert_eq!(refused.kind, dive_core::LlmErrorKind::InvalidRequest, "{refused}");
            } else {
                bodies.push(("openai-chat", chat(model).request_body(&request, stream).unwrap()));
                match compatible().request_body(&request, stream) {
                    Ok(body) => bodies.push(("openai-chat", body)),
                    // A generic compatible endpoint takes no file parts: a PDF is refused by name.
                    Err(e) => assert_eq!(
                        (e.kind, e.error_type.as_deref()),
                        (dive_core::LlmErrorKind::UnsupportedContent, Some("document")),
                        "{e}"
                    ),
                }
            }
            for (i, (kind, body)) in bodies.into_iter().enumerate() {
                let file = dir.path().join(format!("{name}-{i}.{kind}{suffix}.json"));
                std::fs::write(file, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
                count += 1;
            }
        }
    }
    dive_test::interop::assert_bodies_valid(
        &py,
        &interop_dir().join("validate_requests.py"),
        dir.path(),
        count,
    );
}

/// Runs the SDK on a fixture: (event problems, accumulated message, error).
fn sdk(kind: &str, fixture: &str) -> Option<(Vec<Value>, Value, Value)> {
    let py = dive_test::interop::python("openai")?;
    let out = Command::new(py)
        .arg(interop_dir().join("sdk_stream.py"))
        .arg(kind)
        .arg(common::fixture_path(fixture))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    Some((v["problems"].as_array().cloned().unwrap_or_default(), v["message"].clone(), v["error"].clone()))
}

/// What a reader of a response sees — text, refusal, calls, reasoning, server tool calls,
/// cited URLs, token counts — from our decoded response.
fn our_view(r: &ModelResponse) -> Value {
    let (mut text, mut refusal) = (String::new(), String::new());
    let (mut calls, mut reasoning, mut encrypted, mut server, mut cited) =
        (vec![], vec![], vec![], vec![], vec![]);
    for block in &r.content {
        match block {
            Content::Text(t) => {
                text.push_str(&t.text);
                cited.extend(t.citations.iter().filter_map(|c| c.fields.get("url").cloned()));
            }
            Content::Refusal(x) => refusal.push_str(&x.refusal),
            Content::ToolUse(u) => calls.push(json!({"id": u.id, "name": u.name, "arguments": u.input})),
            Content::Thinking(t) => {
                reasoning.push(t.thinking.clone());
                encrypted.extend(t.signature.clone());
            }
            Content::ServerToolUse(s) => server.push(s.id.clone()),
            _ => {}
        }
    }
    let u = &r.usage;
    json!({
        "id": r.id, "model": r.model, "text": text, "refusal": refusal, "tool_calls": calls,
        "reasoning": reasoning.join("\n\n"), "encrypted_reasoning": encrypted, "server_tool_calls": server,
        "cited_urls": cited,
        "usage": {
            "input": u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens,
            "cached": u.cache_read_input_tokens,
            "output": u.output_tokens,
        },
    })
}

/// A function call's argument string as JSON (the string itself when it is not JSON, e.g. cut
/// by an output limit).
fn arguments(raw: &Value) -> Value {
    let text = raw.as_str().unwrap_or("{}");
    serde_json::from_str(text).unwrap_or_else(|_| json!(text))
}

/// The same view read straight from the SDK's accumulated `ChatCompletion` (SDK field names,
/// none of our decoder).
fn sdk_chat_view(m: &Value) -> Value {
    let msg = &m["choices"][0]["message"];
    let calls: Vec<Value> = msg["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| json!({"id": c["id"], "name": c["function"]["name"], "arguments": arguments(&c["function"]["arguments"])}))
        .collect();
    let usage = &m["usage"];
    json!({
        "id": m["id"], "model": m["model"], "text": msg["content"].as_str().unwrap_or(""),
        "refusal": msg["refusal"].as_str().unwrap_or(""), "tool_calls": calls, "reasoning": "",
        "encrypted_reasoning": [], "server_tool_calls": [], "cited_urls": [],
        "usage": {
            "input": usage["prompt_tokens"].as_u64().unwrap_or(0),
            "cached": usage["prompt_tokens_details"]["cached_tokens"].as_u64().unwrap_or(0),
            "output": usage["completion_tokens"].as_u64().unwrap_or(0),
        },
    })
}

/// The same view read straight from the SDK's accumulated `Response` (or a `response` object
/// of the stream).
fn sdk_responses_view(r: &Value) -> Value {
    let (mut text, mut refusal) = (String::new(), String::new());
    let (mut calls, mut reasoning, mut encrypted, mut server, mut cited) =
        (vec![], vec![], vec![], vec![], vec![]);
    for item in r["output"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("message") => {
                for part in item["content"].as_array().into_iter().flatten() {
                    text.push_str(part["text"].as_str().unwrap_or(""));
                    refusal.push_str(part["refusal"].as_str().unwrap_or(""));
                    let notes = part["annotations"].as_array().into_iter().flatten();
                    cited.extend(notes.filter(|a| a["type"] == "url_citation").map(|a| a["url"].clone()));
                }
            }
            Some("function_call") => calls.push(
                json!({"id": item["call_id"], "name": item["name"], "arguments": arguments(&item["arguments"])}),
            ),
            Some("reasoning") => {
                let parts = item["summary"].as_array().into_iter().flatten();
                reasoning.push(parts.filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n\n"));
                encrypted.extend(item["encrypted_content"].as_str().map(str::to_string));
            }
            Some("web_search_call") => server.push(item["id"].as_str().unwrap_or_default().to_string()),
            _ => {}
        }
    }
    let usage = &r["usage"];
    json!({
        "id": r["id"], "model": r["model"], "text": text, "refusal": refusal, "tool_calls": calls,
        "reasoning": reasoning.join("\n\n"), "encrypted_reasoning": encrypted, "server_tool_calls": server,
        "cited_urls": cited,
        "usage": {
            "input": usage["input_tokens"].as_u64().unwrap_or(0),
            "cached": usage["input_tokens_details"]["cached_tokens"].as_u64().unwrap_or(0),
            "output": usage["output_tokens"].as_u64().unwrap_or(0),
        },
    })
}

/// Our stream decoding of a fixture against what the SDK's own accumulator made of it, read
/// field by field from the SDK's object (never through our decoder).
async fn assert_same_as_sdk(kind: &str, fixture: &str) {
    let ours = decode_fixture_ok(fixture).await;
    let Some((problems, message, error)) = sdk(kind, fixture) else { return };
    assert!(problems.is_empty(), "{problems:?}");
    assert!(error.is_null(), "{error}");
    let mut mine = our_view(&ours);
    let mut theirs;
    if kind == "openai-chat" {
        theirs = sdk_chat_view(&message);
        // Stop reasons are kept raw: ours is the SDK's `finish_reason`.
        mine["stop"] = json!(ours.stop_reason);
        theirs["stop"] = message["choices"][0]["finish_reason"].clone();
    } else {
        theirs = sdk_responses_view(&message);
    }
    assert_eq!(mine, theirs, "{fixture}: our decoding (left) and the SDK's (right)");
    assert!(!ours.content.is_empty());
}

#[tokio::test]
async fn chat_stream_matches_the_sdk() {
    assert_same_as_sdk("openai-chat", "chat_text_parallel_tools.sse").await;
    assert_same_as_sdk("openai-chat", "chat_refusal.sse").await;
}

#[tokio::test]
async fn responses_reasoning_and_tools_stream_matches_the_sdk() {
    assert_same_as_sdk("openai-responses", "responses_reasoning_tools.sse").await;
}

#[tokio::test]
async fn responses_web_search_stream_matches_the_sdk() {
    assert_same_as_sdk("openai-responses", "responses_web_search.sse").await;
}

#[tokio::test]
async fn incomplete_response_is_an_output_limit() {
    // The SDK's stream helper raises on `response.incomplete`; we report the cut response.
    let ours = decode_fixture_ok("responses_incomplete.sse").await;
    assert_eq!(ours.stop_kind(), dive_core::StopKind::OutputLimit);
    let text = std::fs::read_to_string(common::fixture_path("responses_incomplete.sse")).unwrap();
    let last = text.lines().rev().find_map(|l| l.strip_prefix("data: ")).unwrap();
    let final_response: Value = serde_json::from_str(last).unwrap();
    assert_eq!(our_view(&ours), sdk_responses_view(&final_response["response"]));
    if let Some((problems, _, error)) = sdk("openai-responses", "responses_incomplete.sse") {
        assert!(problems.is_empty(), "{problems:?}");
        assert!(error["message"].as_str().unwrap_or_default().contains("response.completed"), "{error}");
    }
    let (_, err) = decode_fixture("responses_incomplete.sse").await;
    assert!(err.is_none(), "a cut response is a result, not a stream error: {err:?}");
}
