//! Interop with the official `mistralai` Python SDK: the request bodies we send validate
//! against its request models with unknown keys rejected, and SSE fixtures decode to the same
//! message the SDK's stream types accumulate.
//!
//! Needs the pinned `mistralai` SDK (`crates/dive-test/interop/requirements.txt`, checked by
//! `dive_test::interop`; `cargo xtask ci` installs it into `target/interop-venv` when missing).
//! Without it the tests FAIL; `DIVE_SKIP_PYTHON_INTEROP=1` skips them, outside CI only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use bytes::Bytes;
use dive_core::{
    Content, DocumentContent, MediaSource, Message, ModelRequest, Reasoning, ReasoningEffort, RefusalContent,
    Reminder, ResponseAccumulator, ResponseFormat, Role, StopKind, ToolChoice, ToolDefinition,
    ToolResultContent,
};
use dive_openai_wire::chat::{ChatEvents, ChatMapper};
use futures::StreamExt;
use serde_json::{Value, json};

fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn weather() -> ToolDefinition {
    ToolDefinition::new(
        "weather",
        "Current weather for a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
               "additionalProperties": false}),
    )
}

const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

fn matrix() -> Vec<(&'static str, ModelRequest)> {
    let mut cases = Vec::new();
    cases.push(("text", ModelRequest::new(vec![Message::user("Bonjour")])));
    let mut r =
        ModelRequest::new(vec![Message::user("Count"), Message::assistant("1, 2"), Message::user("go on")])
            .with_system("Be brief.")
            .with_max_tokens(256)
            .with_temperature(0.3);
    r.top_p = Some(0.9);
    r.presence_penalty = Some(0.1);
    r.frequency_penalty = Some(0.2);
    r.stop_sequences = vec!["END".into()];
    r.prompt_cache_key = Some("user-42".into());
    r.provider_options.insert("random_seed".into(), json!(7));
    r.provider_options.insert("safe_prompt".into(), json!(true));
    cases.push(("system_sampling_options", r));
    for (name, choice, parallel) in [
        ("tools_auto", Some(ToolChoice::Auto), None),
        ("tools_any_serial", Some(ToolChoice::Any), Some(false)),
        ("tools_named", Some(ToolChoice::Tool { name: "weather".into() }), None),
        ("tools_none", Some(ToolChoice::None), None),
    ] {
        let mut r = ModelRequest::new(vec![Message::user("Weather in Paris?")]).with_tools(vec![weather()]);
        r.tool_choice = choice;
        r.parallel_tool_calls = parallel;
        cases.push((name, r));
    }
    // Ids from another provider (Anthropic's `toolu_…`) must be rewritten for Mistral.
    let history = vec![
        Message::user("Weather in Paris and Lyon?"),
        Message::new(
            Role::Assistant,
            vec![
                Content::text("Checking."),
                Content::tool_use("toolu_01A09q90qw90lq917835lq9", "weather", json!({"city": "Paris"})),
                Content::tool_use("Xp2aB7cDe", "weather", json!({"city": "Lyon"})),
            ],
        ),
        Message::tool_results(vec![
            ToolResultContent::new(
                "toolu_01A09q90qw90lq917835lq9",
                vec![Content::text("21°C"), Content::image(MediaSource::base64("image/png", PNG))],
            ),
            ToolResultContent::error("Xp2aB7cDe", "service unavailable"),
        ]),
    ];
    cases.push(("tool_results_foreign_ids", ModelRequest::new(history.clone()).with_tools(vec![weather()])));
    let mut unanswered = history;
    unanswered.pop();
    cases.push(("unanswered_tool_calls", ModelRequest::new(unanswered).with_tools(vec![weather()])));
    let media = Message::new(
        Role::User,
        vec![
            Content::text("Describe these."),
            Content::image(MediaSource::base64("image/png", PNG)),
            Content::image(MediaSource::url("https://example.com/cat.jpg")),
            Content::Document(
                DocumentContent::new(MediaSource::base64("application/pdf", "JVBERi0xLjQK"))
                    .with_title("spec.pdf"),
            ),
            Content::document(MediaSource::url("https://example.com/paper.pdf")),
            Content::Document(DocumentContent::new(MediaSource::Text {
                media_type: "text/plain".into(),
                data: "notes".into(),
            })),
        ],
    );
    cases.push(("images_and_documents", ModelRequest::new(vec![media])));
    cases.push((
        "refusal_in_history",
        ModelRequest::new(vec![
            Message::user("Something bad"),
            Message::new(
                Role::Assistant,
                vec![Content::Refusal(RefusalContent::new("I can't help with that."))],
            ),
            Message::user("Something fine"),
        ]),
    ));
    cases.push((
        "reasoning_effort",
        ModelRequest::new(vec![Message::user("Prove it.")])
            .with_reasoning(Reasoning::effort(ReasoningEffort::High)),
    ));
    cases.push((
        "structured_output",
        ModelRequest::new(vec![Message::user("A point")]).with_response_format(ResponseFormat::JsonSchema {
            name: "point".into(),
            schema: json!({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}),
            description: Some("A 1-D point".into()),
            strict: Some(true),
        }),
    ));
    cases.push((
        "json_object",
        ModelRequest::new(vec![Message::user("JSON")]).with_response_format(ResponseFormat::JsonObject),
    ));
    cases.push((
        "reminders",
        ModelRequest::new(vec![Message::new(
            Role::User,
            vec![
                Content::text("What next?"),
                Content::Reminder(Reminder::new("todo-list", "2 items open").unwrap()),
                Content::Reminder(Reminder::operator("policy", "Never delete files.").unwrap()),
            ],
        )]),
    ));
    cases.push(("magistral_thinking_replay", ModelRequest::new(magistral_history())));
    cases
}

/// A recorded Magistral answer (thinking chunk + text chunk), decoded, then a follow-up.
fn magistral_history() -> Vec<Message> {
    let recorded: Value =
        serde_json::from_slice(&std::fs::read(fixture("recorded/vercel-mistral-reasoning.json")).unwrap())
            .unwrap();
    let turn = dive_openai_wire::chat::decode_response(&recorded, &dive_mistral::dialect());
    vec![Message::user("What is 2+2?"), turn.into_message(), Message::user("And 3+3?")]
}

#[test]
fn magistral_thinking_goes_back_as_a_thinking_chunk() {
    let llm = dive_mistral::builder().api_key("k").build().unwrap();
    let body = llm.request_body(&ModelRequest::new(magistral_history()), false).unwrap();
    // The recorded message's own `content` array, as Mistral sent it.
    let recorded: Value =
        serde_json::from_slice(&std::fs::read(fixture("recorded/vercel-mistral-reasoning.json")).unwrap())
            .unwrap();
    assert_eq!(body["messages"][1]["role"], "assistant");
    assert_eq!(body["messages"][1]["content"], recorded["choices"][0]["message"]["content"]);
}

#[test]
fn request_bodies_are_valid_for_the_official_sdk() {
    let llm =
        dive_mistral::builder().api_key("interop-not-a-key").base_url("http://127.0.0.1:9").build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut written = 0;
    for (name, request) in matrix() {
        for stream in [false, true] {
            let body = llm.request_body(&request, stream).unwrap();
            let file = dir.path().join(format!("{name}.{}.json", if stream { "stream" } else { "whole" }));
            std::fs::write(&file, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
            #[allow(clippy::disallowed_methods)] // a debugging switch of this test
            let keep = std::env::var("DIVE_KEEP_BODIES");
            if let Ok(keep) = keep {
                std::fs::create_dir_all(&keep).unwrap();
                std::fs::copy(&file, Path::new(&keep).join(file.file_name().unwrap())).unwrap();
            }
            written += 1;
        }
    }
    let Some(py) = dive_test::interop::python("mistralai") else { return };
    dive_test::interop::assert_bodies_valid(
        &py,
        &interop_dir().join("validate_requests.py"),
        dir.path(),
        written,
    );
}

fn decode_fixture(name: &str) -> (ResponseAccumulator, Option<dive_provider::ProviderError>) {
    let bytes = std::fs::read(fixture(name)).unwrap();
    let chunks: Vec<Result<Bytes, std::io::Error>> =
        bytes.chunks(31).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    let sse = dive_provider::decode_sse("mistral", futures::stream::iter(chunks));
    let mapper = ChatMapper::new("mistral", dive_mistral::dialect());
    let mut events = ChatEvents::new("mistral", Box::pin(sse), mapper, None);
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

fn assert_same_message(name: &str) -> dive_core::ModelResponse {
    let (acc, error) = decode_fixture(name);
    assert!(error.is_none(), "{error:?}");
    let ours = acc.into_response();
    let Some(py) = dive_test::interop::python("mistralai") else { return ours };
    let out = Command::new(py).arg(interop_dir().join("sdk_stream.py")).arg(fixture(name)).output().unwrap();
    assert!(out.status.success(), "sdk_stream.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let sdk: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sdk["problems"], json!([]), "{name}: {sdk}");
    let theirs = &sdk["message"];
    assert_eq!(ours.id, theirs["id"].as_str().unwrap());
    assert_eq!(ours.model, theirs["model"].as_str().unwrap());
    assert_eq!(ours.text_content(), theirs["content"].as_str().unwrap());
    let thinking: String = ours
        .content
        .iter()
        .filter_map(
            |c| if let dive_core::Content::Thinking(t) = c { Some(t.thinking.as_str()) } else { None },
        )
        .collect();
    assert_eq!(thinking, theirs["thinking"].as_str().unwrap());
    let calls: Vec<Value> =
        ours.tool_uses().map(|c| json!({"id": c.id, "name": c.name, "arguments": c.input})).collect();
    assert_eq!(json!(calls), theirs["tool_calls"]);
    assert_eq!(ours.stop_reason, theirs["finish_reason"].as_str().unwrap());
    assert_eq!(ours.usage.input_tokens, theirs["usage"]["prompt_tokens"].as_u64().unwrap());
    assert_eq!(ours.usage.output_tokens, theirs["usage"]["completion_tokens"].as_u64().unwrap());
    ours
}

#[test]
fn shared_testbed_stream_matches_the_sdk() {
    assert_same_message("testbed_text_tool.sse");
}

#[test]
fn parallel_tool_calls_stream_matches_the_sdk() {
    let r = assert_same_message("parallel_tools.sse");
    assert_eq!(r.stop_kind(), StopKind::ToolUse);
}

/// The recorded Magistral stream (see `tests/fixtures/recorded/README.md`): the thinking
/// chunks' text, as recorded, is one thinking block before the answer, and the SDK's typed
/// chunks accumulate to the same.
#[test]
fn magistral_thinking_chunks_stream_matches_the_sdk() {
    let r = assert_same_message("recorded/vercel-mistral-reasoning.sse");
    let kinds: Vec<&str> = r.content.iter().map(dive_core::Content::kind).collect();
    assert_eq!(kinds, ["thinking", "text"]);
    let dive_core::Content::Thinking(t) = &r.content[0] else { unreachable!() };
    assert_eq!(t.thinking, "The user is asking for 2+2. This is basic arithmetic. 2+2=4.");
    assert_eq!(r.text_content(), "2 + 2 = 4");
}

#[test]
fn model_length_is_a_context_limit_and_matches_the_sdk() {
    let r = assert_same_message("model_length.sse");
    assert_eq!(r.stop_kind(), StopKind::ContextLimit);
}
