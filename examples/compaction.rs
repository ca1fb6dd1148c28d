//! Compaction: an agent over a SQLite session whose context fills up. The engine summarises
//! the old part of the conversation before the call that would pass 50% of a (small) context
//! window, a PreCompact hook adds instructions and a PostCompact hook prints the sizes; an
//! overflow error is compacted (old tool results cleared) and retried once; the saved
//! transcript keeps every original message.
//! Offline: scripted models, a temporary directory.
//!
//! Run with `cargo run -p dive-examples --example compaction`.

#![allow(clippy::result_large_err)] // the model closures return the model's Result

use std::sync::Arc;

use dive::session::SqliteStore;
use dive::{
    Agent, ClearToolResults, CompactionPolicy, FunctionTool, Hooks, LlmError, LlmErrorKind, ModelResponse,
    PostCompactContext, PreCompactContext, PreCompactDecision, SessionStore, Summarize, ToolError, ToolUse,
};
use dive_test::{FunctionModel, ScriptedModel};
use serde_json::{Value, json};

fn hooks() -> Hooks {
    Hooks::new()
        .on_pre_compact(|ctx: PreCompactContext| async move {
            eprintln!(
                "  pre-compact: {} by {}, ~{} tokens",
                ctx.trigger.as_str(),
                ctx.strategy,
                ctx.estimated_tokens
            );
            Ok(PreCompactDecision::instructions("Keep every city name."))
        })
        .on_post_compact(|ctx: PostCompactContext| async move {
            eprintln!(
                "  post-compact: ~{} -> ~{} tokens, {} -> {} messages",
                ctx.tokens_before, ctx.tokens_after, ctx.messages_before, ctx.messages_after
            );
            Ok(())
        })
}

/// A summary before the call, when the context passes the threshold.
async fn threshold(dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let store = SqliteStore::open(dir.join("sessions.db"))?;
    let session = store.open("trip").await?;
    let model = FunctionModel::new(|req, n| {
        Ok(ModelResponse::text(format!("(answer {n} to {} messages)", req.messages.len())))
    });
    let summarizer = ScriptedModel::new([ModelResponse::text("The user is planning Lisbon, then Porto.")]);
    let agent = Agent::builder()
        .model(model)
        .session(Arc::clone(&session))
        .hooks(hooks())
        .compaction(CompactionPolicy::new(Summarize::new(summarizer)).context_limit(1_000).threshold(0.5))
        .build()?;
    for prompt in [
        format!("Plan three days in Lisbon. Notes: {}", "tram 28, Alfama, Belém. ".repeat(75)),
        format!("Now Porto. Notes: {}", "Ribeira, port cellars. ".repeat(10)),
        "And how do I get between them?".to_owned(),
    ] {
        let response = agent.run(prompt.as_str()).await?;
        eprintln!("turn: {}", response.output_text());
    }
    let doc = session.as_history().ok_or("no history")?.document().await?;
    eprintln!(
        "session: {} messages in the transcript, {} in the active window, {} compaction(s)",
        doc.all_messages().len(),
        doc.messages().len(),
        doc.compactions().count()
    );
    Ok(())
}

/// A context-overflow error, compacted and retried once.
async fn overflow() -> Result<(), Box<dyn std::error::Error>> {
    let model = FunctionModel::new(|_req, n| match n {
        0 => Ok(ModelResponse::tool_calls(vec![ToolUse::new("c1", "fetch", json!({}))])),
        1 => Err(LlmError::new(LlmErrorKind::ContextOverflow, "prompt is too long")),
        _ => Ok(ModelResponse::text("Fetched and read.")),
    });
    let fetch = FunctionTool::new("fetch", "Fetches a page.", |_i: Value, _c| async move {
        Ok::<_, ToolError>("<html>…a very long page…</html>".repeat(100))
    });
    let agent = Agent::builder()
        .model(model)
        .tool(fetch)
        .hooks(hooks())
        .compaction(CompactionPolicy::new(ClearToolResults::new(0)))
        .build()?;
    let response = agent.run("Fetch the timetable.").await?;
    let failed = response.model_calls.iter().filter(|c| c.error.is_some()).count();
    eprintln!(
        "overflow: {} ({} model calls, {failed} failed)",
        response.output_text(),
        response.model_calls.len()
    );
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    threshold(dir.path()).await?;
    overflow().await?;
    Ok(())
}
