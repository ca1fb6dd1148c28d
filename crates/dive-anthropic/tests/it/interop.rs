//! Interop with the official `anthropic` Python SDK: the request bodies we send are valid
//! `MessageCreateParams` (unknown keys rejected), and the SSE fixtures decode to the same
//! message the SDK accumulates.
//!
//! Needs the pinned `anthropic` SDK (`crates/dive-test/interop/requirements.txt`, checked by
//! `dive_test::interop`; `cargo xtask ci` installs it into `target/interop-venv` when missing).
//! Without it the tests FAIL; `DIVE_SKIP_PYTHON_INTEROP=1` skips them, outside CI only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use bytes::Bytes;
use dive_anthropic::{Anthropic, AnthropicOptions};
use dive_core::{
    CacheControl, CacheTtl, Citation, CitationsConfig, Content, ContextEdit, DocumentContent, EventStream,
    FileContent, ImageContent, McpServerConfig, MediaSource, Message, ModelRequest, Prefill, Reasoning,
    ReasoningEffort, RedactedThinkingContent, Reminder, ResponseFormat, Role, Secret, TextContent,
    ThinkingContent, ThinkingDisplay, ToolChoice, ToolDefinition, ToolResultContent, ToolUse,
};
use futures::StreamExt;
use serde_json::{Map, Value, json};

fn interop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// The Python with the pinned `anthropic` SDK (`dive_test::interop`); `None` when skipped locally.
fn python() -> Option<String> {
    dive_test::interop::python("anthropic")
}

fn client(model: &str) -> Anthropic {
    Anthropic::builder()
        .api_key("sk-ant-interop-not-a-key")
        .base_url("http://127.0.0.1:9")
        .model(model)
        .build()
        .unwrap()
}

fn calc_tool() -> ToolDefinition {
    ToolDefinition::new(
        "calc",
        "Evaluates arithmetic.",
        json!({"type": "object", "properties": {"expr": {"type": "string"}}, "required": ["expr"]}),
    )
}

fn params(pairs: Value) -> Map<String, Value> {
    pairs.as_object().cloned().unwrap()
}

fn assistant(blocks: Vec<Content>) -> Message {
    Message::new(Role::Assistant, blocks)
}

const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/// (name, model, request) for every case of the matrix.
fn matrix() -> Vec<(&'static str, &'static str, ModelRequest)> {
    let mut cases = Vec::new();
    let sonnet45 = "claude-sonnet-4-5";
    let sonnet55 = "claude-sonnet-5-5";

    cases.push(("text", sonnet55, ModelRequest::new(vec![Message::user("Hello")])));

    let mut r = ModelRequest::new(vec![
        Message::user("Count to 3"),
        Message::assistant("1, 2"),
        Message::user("go on"),
    ])
    .with_system("Be brief.")
    .with_max_tokens(512);
    r.stop_sequences = vec!["END".into()];
    r.caching = Some(false);
    r.options.insert(AnthropicOptions::default().with_prefill(
        serde_json::from_value::<Prefill>(json!({"text": "3", "closing_tag": "</n>"})).unwrap(),
    ));
    cases.push(("system_stops_prefill", sonnet45, r));

    for (name, choice, parallel) in [
        ("tools_auto_serial", Some(ToolChoice::Auto), Some(false)),
        ("tools_any", Some(ToolChoice::Any), None),
        ("tools_named", Some(ToolChoice::Tool { name: "calc".into() }), Some(false)),
        ("tools_none", Some(ToolChoice::None), None),
        ("tools_serial_default_choice", None, Some(false)),
    ] {
        let mut r = ModelRequest::new(vec![Message::user("2+2?")]).with_tools(vec![calc_tool()]);
        r.tool_choice = choice;
        r.parallel_tool_calls = parallel;
        cases.push((name, sonnet55, r));
    }

    let history = vec![
        Message::user("2+2 and a picture?"),
        assistant(vec![
            Content::text("Computing."),
            Content::tool_use("toolu_1", "calc", json!({"expr": "2+2"})),
            Content::tool_use("toolu_2", "calc", json!({"expr": "bad"})),
        ]),
        Message::tool_results(vec![
            ToolResultContent::new(
                "toolu_1",
                vec![Content::text("4"), Content::image(MediaSource::base64("image/png", PNG))],
            ),
            ToolResultContent::error("toolu_2", "syntax error"),
        ]),
    ];
    cases.push(("tool_results", sonnet55, ModelRequest::new(history.clone()).with_tools(vec![calc_tool()])));
    // The second call has no result: answer_unanswered_tool_calls must add one.
    let mut unanswered = history.clone();
    unanswered.pop();
    cases.push((
        "unanswered_tool_calls",
        sonnet55,
        ModelRequest::new(unanswered).with_tools(vec![calc_tool()]),
    ));

    let mut doc_pdf =
        DocumentContent::new(MediaSource::base64("application/pdf", "JVBERi0xLjQK")).with_title("Spec");
    doc_pdf.context = Some("The product spec".into());
    doc_pdf.citations = Some(serde_json::from_value::<CitationsConfig>(json!({"enabled": true})).unwrap());
    doc_pdf.cache_control = Some(CacheControl::with_ttl(CacheTtl::OneHour));
    let media = Message::new(
        Role::User,
        vec![
            Content::image(MediaSource::base64("image/png", PNG)),
            Content::Image(ImageContent::new(MediaSource::url("https://example.com/cat.jpg"))),
            Content::image(MediaSource::file("file_img_1")),
            Content::Document(doc_pdf),
            Content::document(MediaSource::url("https://example.com/paper.pdf")),
            Content::document(MediaSource::file("file_doc_1")),
            Content::Document(DocumentContent::new(MediaSource::Text {
                media_type: "text/plain".into(),
                data: "plain notes".into(),
            })),
            Content::File(
                serde_json::from_value::<FileContent>(
                    json!({"file_id": "file_2", "media_type": "image/png"}),
                )
                .unwrap(),
            ),
            Content::text("Summarise all of these."),
        ],
    );
    cases.push(("images_and_documents", sonnet55, ModelRequest::new(vec![media])));

    let mut cited = TextContent::new("Rust 1.95 is out.");
    let mut c = Citation::new("web_search_result_location");
    c.cited_text = Some("Rust 1.95".into());
    c.fields = params(
        json!({"url": "https://blog.rust-lang.org/", "title": "Rust Blog", "encrypted_index": "aWR4"}),
    );
    cited.citations.push(c);
    let mut c = Citation::new("char_location");
    c.cited_text = Some("spec".into());
    c.fields = params(json!({"document_index": 0, "document_title": "Spec", "start_char_index": 0,
        "end_char_index": 4, "file_id": "file_only_in_responses"}));
    cited.citations.push(c);
    let server_history = vec![
        Message::user("What's new in Rust?"),
        assistant(vec![
            serde_json::from_value(json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                "input": {"query": "rust release"}}))
            .unwrap(),
            serde_json::from_value(json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                "content": [{"type": "web_search_result", "url": "https://blog.rust-lang.org/", "title": "Rust Blog",
                "encrypted_content": "ZW5j", "page_age": "1 day"}]}))
            .unwrap(),
            Content::Text(cited),
        ]),
        Message::user("Fetch it and run code on it."),
    ];
    let tools = vec![
        ToolDefinition::native(
            "web_search_20250305",
            "web_search",
            params(json!({"max_uses": 3,
            "allowed_domains": ["rust-lang.org"]})),
        ),
        ToolDefinition::native("web_fetch_20250910", "web_fetch", params(json!({"max_uses": 2}))),
        ToolDefinition::native("code_execution_20250825", "code_execution", Map::new()),
        calc_tool(),
    ];
    cases.push(("server_tools_and_citations", sonnet55, ModelRequest::new(server_history).with_tools(tools)));

    let mut signed = ThinkingContent::new("Let me think.", Some("c2lnbmF0dXJl".into()));
    signed.metadata = Map::new();
    let mut foreign = ThinkingContent::new("OpenAI reasoning", Some("enc".into()));
    foreign.id = Some("rs_1".into());
    let mut call = ToolUse::new("toolu_9", "calc", json!({"expr": "1+1"}));
    call.metadata = params(json!({"anthropic": {"caller": {"type": "direct"}}}));
    let thinking_history = vec![
        Message::user("1+1?"),
        assistant(vec![
            Content::Thinking(signed),
            Content::RedactedThinking(
                serde_json::from_value::<RedactedThinkingContent>(json!({"data": "UkVE"})).unwrap(),
            ),
            Content::Thinking(foreign),
            Content::ToolUse(call),
        ]),
        Message::tool_results(vec![ToolResultContent::text("toolu_9", "2")]),
    ];
    let mut budget = Reasoning::budget(4096);
    budget.display = Some(ThinkingDisplay::Summarized);
    cases.push((
        "thinking_budget_replay",
        sonnet45,
        ModelRequest::new(thinking_history.clone()).with_tools(vec![calc_tool()]).with_reasoning(budget),
    ));
    let mut adaptive = Reasoning::adaptive();
    adaptive.effort = Some(ReasoningEffort::Xhigh);
    adaptive.display = Some(ThinkingDisplay::Omitted);
    cases.push((
        "thinking_adaptive_effort",
        sonnet55,
        ModelRequest::new(thinking_history).with_tools(vec![calc_tool()]).with_reasoning(adaptive),
    ));
    cases.push((
        "effort_clamped_minimal",
        sonnet45,
        ModelRequest::new(vec![Message::user("hi")])
            .with_reasoning(Reasoning::effort(ReasoningEffort::Minimal)),
    ));

    let mut long = Vec::new();
    for i in 0..24 {
        long.push(Message::user(format!("question {i}")));
        long.push(Message::assistant(format!("answer {i}")));
    }
    if let Some(Content::Text(t)) = long[0].content.first_mut() {
        t.cache_control = Some(CacheControl::with_ttl(CacheTtl::OneHour));
    }
    long.push(Message::user("last question"));
    let mut r = ModelRequest::new(long).with_system("You answer questions.");
    r.caching = Some(true);
    cases.push(("caching_long_history", sonnet55, r));

    cases.push((
        "structured_output",
        sonnet55,
        ModelRequest::new(vec![Message::user("Give me a point")]).with_response_format(
            ResponseFormat::JsonSchema {
                name: "point".into(),
                schema: json!({"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"],
                "additionalProperties": false}),
                description: None,
                strict: None,
            },
        ),
    ));
    cases.push((
        "json_object",
        sonnet55,
        ModelRequest::new(vec![Message::user("JSON please")])
            .with_response_format(ResponseFormat::JsonObject),
    ));

    let reminders = vec![Message::new(
        Role::User,
        vec![
            Content::text("What should I do?"),
            Content::Reminder(Reminder::new("todo-list", "2 items open").unwrap()),
            Content::Reminder(Reminder::operator("policy", "Never delete files.").unwrap()),
        ],
    )];
    cases.push(("reminders_native_system", sonnet55, ModelRequest::new(reminders.clone())));
    cases.push(("reminders_user_text", sonnet45, ModelRequest::new(reminders)));

    let mut r = ModelRequest::new(vec![Message::user("hi")]);
    r.options
        .insert(AnthropicOptions::default().with_speed(dive_core::Speed::Fast).with_service_tier("auto"));
    cases.push(("speed_and_tier", sonnet55, r));

    let mut r = ModelRequest::new(vec![Message::user("hi")]);
    let mut mcp = McpServerConfig::url("docs", "https://mcp.example.com/sse");
    mcp.authorization_token = Some(Secret::new("mcp-token"));
    mcp.allowed_tools = vec!["search".into()];
    r.mcp_servers = vec![mcp];
    r.options.insert(AnthropicOptions::default().with_context_edits(vec![
        serde_json::from_value::<ContextEdit>(json!({"type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": 100000}, "keep": {"type": "tool_uses", "value": 3}}))
        .unwrap(),
    ]));
    cases.push(("beta_mcp_and_context_management", sonnet55, r));

    // The compaction block of a recorded stream, replayed on the next request under the edit
    // that produced it: the SDK's `BetaCompactionBlockParam` must accept it as it came.
    let (acc, error) = decode_fixture("recorded/compaction_response.sse");
    assert!(error.is_none(), "{error:?}");
    let mut r = ModelRequest::new(vec![
        Message::user("Summarize and go on."),
        assistant(acc.into_response().content),
        Message::user("And then?"),
    ]);
    r.options.insert(AnthropicOptions::default().with_context_edits(vec![
        serde_json::from_value::<ContextEdit>(json!({"type": "compact_20260112",
            "trigger": {"type": "input_tokens", "value": 150000}, "pause_after_compaction": false}))
        .unwrap(),
    ]));
    cases.push(("beta_compaction_replay", sonnet55, r));
    cases
}

fn kind(body: &Value, stream: bool) -> &'static str {
    let beta = body.get("mcp_servers").is_some() || body.get("context_management").is_some();
    match (beta, stream) {
        (false, false) => "anthropic",
        (false, true) => "anthropic-stream",
        (true, false) => "anthropic-beta",
        (true, true) => "anthropic-beta-stream",
    }
}

#[test]
fn request_bodies_are_valid_for_the_official_sdk() {
    let dir = tempfile::tempdir().unwrap();
    let mut written = 0;
    for (name, model, request) in matrix() {
        let client = client(model);
        for stream in [false, true] {
            let body = client.request_body(&request, stream).unwrap();
            let file = dir.path().join(format!("{name}.{}.json", kind(&body, stream)));
            std::fs::write(&file, serde_json::to_vec_pretty(&body).unwrap()).unwrap();
            if let Ok(keep) = std::env::var("DIVE_KEEP_BODIES") {
                std::fs::create_dir_all(&keep).unwrap();
                std::fs::copy(&file, Path::new(&keep).join(file.file_name().unwrap())).unwrap();
            }
            written += 1;
        }
    }
    assert_eq!(written, matrix().len() * 2);
    let Some(py) = python() else { return };
    dive_test::interop::assert_bodies_valid(
        &py,
        &interop_dir().join("validate_requests.py"),
        dir.path(),
        written,
    );
}

/// What the Rust decoder makes of a fixture fed in 37-byte chunks.
fn decode_fixture(name: &str) -> (EventStream, Option<dive_core::LlmError>) {
    let bytes = std::fs::read(fixture(name)).unwrap();
    let chunks: Vec<Result<Bytes, std::io::Error>> =
        bytes.chunks(37).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
    let sse = dive_provider::decode_sse("anthropic", futures::stream::iter(chunks));
    let mut events = dive_anthropic::events(Box::pin(sse), None).into_event_stream();
    let mut error = None;
    futures::executor::block_on(async {
        while let Some(item) = events.next().await {
            if let Err(e) = item {
                error = Some(e);
            }
        }
    });
    (events, error)
}

/// Our content blocks in the SDK's JSON shape (a tool call's `caller` lives in metadata).
fn our_blocks(content: &[Content]) -> Vec<Value> {
    content
        .iter()
        .map(|c| {
            let mut v = serde_json::to_value(c).unwrap();
            if let Some(meta) = v.as_object_mut().and_then(|o| o.remove("metadata"))
                && let Some(caller) = meta.get("anthropic").and_then(|a| a.get("caller"))
            {
                v["caller"] = caller.clone();
            }
            v
        })
        .collect()
}

fn sdk(fixture_name: &str) -> Option<Value> {
    let py = python()?;
    let out = Command::new(py)
        .arg(interop_dir().join("sdk_stream.py"))
        .arg(fixture(fixture_name))
        .output()
        .unwrap();
    assert!(out.status.success(), "sdk_stream.py failed: {}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["problems"], json!([]), "{fixture_name} fails the event-by-event check: {v}");
    Some(v)
}

fn assert_same_message(fixture_name: &str) {
    let (acc, error) = decode_fixture(fixture_name);
    assert!(error.is_none(), "{error:?}");
    assert!(acc.is_complete());
    let ours = acc.into_response();
    let Some(sdk) = sdk(fixture_name) else { return };
    let theirs = &sdk["message"];
    assert_eq!(json!(our_blocks(&ours.content)), theirs["content"], "content of {fixture_name}");
    assert_eq!(ours.id, theirs["id"].as_str().unwrap());
    assert_eq!(ours.model, theirs["model"].as_str().unwrap());
    assert_eq!(ours.stop_reason, theirs["stop_reason"].as_str().unwrap());
    let usage = &theirs["usage"];
    assert_eq!(ours.usage.input_tokens, usage["input_tokens"].as_u64().unwrap());
    assert_eq!(ours.usage.output_tokens, usage["output_tokens"].as_u64().unwrap());
    assert_eq!(ours.usage.cache_read_input_tokens, usage["cache_read_input_tokens"].as_u64().unwrap_or(0));
}

#[test]
fn thinking_text_tool_stream_matches_the_sdk() {
    assert_same_message("thinking_text_tool.sse");
}

#[test]
fn web_search_citations_stream_matches_the_sdk() {
    assert_same_message("web_search_citations.sse");
}

#[test]
fn error_event_is_typed_like_the_sdk_and_keeps_partial_output() {
    let (events, error) = decode_fixture("error_after_start.sse");
    let error = error.expect("an error event must end the stream with an error");
    assert_eq!(error.kind, dive_core::LlmErrorKind::Overloaded);
    assert_eq!(error.error_type.as_deref(), Some("overloaded_error"));
    assert!(events.has_started());
    assert_eq!(events.into_partial_response(false).id, "msg_02");
    let Some(sdk) = sdk("error_after_start.sse") else { return };
    assert_eq!(sdk["error"]["type"], "overloaded_error");
    assert_eq!(sdk["message"], Value::Null);
}

/// Events the decoder sends for a recorded stream, and the final message.
fn recorded(name: &str) -> dive_core::ModelResponse {
    let (acc, error) = decode_fixture(&format!("recorded/{name}"));
    assert!(error.is_none(), "{name}: {error:?}");
    assert!(acc.is_complete(), "{name} did not complete");
    acc.into_response()
}

#[test]
fn recorded_compaction_block_keeps_its_summary_and_encrypted_content() {
    // anthropic-sdk-python tests/lib/streaming/fixtures/compaction_response.txt: the summary and
    // the opaque payload arrive in one compaction_delta after a start with both null.
    let r = recorded("compaction_response.sse");
    assert_eq!(
        serde_json::to_value(&r.content[0]).unwrap(),
        json!({"type": "compaction", "content": "Earlier conversation summarized.",
            "encrypted_content": "EpwBCioIDxgCEAEYASJALd_opaque_compaction_payload"})
    );
    assert_eq!(r.content[1].as_text(), Some("Hello there!"));
    // message_start reported 30 input tokens; message_delta only output_tokens (8).
    assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (30, 8));
}

#[test]
fn recorded_compaction_summary_in_pieces_is_joined() {
    // anthropic-sdk-python tests/lib/streaming/fixtures/compaction_multi_delta_response.txt:
    // the summary text is split over two deltas, each of which carries a whole opaque payload.
    let r = recorded("compaction_multi_delta_response.sse");
    let block = serde_json::to_value(&r.content[0]).unwrap();
    assert_eq!(block["content"], "Earlier conversation summarized in full.");
    assert_eq!(block["encrypted_content"], "EpwBCioIDxgCEAEYASJALd_opaque_chunk_two");
}

#[test]
fn recorded_compaction_block_replays_byte_for_byte() {
    let r = recorded("compaction_response.sse");
    let request =
        ModelRequest::new(vec![Message::user("hi"), assistant(r.content.clone()), Message::user("more")]);
    let body = client("claude-sonnet-5-5").request_body(&request, false).unwrap();
    assert_eq!(
        body["messages"][1]["content"][0],
        json!({"type": "compaction", "content": "Earlier conversation summarized.",
            "encrypted_content": "EpwBCioIDxgCEAEYASJALd_opaque_compaction_payload"})
    );
}

#[test]
fn recorded_usage_only_in_message_delta_keeps_every_field_and_the_iterations() {
    // anthropic-sdk-python tests/lib/streaming/fixtures/beta_usage_omitted_with_optional_fields_response.txt:
    // message_start has no usage; message_delta carries all of it, with one `message` iteration
    // (already counted by the top-level fields, so nothing is added).
    let r = recorded("beta_usage_omitted_with_optional_fields_response.sse");
    let u = &r.usage;
    assert_eq!(
        (
            u.input_tokens,
            u.cache_creation_input_tokens,
            u.cache_read_input_tokens,
            u.output_tokens,
            u.reasoning_tokens
        ),
        (12, 4, 3, 6, 2)
    );
    assert_eq!(u.iterations.len(), 1);
    assert_eq!(u.iterations[0].kind, "message");
    assert_eq!(u.iterations[0].model.as_deref(), Some("claude-test"));
    assert_eq!(u.iterations[0].usage, dive_core::Usage::new(12, 6).with_cache(3, 4));
}

#[test]
fn recorded_absent_usage_fields_keep_the_message_start_values() {
    // anthropic-sdk-python tests/lib/streaming/fixtures/context_management_response.txt:
    // message_delta sends only output_tokens; input tokens and the tier of message_start stay.
    let r = recorded("context_management_response.sse");
    assert_eq!((r.usage.input_tokens, r.usage.output_tokens), (25, 8));
    assert_eq!(r.usage.service_tier.as_deref(), Some("standard"));
}
