//! Scale-out on PostgreSQL: a queue of runs shared by two workers, every write fenced by the
//! worker's lease, a tool whose effect is journalled under the engine's stable effect id, and
//! a stale worker refused after a takeover. Offline (a function model, no key); needs the
//! database `DIVE_POSTGRES_URL` (default the local server `host=127.0.0.1 user=postgres
//! dbname=test`), in a schema of its own dropped at the end. Without a reachable server it
//! says so and stops (under `CI=true` it fails).
//!
//! Run with `cargo run -p dive-examples --example scale_out`.
#![allow(clippy::print_stdout)]

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use dive::postgres::{Intent, NewRun, PostgresConfig, PostgresStore};
use dive::{Agent, FunctionTool, ModelResponse, RunOptions, Session, ToolContext, ToolError, ToolUse, Turn};
use dive_test::FunctionModel;
use serde_json::json;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Notify {
    to: String,
}

/// Calls `notify` once, then answers.
#[allow(clippy::result_large_err)] // the closure returns the model's Result
fn model() -> FunctionModel {
    FunctionModel::new(|request, _| {
        let answered =
            request.messages.iter().any(|m| m.content.iter().any(|c| c.as_tool_result().is_some()));
        Ok(if answered {
            ModelResponse::text("notified")
        } else {
            ModelResponse::tool_calls(vec![ToolUse::new("call-1", "notify", json!({"to": "ops"}))])
        })
    })
}

async fn worker(store: PostgresStore, name: &'static str) -> Result<u32, BoxError> {
    let (queue, ttl, mut done) = (store.queue(), Duration::from_secs(10), 0);
    while let Some(run) = queue.claim(name, ttl).await? {
        let session = store.open_leased(run.lease.clone())?;
        let (effects, lease) = (store.effects(), run.lease.clone());
        let notify =
            FunctionTool::new("notify", "Notifies someone.", move |notify: Notify, ctx: ToolContext| {
                let (effects, lease) = (effects.clone(), lease.clone());
                async move {
                    let id = ctx.effect_id().to_owned(); // the idempotency key to pass downstream
                    if let Intent::Done(result) =
                        effects.begin(&id, Some(&lease)).await.map_err(ToolError::from_error)?
                    {
                        return Ok(result.to_string());
                    }
                    let result = json!({"sent_to": notify.to, "key": id});
                    effects.finish(&id, &result, Some(&lease)).await.map_err(ToolError::from_error)?;
                    Ok::<_, ToolError>(result.to_string())
                }
            });
        let agent = Agent::builder().model(model()).tool(notify).checkpoint_steps(true).build()?;
        let prompt = run.input["prompt"].as_str().unwrap_or_default().to_owned();
        let session: Arc<dyn Session> = session;
        let response = agent.run(RunOptions::text(prompt).with_session(session)).await?;
        queue.complete(&run, &json!({"answer": response.output_text(), "by": name})).await?;
        done += 1;
    }
    Ok(done)
}

async fn demo(store: PostgresStore) -> Result<(), BoxError> {
    let queue = store.queue();
    for i in 0..6 {
        queue
            .submit(&NewRun::new(format!("run-{i}"), format!("ticket-{i}"), json!({"prompt": "tell ops"})))
            .await?;
    }
    let (a, b) = tokio::join!(worker(store.clone(), "worker-a"), worker(store.clone(), "worker-b"));
    let (a, b) = (a?, b?);
    println!("worker-a completed {a} runs, worker-b {b}; queue: {:?}", queue.counts().await?);
    let effect =
        store.effects().result(&format!("ticket-0/{}/call-1", first_turn(&store, "ticket-0").await?)).await?;
    println!("effect of ticket-0's call, recorded once: {}", effect.unwrap_or_default());

    // Fencing: a worker whose lease lapsed is refused once another took the session over.
    let old = store.lease("ticket-0", "slow-worker", Duration::from_millis(50)).await?;
    tokio::time::sleep(Duration::from_millis(80)).await;
    let new = store.lease("ticket-0", "fast-worker", Duration::from_secs(10)).await?;
    let stale = store.open_leased(old.clone())?.save_turn(&Turn::completed("late", vec![])).await;
    println!(
        "attempt {} took over from attempt {}; the stale write: {}",
        new.attempt,
        old.attempt,
        match stale {
            Ok(_) => "landed (wrong!)".to_owned(),
            Err(e) => format!("refused ({e})"),
        }
    );
    Ok(())
}

async fn first_turn(store: &PostgresStore, session: &str) -> Result<String, BoxError> {
    let doc =
        dive::SessionStore::open(store, session).await?.as_history().ok_or("no history")?.document().await?;
    Ok(doc.turns().first().map(|t| t.id.clone()).unwrap_or_default())
}

#[tokio::main]
async fn main() -> ExitCode {
    let url = std::env::var(dive::postgres::URL_VAR)
        .unwrap_or_else(|_| "host=127.0.0.1 user=postgres dbname=test".into());
    let schema = format!("dive_example_scale_out_{}", std::process::id());
    let config = match PostgresConfig::new(&url).and_then(|c| c.with_schema(schema)) {
        Ok(config) => config,
        Err(e) => {
            println!("bad {}: {e}", dive::postgres::URL_VAR);
            return ExitCode::FAILURE;
        }
    };
    let store = match PostgresStore::connect(&config).await {
        Ok(store) => store,
        Err(e @ dive::postgres::Error::Pool(_)) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            println!("scale_out: PostgreSQL at {url:?} is unreachable under CI=true: {e}");
            return ExitCode::FAILURE;
        }
        Err(e @ dive::postgres::Error::Pool(_)) => {
            println!(
                "scale_out needs PostgreSQL ({url:?}, or set {}); skipped: {e}",
                dive::postgres::URL_VAR
            );
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            println!("scale_out: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = demo(store).await;
    let dropped = dive::postgres::drop_schema(&config).await;
    match (result, dropped) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(e), _) => {
            println!("scale_out failed: {e}");
            ExitCode::FAILURE
        }
        (_, Err(e)) => {
            println!("scale_out could not drop its schema: {e}");
            ExitCode::FAILURE
        }
    }
}
