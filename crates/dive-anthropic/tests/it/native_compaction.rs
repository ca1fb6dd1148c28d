//! Anthropic's own compaction through the engine, against a real local server, judged by the
//! official `anthropic` SDK. An agent whose context passes its threshold compacts with
//! [`Auto`], which picks the Messages API's native compaction: the compaction request is a
//! valid beta `MessageCreateParams` carrying `compaction`, its answer a valid `BetaMessage`,
//! and the next request sends the signed `compaction` block first, exactly as the SDK read it,
//! instead of the messages it summarises. The session transcript keeps every original message,
//! and a later turn, read back from the session, starts from the block.
//!
//! Needs the pinned `anthropic` SDK (see `tests/it/interop.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use dive_agent::{Agent, Auto, CompactionPolicy};
use dive_anthropic::{Anthropic, ON_DEMAND_COMPACTION_BETA};
use dive_core::{Content, Llm, SessionStore};
use dive_test::provider::{CannedReplies, MisbehavingServer, Received, Reply};
use serde_json::{Value, json};

/// The answer of a `compaction` request, in the shape of the SDK's `BetaMessage`.
const COMPACTION_ANSWER: &str = include_str!("../fixtures/on_demand_compaction.json");

/// A streamed text answer whose usage reports `input_tokens`.
fn streamed(text: &str, input_tokens: u64) -> Reply {
    let start = json!({"type": "message_start", "message": {"id": "msg_01Turn", "type": "message",
        "role": "assistant", "content": [], "model": "claude-sonnet-5-5", "stop_reason": null,
        "stop_sequence": null, "usage": {"input_tokens": input_tokens, "output_tokens": 1}}});
    let events = [
        ("message_start", start),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": text}}),
        ),
        ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn",
            "stop_sequence": null}, "usage": {"output_tokens": 9}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    let body: String = events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect();
    Reply::Stream {
        content_type: "text/event-stream".into(),
        frames: CannedReplies::sse_frames(&body),
        cut_after: None,
    }
}

fn body(received: &Received) -> Value {
    serde_json::from_slice(&received.body).unwrap()
}

/// A block as replayed, without the cache breakpoint the encoder may put on it.
fn without_cache_control(block: &Value) -> Value {
    let mut block = block.clone();
    block.as_object_mut().unwrap().remove("cache_control");
    block
}

#[tokio::test]
async fn auto_compaction_replays_the_signed_block_and_the_session_keeps_every_message() {
    let Some(python) = dive_test::interop::python("anthropic") else { return };
    let llm = Anthropic::builder().api_key("sk-ant-test-not-a-key").model("claude-sonnet-5-5");
    let window = dive_anthropic::model_info("claude-sonnet-5-5").unwrap().context_window;
    let server = MisbehavingServer::start(vec![
        // Turn 1 reports 90% of the window in use; turn 2 passes the 80% threshold at once.
        streamed("Alfama, then.", window * 9 / 10),
        Reply::json(200, COMPACTION_ANSWER),
        streamed("Porto is three hours north by train.", 2_000),
        streamed("Faro is in the south.", 2_100),
    ])
    .await;
    let llm: Arc<dyn Llm> = Arc::new(llm.base_url(server.url()).build().unwrap());
    let store = dive_session::MemoryStore::new();
    let session = store.open("trip").await.unwrap();
    let agent = Agent::builder()
        .model(Arc::clone(&llm))
        .session(Arc::clone(&session))
        .compaction(CompactionPolicy::new(Auto::shared(Arc::clone(&llm))))
        .build()
        .unwrap();

    let first = format!("Plan three nights in Lisbon in May. Notes: {}", "tiles and seafood; ".repeat(400));
    agent.run(first.as_str()).await.unwrap();
    agent.run("And Porto?").await.unwrap();
    agent.run("And Faro?").await.unwrap();

    let received = server.received();
    assert_eq!(
        received.len(),
        4,
        "{:?}",
        received.iter().map(|r| r.request_line.clone()).collect::<Vec<_>>()
    );

    // The compaction request: the beta endpoint, the on-demand beta, `compaction` with no
    // streaming and no context edits, over the first exchange only.
    let compaction = &received[1];
    assert_eq!(compaction.path(), "/v1/messages?beta=true");
    let betas = compaction.headers.iter().find(|(k, _)| k == "anthropic-beta").map(|(_, v)| v.as_str());
    assert_eq!(betas, Some(ON_DEMAND_COMPACTION_BETA));
    let asked = body(compaction);
    assert_eq!(asked["compaction"], json!({"type": "summarize"}));
    assert!(asked.get("stream").is_none() && asked.get("context_management").is_none(), "{asked}");
    let asked_roles: Vec<&str> =
        asked["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(asked_roles, ["user", "assistant"]);

    // The SDK reads the answer as a BetaMessage whose only block is the compaction block; the
    // next request sends exactly that block first, then the new question, and is smaller.
    let answer_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(answer_file.path(), COMPACTION_ANSWER).unwrap();
    let read = dive_test::interop::sdk_read(&python, "anthropic.types.beta:BetaMessage", answer_file.path());
    assert_eq!(read["stop_reason"], "compaction");
    let sdk_block = &read["content"][0];
    assert_eq!(sdk_block["type"], "compaction");
    let next = body(&received[2]);
    let sent = next["messages"].as_array().unwrap();
    assert_eq!(sent[0]["role"], "assistant");
    assert_eq!(without_cache_control(&sent[0]["content"][0]), *sdk_block);
    assert_eq!(sent[1]["content"][0]["text"], "And Porto?");
    assert_eq!(sent.len(), 2);
    assert!(
        received[2].body.len() * 4 < received[0].body.len(),
        "{} vs {}",
        received[2].body.len(),
        received[0].body.len()
    );

    // The third turn, a fresh run reading the session, starts from the block too.
    let third = body(&received[3]);
    assert_eq!(without_cache_control(&third["messages"][0]["content"][0]), *sdk_block);
    assert_eq!(third["messages"].as_array().unwrap().len(), 4);

    // Every body is a valid request for the SDK (the replays as beta requests).
    let kinds = ["anthropic-stream", "anthropic-beta", "anthropic-beta-stream", "anthropic-beta-stream"];
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/validate_requests.py");
    let sent = received.iter().map(|r| r.body.as_slice()).zip(kinds);
    dive_test::interop::assert_sent_bodies_valid(&python, &script, sent);

    // The transcript keeps every original message; the active window starts at the block.
    let texts = [
        first.as_str(),
        "Alfama, then.",
        "And Porto?",
        "Porto is three hours north by train.",
        "And Faro?",
        "Faro is in the south.",
    ];
    let window = dive_test::assert_transcript_kept(&*session, &texts, 1).await;
    assert!(matches!(&window[0].content[0], Content::Unknown(u) if u.kind() == Some("compaction")));
}

#[tokio::test]
async fn a_failed_server_compaction_falls_back_to_a_summary() {
    // A `compaction` block with a null summary is the server saying it failed: `Auto` then
    // summarises with an ordinary call, and the turn goes on.
    let failed = r#"{"id":"msg_01Failed","type":"message","role":"assistant","model":"claude-sonnet-5-5",
        "content":[{"type":"compaction","content":null}],"stop_reason":"compaction","stop_sequence":null,
        "usage":{"input_tokens":900000,"output_tokens":0}}"#;
    let summary = r#"{"id":"msg_01Summary","type":"message","role":"assistant","model":"claude-sonnet-5-5",
        "content":[{"type":"text","text":"They asked about Lisbon."}],"stop_reason":"end_turn","stop_sequence":null,
        "usage":{"input_tokens":900000,"output_tokens":6}}"#;
    let window = dive_anthropic::model_info("claude-sonnet-5-5").unwrap().context_window;
    let server = MisbehavingServer::start(vec![
        streamed("Alfama.", window * 9 / 10),
        Reply::json(200, failed),
        Reply::json(200, summary),
        streamed("Porto is north.", 1_000),
    ])
    .await;
    let llm: Arc<dyn Llm> = Arc::new(
        Anthropic::builder().api_key("sk-ant-test-not-a-key").base_url(server.url()).build().unwrap(),
    );
    let agent = Agent::builder()
        .model(Arc::clone(&llm))
        .session(dive_session::MemoryStore::new().open("s").await.unwrap())
        .compaction(CompactionPolicy::new(Auto::shared(Arc::clone(&llm))))
        .build()
        .unwrap();
    agent.run("Lisbon?").await.unwrap();
    let reply = agent.run("And Porto?").await.unwrap();
    assert_eq!(reply.output_text(), "Porto is north.");
    let received = server.received();
    assert_eq!(received.len(), 4);
    assert!(body(&received[2]).get("compaction").is_none());
    let last = body(&received[3]);
    assert!(
        last["messages"][0]["content"][0]["text"].as_str().unwrap().contains("They asked about Lisbon."),
        "{last}"
    );
}
