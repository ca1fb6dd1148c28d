//! Native compaction: an agent on Claude whose context fills up compacts with `Auto`, which
//! asks Anthropic's own compaction for a signed summary block; every later request sends that
//! block first instead of the old messages, while the session keeps every original message.
//!
//! Offline: a local server plays the Messages API's answers (a turn that reports 90% of the
//! context window in use, the compaction answer, the next turn). With a real key, point
//! `Anthropic::from_env()` at the API instead and nothing else changes.
//!
//! Run with `cargo run -p dive-examples --example native_compaction`.
#![allow(clippy::print_stdout)]

use std::sync::Arc;

use dive::anthropic::Anthropic;
use dive::session::MemoryStore;
use dive::{Agent, Auto, CompactionPolicy, Llm, ModelSettings, SessionStore};
use dive_test::provider::{MisbehavingServer, Reply};
use serde_json::{Value, json};

fn answer(text: &str, input_tokens: u64) -> Reply {
    let body = json!({"id": "msg_demo", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "output_tokens": 12}});
    Reply::json(200, body.to_string())
}

fn compaction_answer() -> Reply {
    let body = json!({"id": "msg_compacted", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
        "content": [{"type": "compaction", "content": "The user plans three nights in Lisbon and chose Alfama.",
            "encrypted_content": "Eq8CCkYICBgCKkC3opaque", "signature": "EuYBCkQIBxgCIkBsig"}],
        "stop_reason": "compaction", "stop_sequence": null, "usage": {"input_tokens": 900_000, "output_tokens": 40}});
    Reply::json(200, body.to_string())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let window = dive::anthropic::model_info("claude-sonnet-5-5").map_or(200_000, |m| m.context_window);
    let server = MisbehavingServer::start(vec![
        answer("Alfama suits you: tiles and seafood.", window * 9 / 10),
        compaction_answer(),
        answer("Porto is three hours north by train.", 2_000),
    ])
    .await;
    let claude: Arc<dyn Llm> =
        Arc::new(Anthropic::builder().api_key("sk-ant-offline-demo").base_url(server.url()).build()?);
    let session = MemoryStore::new().open("trip").await?;
    let agent = Agent::builder()
        .model(Arc::clone(&claude))
        .model_settings(ModelSettings::new().stream(false))
        .session(Arc::clone(&session))
        .compaction(CompactionPolicy::new(Auto::shared(Arc::clone(&claude))))
        .build()?;

    println!("> {}", agent.run("Three nights in Lisbon: where do I stay?").await?.output_text());
    println!("> {}", agent.run("And Porto?").await?.output_text());

    let sent: Vec<Value> =
        server.received().iter().map(|r| serde_json::from_slice(&r.body).unwrap_or_default()).collect();
    let compacted = sent.iter().any(|b| b.get("compaction").is_some());
    let replayed =
        sent.last().and_then(|b| b["messages"][0]["content"][0]["type"].as_str()).unwrap_or_default();
    println!("compaction call made: {compacted}; the next request starts with a {replayed} block");
    let doc = session.as_history().ok_or("the store has no history")?.document().await?;
    println!(
        "transcript: {} messages, {} compaction record(s)",
        doc.all_messages().len(),
        doc.compactions().count()
    );
    assert!(compacted && replayed == "compaction" && doc.all_messages().len() == 4);
    Ok(())
}
