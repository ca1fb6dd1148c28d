//! OpenAI's own compaction through the engine, against a real local server, judged by the
//! official `openai` SDK. An agent whose context passes its threshold compacts with [`Auto`],
//! which picks `POST /responses/compact`: the compaction body is a valid `ResponseCompactParams`,
//! its answer a valid `CompactedResponse`, and the next request replays the opaque
//! `compaction` item first (as the SDK's `ResponseCompactionItemParamParam`), instead of the
//! items it stands for. The session transcript keeps every original message, and a later turn,
//! read back from the session, starts from the item.
//!
//! Needs the pinned `openai` SDK (see `tests/it/interop.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::Arc;

use dive_agent::{Agent, Auto, CompactionPolicy, ModelSettings};
use dive_core::{Content, Llm, Message, SessionStore};
use dive_openai::OpenAi;
use dive_test::provider::{MisbehavingServer, Received, Reply};
use serde_json::{Value, json};

/// The answer of `POST /responses/compact`, in the shape of the SDK's `CompactedResponse`.
const COMPACTED: &str = include_str!("../fixtures/compacted_response.json");

/// A Responses answer with `text` whose usage reports `input_tokens`.
fn answer(text: &str, input_tokens: u64) -> Reply {
    let body = json!({"id": "resp_turn", "object": "response", "created_at": 1_764_547_200, "model": "gpt-5.5",
        "status": "completed", "output": [{"type": "message", "id": "msg_turn", "role": "assistant",
        "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": input_tokens + 9}});
    Reply::json(200, body.to_string())
}

fn body(received: &Received) -> Value {
    serde_json::from_slice(&received.body).unwrap()
}

#[tokio::test]
async fn auto_compaction_replays_the_encrypted_item_and_the_session_keeps_every_message() {
    let Some(python) = dive_test::interop::python("openai") else { return };
    let window = dive_openai::model_info("gpt-5.5").unwrap().context_window;
    let server = MisbehavingServer::start(vec![
        // Turn 1 reports 90% of the window in use; turn 2 passes the 80% threshold at once.
        answer("Alfama, then.", window * 9 / 10),
        Reply::json(200, COMPACTED),
        answer("Porto is three hours north by train.", 2_000),
        answer("Faro is in the south.", 2_100),
    ])
    .await;
    let llm: Arc<dyn Llm> = Arc::new(
        OpenAi::builder()
            .api_key("sk-test-not-a-key")
            .base_url(server.url())
            .model("gpt-5.5")
            .build()
            .unwrap(),
    );
    assert!(llm.supports_compaction());
    let store = dive_session::MemoryStore::new();
    let session = store.open("trip").await.unwrap();
    let agent = Agent::builder()
        .model(Arc::clone(&llm))
        .model_settings(ModelSettings::new().stream(false))
        .system_prompt("You plan trips.")
        .session(Arc::clone(&session))
        .compaction(CompactionPolicy::new(Auto::shared(Arc::clone(&llm))))
        .build()
        .unwrap();

    let first = format!("Plan three nights in Lisbon in May. Notes: {}", "tiles and seafood; ".repeat(400));
    agent.run(first.as_str()).await.unwrap();
    agent.run("And Porto?").await.unwrap();
    agent.run("And Faro?").await.unwrap();

    let received = server.received();
    let paths: Vec<&str> = received.iter().map(Received::path).collect();
    assert_eq!(paths, ["/responses", "/responses/compact", "/responses", "/responses"]);

    // The compaction body: the model, the system prompt and the first exchange as input, and
    // nothing the endpoint does not take.
    let asked = body(&received[1]);
    let mut keys: Vec<&str> = asked.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["input", "instructions", "model"]);
    assert_eq!(asked["instructions"], "You plan trips.");
    assert_eq!(asked["input"].as_array().unwrap().len(), 2);

    // The SDK reads the answer as a CompactedResponse; the next request sends its compaction
    // item first (id and encrypted content as received), then the new question, and is smaller.
    let answer_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(answer_file.path(), COMPACTED).unwrap();
    let read =
        dive_test::interop::sdk_read(&python, "openai.types.responses:CompactedResponse", answer_file.path());
    let item = &read["output"][0];
    assert_eq!(item["type"], "compaction");
    let next = body(&received[2]);
    let input = next["input"].as_array().unwrap();
    assert_eq!(
        input[0],
        json!({"type": "compaction", "id": item["id"], "encrypted_content": item["encrypted_content"]})
    );
    assert_eq!(input[1]["content"][0]["text"], "And Porto?");
    assert_eq!(input.len(), 2);
    assert!(received[2].body.len() * 4 < received[0].body.len());

    // The third turn, a fresh run reading the session, starts from the item too.
    let third = body(&received[3]);
    assert_eq!(third["input"][0], input[0]);
    assert_eq!(third["input"].as_array().unwrap().len(), 4);

    // Every body is valid for the SDK: the turns as `ResponseCreateParams`, the compaction as
    // `ResponseCompactParams`.
    let kinds = ["openai-responses", "openai-compact", "openai-responses", "openai-responses"];
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/validate_requests.py");
    let sent = received.iter().map(|r| r.body.as_slice()).zip(kinds);
    dive_test::interop::assert_sent_bodies_valid(&python, &script, sent);

    // The transcript keeps every original message; the active window starts at the item.
    let texts = [
        first.as_str(),
        "Alfama, then.",
        "And Porto?",
        "Porto is three hours north by train.",
        "And Faro?",
        "Faro is in the south.",
    ];
    let window = dive_test::assert_transcript_kept(&*session, &texts, 1).await;
    assert!(matches!(&window[0].content[0], Content::Provider(p) if p.kind == "compaction"));
}

#[tokio::test]
async fn chat_completions_has_no_native_compaction() {
    let llm = dive_openai::ChatCompletions::builder()
        .api_key("sk-test")
        .base_url("http://127.0.0.1:9")
        .build()
        .unwrap();
    assert!(!llm.supports_compaction());
    let error = llm.compact(dive_core::ModelRequest::new(vec![Message::user("hi")]), None).await.unwrap_err();
    assert_eq!(error.kind, dive_core::LlmErrorKind::Unsupported);
    assert!(error.message.contains("summary"), "{error}");
}
