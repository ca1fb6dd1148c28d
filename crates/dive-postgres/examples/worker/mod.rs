//! The worker the `queue_worker` example and the `postgres` bench share: a run on the shared
//! database, with an offline model (`FunctionModel`) that pays twice through a `pay` tool
//! whose effects go through the effect journal under the engine's stable effect id.
#![allow(dead_code)] // each user takes what it needs

use std::sync::Arc;
use std::time::Duration;

use dive_agent::{Agent, CancellationToken, RunInput, RunOptions};
use dive_core::{
    Content, FunctionTool, Message, ModelResponse, Role, Session, ToolCallState, ToolContext, ToolError,
    ToolUse,
};
use dive_postgres::{ClaimedRun, Error, Intent, Lease, PostgresConfig, PostgresStore};
use dive_test::FunctionModel;
use serde::Deserialize;
use serde_json::json;

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// `DIVE_TEST_POSTGRES_URL`, default the local server.
pub fn url() -> String {
    std::env::var("DIVE_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "host=127.0.0.1 user=postgres dbname=test".into())
}

/// The downstream tables the `pay` tool writes (a payment service deduplicating by effect id).
pub const DOWNSTREAM_TABLES: &str = "CREATE TABLE IF NOT EXISTS ledger (effect_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, step INT NOT NULL, amount BIGINT NOT NULL);
    CREATE TABLE IF NOT EXISTS deliveries (effect_id TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS resumptions (run_id TEXT NOT NULL, reason TEXT NOT NULL, unknown_calls INT NOT NULL);";

pub async fn store(schema: &str) -> Result<PostgresStore, BoxError> {
    Ok(PostgresStore::connect(&PostgresConfig::new(&url())?.with_schema(schema)?.with_pool_size(4)).await?)
}

/// The downstream service the tool pays through: a connection of its own, not fenced.
pub async fn downstream(schema: &str) -> Result<Arc<tokio_postgres::Client>, BoxError> {
    let (client, connection) = tokio_postgres::connect(
        &format!("{} options='-c search_path={schema}'", url()),
        tokio_postgres::NoTls,
    )
    .await?;
    tokio::spawn(connection);
    Ok(Arc::new(client))
}

#[allow(clippy::result_large_err)] // the closure returns the model's Result
/// Pays twice, then answers: a step is done once its call has a `paid` result (a call the
/// engine answered "Unknown result" after a crash is asked again, under the same call id).
pub fn model() -> FunctionModel {
    FunctionModel::new(|request, _| {
        let prompt =
            request.messages.iter().find(|m| m.role == Role::User).map(Message::text).unwrap_or_default();
        let run = prompt.trim_start_matches("pay ").to_owned();
        let mut paid: Vec<&str> = request
            .messages
            .iter()
            .flat_map(|m| m.content.iter())
            .filter_map(Content::as_tool_result)
            .filter(|r| r.text_content().starts_with("paid"))
            .map(|r| r.tool_use_id.as_str())
            .collect();
        paid.sort_unstable();
        paid.dedup();
        let step = paid.len();
        Ok(if step < 2 {
            ModelResponse::tool_calls(vec![ToolUse::new(
                format!("pay-{step}"),
                "pay",
                json!({"run": run, "step": step, "amount": 10 + step}),
            )])
        } else {
            ModelResponse::text(format!("done {run}"))
        })
    })
}

#[derive(Deserialize, schemars::JsonSchema)]
pub struct Pay {
    run: String,
    step: i32,
    amount: i64,
}

/// How long the `pay` tool dawdles around its downstream write, in ms (a spread of points for
/// the tests to kill a worker at; the bench passes `0..1`).
pub type Pace = std::ops::Range<u64>;

async fn jitter(pace: &Pace) {
    let ms = fastrand::u64(pace.clone());
    if ms > 0 {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}

pub fn pay_tool(
    store: &PostgresStore,
    ledger: &Arc<tokio_postgres::Client>,
    lease: &Lease,
    pace: &Pace,
) -> FunctionTool {
    let pace = pace.clone();
    let (effects, ledger, lease) = (store.effects(), Arc::clone(ledger), lease.clone());
    FunctionTool::new("pay", "Pays an amount for a run.", move |pay: Pay, ctx: ToolContext| {
        let (effects, ledger, lease, pace) =
            (effects.clone(), Arc::clone(&ledger), lease.clone(), pace.clone());
        async move {
            let effect_id = ctx.effect_id().to_owned();
            if let Intent::Done(done) =
                effects.begin(&effect_id, Some(&lease)).await.map_err(ToolError::from_error)?
            {
                return Ok(format!("paid {}", done["paid"]));
            }
            jitter(&pace).await;
            ledger
                .execute("INSERT INTO deliveries (effect_id) VALUES ($1)", &[&effect_id])
                .await
                .map_err(ToolError::from_error)?;
            ledger
                .execute(
                    "INSERT INTO ledger (effect_id, run_id, step, amount) VALUES ($1, $2, $3, $4)
                     ON CONFLICT (effect_id) DO NOTHING",
                    &[&effect_id, &pay.run, &pay.step, &pay.amount],
                )
                .await
                .map_err(ToolError::from_error)?;
            jitter(&pace).await;
            effects
                .finish(&effect_id, &json!({"paid": pay.amount}), Some(&lease))
                .await
                .map_err(ToolError::from_error)?;
            Ok::<_, ToolError>(format!("paid {}", pay.amount))
        }
    })
}

/// Runs one claimed run to its end: renews its lease, resumes an open turn in place (or finds it
/// already answered), completes it; a run taken over meanwhile is left to its new holder.
pub async fn work(
    store: &PostgresStore,
    ledger: &Arc<tokio_postgres::Client>,
    run: ClaimedRun,
    ttl: Duration,
    pace: &Pace,
) -> Result<(), BoxError> {
    let queue = store.queue();
    let session = store.open_leased(run.lease.clone())?;
    let lost = CancellationToken::new();
    let renewer = tokio::spawn({
        let (queue, run, lost) = (queue.clone(), run.clone(), lost.clone());
        async move {
            loop {
                tokio::time::sleep(ttl / 3).await;
                if queue.renew(&run, ttl).await.is_err() {
                    lost.cancel(); // taken over: stop at once, every later write is refused anyway
                    return;
                }
            }
        }
    });
    let outcome = run_turn(store, ledger, &run, session, &lost, pace).await;
    renewer.abort();
    match outcome {
        Ok(answer) => match queue.complete(&run, &json!({ "answer": answer })).await {
            Ok(()) | Err(Error::LeaseLost { .. }) => Ok(()),
            Err(e) => Err(e.into()),
        },
        Err(_) if lost.is_cancelled() => Ok(()),
        Err(e) => {
            eprintln!("run {} failed: {e}", run.id);
            queue.fail(&run, &e.to_string()).await.or_else(|e| match e {
                Error::LeaseLost { .. } => Ok(()),
                e => Err(e),
            })?;
            Ok(())
        }
    }
}

async fn run_turn(
    store: &PostgresStore,
    ledger: &Arc<tokio_postgres::Client>,
    run: &ClaimedRun,
    session: Arc<dive_postgres::PostgresSession>,
    lost: &CancellationToken,
    pace: &Pace,
) -> Result<String, BoxError> {
    let snapshot = session.load().await?;
    let input = if let Some(open) = &snapshot.open_turn {
        // Resumed after a lost worker: pick the turn up in place (logged for the test).
        let reason = snapshot.latest_outcome.as_ref().map(|o| format!("{:?}", o.reason)).unwrap_or_default();
        let unknown = open.tool_calls.iter().filter(|c| c.state == ToolCallState::Unknown).count();
        let unknown = i32::try_from(unknown).unwrap_or(i32::MAX);
        ledger
            .execute(
                "INSERT INTO resumptions (run_id, reason, unknown_calls) VALUES ($1, $2, $3)",
                &[&run.id, &reason, &unknown],
            )
            .await?;
        RunInput::continue_turn(vec![])
    } else if let Some(last) = snapshot.history.last() {
        return Ok(last.text()); // finished before the last worker could complete the run
    } else {
        RunInput::text(run.input["prompt"].as_str().unwrap_or_default())
    };
    let agent = Agent::builder()
        .model(model())
        .tool(pay_tool(store, ledger, &run.lease, pace))
        .checkpoint_steps(true)
        .build()?;
    let session: Arc<dyn Session> = session;
    let response = agent.run(RunOptions::from(input).with_session(session).with_cancel(lost.clone())).await?;
    Ok(response.output_text())
}
