//! Interop with the official `ollama` Python SDK: the request bodies we send are what the SDK
//! would send (unknown keys rejected), and the NDJSON fixtures parse, line by line, to the
//! same message the SDK accumulates.
//!
//! Needs the pinned `ollama` SDK (`crates/dive-test/interop/requirements.txt`, checked by
//! `dive_test::interop`; `cargo xtask ci` installs it into `target/interop-venv` when missing).
//! Without it the tests FAIL; `DIVE_SKIP_PYTHON_INTEROP=1` skips them, outside CI only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use bytes::Bytes;
use dive_core::{
    Content, DocumentContent, MediaSource, Message, ModelRequest, Reasoning, ReasoningEffort, Reminder,
    ResponseAccumulator, ResponseFormat, Role, ThinkingContent, ToolChoice, ToolDefinition,
    ToolResultContent,
};
use dive_ollama::{Ollama, OllamaBuilderExt, OllamaOptions, events};
use dive_provider::decode_ndjson;
use futures::StreamExt;
use serde_json::{Value, json};

fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// The official SDK these tests check against (its Python is found by `dive_test::interop::python`).
const SDK: &str = "ollama";

fn client() -> Ollama {
    // A thinking model with vision (qwen3:8b is text-only: it is refused images).
    Ollama::builder().host("http://127.0.0.1:9").model("qwen3-vl:8b").build().unwrap()
}

fn weather_tool() -> ToolDefinition {
    ToolDefinition::new(
        "weather",
        "Current weather for a city.",
        json!({"type": "object", "properties": {
            "city": {"type": "string", "description": "City name"},
            "units": {"type": "string", "enum": ["metric", "imperial"]},
            "days": {"type": "array", "items": {"type": "integer"}}
        }, "required": ["city"], "additionalProperties": false}),
    )
}

const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// (name, client, request) for every case of the matrix.
fn matrix() -> Vec<(&'static str, Ollama, ModelRequest)> {
    let mut cases = Vec::new();
    cases.push(("text", client(), ModelRequest::new(vec![Message::user("Hello")])));

    let mut r =
        ModelRequest::new(vec![Message::user("Count"), Message::assistant("1, 2"), Message::user("go on")])
            .with_system("Be brief.")
            .with_max_tokens(256)
            .with_temperature(0.3);
    r.top_p = Some(0.9);
    r.presence_penalty = Some(0.1);
    r.frequency_penalty = Some(0.2);
    r.stop_sequences = vec!["END".into()];
    r.provider_options.insert("seed".into(), json!(42));
    r.provider_options.insert("options".into(), json!({"top_k": 20, "repeat_penalty": 1.1}));
    let tuned =
        Ollama::builder().host("http://127.0.0.1:9").num_ctx(32_768).keep_alive("10m").build().unwrap();
    cases.push(("system_options_keep_alive", tuned, r));

    // Typed Ollama options win over the provider's settings.
    let tuned = Ollama::builder().host("http://127.0.0.1:9").num_ctx(4096).keep_alive("1m").build().unwrap();
    let r = ModelRequest::new(vec![Message::user("Hello")]).with_option(
        OllamaOptions::default().with_num_ctx(65_536).with_keep_alive("-1").with_seed(3).with_top_k(40),
    );
    cases.push(("typed_options", tuned, r));

    for (name, choice) in [("tools_auto", Some(ToolChoice::Auto)), ("tools_none", Some(ToolChoice::None))] {
        let mut r =
            ModelRequest::new(vec![Message::user("Weather in Lisbon?")]).with_tools(vec![weather_tool()]);
        r.tool_choice = choice;
        cases.push((name, client(), r));
    }

    let mut thought = ThinkingContent::new("I should call the tool.", None);
    thought.id = None;
    let history = vec![
        Message::user("Weather in Lisbon and Porto?"),
        Message::new(
            Role::Assistant,
            vec![
                Content::Thinking(thought),
                Content::text("Checking."),
                Content::tool_use("call_1", "weather", json!({"city": "Lisbon"})),
                Content::tool_use("call_2", "weather", json!({"city": "Porto"})),
            ],
        ),
        Message::tool_results(vec![
            ToolResultContent::new(
                "call_1",
                vec![Content::text("21°C"), Content::image(MediaSource::base64("image/png", PNG))],
            ),
            ToolResultContent::error("call_2", "service unavailable"),
        ]),
    ];
    cases.push((
        "tool_results_thinking_replay",
        client(),
        ModelRequest::new(history.clone())
            .with_tools(vec![weather_tool()])
            .with_reasoning(Reasoning::effort(ReasoningEffort::High)),
    ));
    let mut unanswered = history;
    unanswered.pop();
    cases.push((
        "unanswered_tool_calls",
        client(),
        ModelRequest::new(unanswered).with_tools(vec![weather_tool()]),
    ));

    let media = Message::new(
        Role::User,
        vec![
            Content::text("What is in these?"),
            Content::image(MediaSource::base64("image/png", PNG)),
            // An image URL or a PDF is refused before encoding (tests/it/unsupported_content.rs).
            Content::Document(DocumentContent::new(MediaSource::Text {
                media_type: "text/plain".into(),
                data: "plain notes".into(),
            })),
        ],
    );
    cases.push(("images_and_documents", client(), ModelRequest::new(vec![media])));

    for (name, reasoning) in [
        ("think_off", Reasoning::effort(ReasoningEffort::None)),
        ("think_low", Reasoning::effort(ReasoningEffort::Minimal)),
        ("think_on", Reasoning::adaptive()),
    ] {
        cases.push((
            name,
            client(),
            ModelRequest::new(vec![Message::user("2+2?")]).with_reasoning(reasoning),
        ));
    }
    cases.push((
        "structured_output",
        client(),
        ModelRequest::new(vec![Message::user("A point")]).with_response_format(ResponseFormat::JsonSchema {
            name: "point".into(),
            schema: json!({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}),
            description: None,
            strict: Some(true),
        }),
    ));
    cases.push((
        "json_object",
        client(),
        ModelRequest::new(vec![Message::user("JSON")]).with_response_format(ResponseFormat::JsonObject),
    ));
    let reminders = vec![Message::new(
        Role::User,
        vec![
            Content::text("What next?"),
            Content::Reminder(Reminder::new("todo-list", "2 items open").unwrap()),
            Content::Reminder(Reminder::operator("policy", "Never delete files.").unwrap()),
        ],
    )];
    cases.push(("reminders", client(), ModelRequest::new(reminders)));
    cases
}

#[test]
fn request_bodies_are_what_the_official_sdk_sends() {
    let dir = tempfile::tempdir().unwrap();
    let mut written = 0;
    for (name, client, request) in matrix() {
        for stream in [false, true] {
            let body = client.request_body(&request, stream).unwrap();
            let file = dir.path().join(format!("{name}.{}.json", if stream { "stream" } else { "whole" }));
            std::fs::write(&file, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
            // A test's own switch: keep the bodies for a look by hand.
            #[allow(clippy::disallowed_methods)]
            let keep = std::env::var("DIVE_KEEP_BODIES");
            if let Ok(keep) = keep {
                std::fs::create_dir_all(&keep).unwrap();
                std::fs::copy(&file, Path::new(&keep).join(file.file_name().unwrap())).unwrap();
            }
            written += 1;
        }
    }
    assert_eq!(written, matrix().len() * 2);
    let Some(py) = dive_test::interop::python(SDK) else { return };
    dive_test::interop::assert_bodies_valid(
        &py,
        &interop_dir().join("validate_requests.py"),
        dir.path(),
        written,
    );
}

#[test]
fn typed_options_and_free_form_options_land_where_ollama_reads_them() {
    let bodies: std::collections::HashMap<&str, Value> =
        matrix().into_iter().map(|(n, c, r)| (n, c.request_body(&r, true).unwrap())).collect();
    let typed = &bodies["typed_options"];
    assert_eq!(typed["options"], json!({"num_ctx": 65_536, "seed": 3, "top_k": 40}));
    assert_eq!(typed["keep_alive"], "-1");
    let free = &bodies["system_options_keep_alive"];
    assert_eq!(
        free["options"],
        json!({"num_ctx": 32_768, "num_predict": 256, "temperature": 0.3, "top_p": 0.9, "presence_penalty": 0.1,
               "frequency_penalty": 0.2, "stop": ["END"], "seed": 42, "top_k": 20, "repeat_penalty": 1.1})
    );
    assert_eq!((free["keep_alive"].as_str(), free["stream"].as_bool()), (Some("10m"), Some(true)));
}

/// What the Rust decoder makes of a fixture fed in 29-byte chunks (splitting lines and UTF-8
/// characters).
fn decode_fixture(name: &str) -> (ResponseAccumulator, Option<dive_provider::ProviderError>) {
    let bytes = std::fs::read(fixture(name)).unwrap();
    let chunks: Vec<Result<Bytes, std::io::Error>> =
        bytes.chunks(29).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    let lines = decode_ndjson("ollama", futures::stream::iter(chunks));
    let mut events = events(Box::pin(lines), None);
    let mut acc = ResponseAccumulator::new();
    let mut error = None;
    futures::executor::block_on(async {
        while let Some(item) = events.next().await {
            match item {
                Ok(event) => acc.add(&event).unwrap(),
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
    });
    (acc, error)
}

fn sdk(fixture_name: &str) -> Option<Value> {
    let py = dive_test::interop::python(SDK)?;
    let out = Command::new(py)
        .arg(interop_dir().join("sdk_stream.py"))
        .arg(fixture(fixture_name))
        .output()
        .unwrap();
    assert!(out.status.success(), "sdk_stream.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["problems"], json!([]), "{fixture_name} has lines the SDK does not fully understand: {v}");
    Some(v)
}

fn joined(content: &[Content], kind: &str) -> String {
    content
        .iter()
        .filter(|c| c.kind() == kind)
        .map(|c| match c {
            Content::Text(t) => t.text.clone(),
            Content::Thinking(t) => t.thinking.clone(),
            _ => String::new(),
        })
        .collect()
}

fn assert_same_message(fixture_name: &str) {
    let (acc, error) = decode_fixture(fixture_name);
    assert!(error.is_none(), "{error:?}");
    assert!(acc.is_complete());
    let ours = acc.into_response();
    let Some(sdk) = sdk(fixture_name) else { return };
    let theirs = &sdk["message"];
    assert_eq!(ours.model, theirs["model"].as_str().unwrap());
    assert_eq!(joined(&ours.content, "text"), theirs["content"].as_str().unwrap());
    assert_eq!(joined(&ours.content, "thinking"), theirs["thinking"].as_str().unwrap());
    let calls: Vec<Value> = ours.tool_uses().map(|c| json!({"name": c.name, "arguments": c.input})).collect();
    assert_eq!(json!(calls), theirs["tool_calls"]);
    let expected_stop = if calls.is_empty() { theirs["done_reason"].as_str().unwrap() } else { "tool_calls" };
    assert_eq!(ours.stop_reason, expected_stop);
    assert_eq!(ours.usage.input_tokens, theirs["prompt_eval_count"].as_u64().unwrap());
    assert_eq!(ours.usage.output_tokens, theirs["eval_count"].as_u64().unwrap());
}

#[test]
fn thinking_text_tool_stream_matches_the_sdk() {
    assert_same_message("thinking_text_tool.ndjson");
}

#[test]
fn shared_testbed_stream_matches_the_sdk() {
    assert_same_message("testbed_text_tool.ndjson");
}

#[test]
fn think_tags_become_thinking_where_the_sdk_keeps_them_in_content() {
    let (acc, error) = decode_fixture("think_tags.ndjson");
    assert!(error.is_none(), "{error:?}");
    let ours = acc.into_response();
    let kinds: Vec<&str> = ours.content.iter().map(Content::kind).collect();
    assert_eq!(kinds, ["thinking", "text"]);
    assert_eq!(ours.text_content(), "**4**");
    assert_eq!(ours.stop_kind(), dive_core::StopKind::OutputLimit);
    let Some(sdk) = sdk("think_tags.ndjson") else { return };
    let theirs = sdk["message"]["content"].as_str().unwrap();
    let thinking = joined(&ours.content, "thinking");
    assert_eq!(theirs, format!("<think>{thinking}</think>\n\n**4**"));
}
