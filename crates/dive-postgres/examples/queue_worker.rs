//! A queue worker on a shared PostgreSQL database, the process the multi-worker and fencing
//! tests start (and kill). Offline: the model is dive-test's `FunctionModel`.
//!
//! - `queue_worker run <schema> <ttl_ms>`: takes runs until the queue is settled. Each run
//!   asks the model to pay twice; the `pay` tool records its intent in the effect journal
//!   under the engine's stable effect id, then applies the payment to a downstream `ledger`
//!   that deduplicates by that id (and logs every delivery in `deliveries`, every turn it
//!   resumes in `resumptions`).
//! - `queue_worker fence <schema> <session> <ttl_ms>`: leases one session and writes a turn
//!   every 100 ms, renewing its lease; exits 3 when a write is refused.
//!
//! The database is `DIVE_TEST_POSTGRES_URL` (default `host=127.0.0.1 user=postgres dbname=test`).

#![allow(clippy::print_stdout)]

mod worker;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use dive_core::{Message, Session, Turn};
use worker::{BoxError, Pace, downstream, store, work};

/// A spread of points inside each payment for the tests' SIGKILLs to land on.
const PACE: Pace = 5..25;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["run", schema, ttl] => serve(schema, Duration::from_millis(ttl.parse().unwrap_or(1000))).await,
        ["fence", schema, session, ttl] => {
            return fence(schema, session, Duration::from_millis(ttl.parse().unwrap_or(1000))).await;
        }
        _ => Err("usage: queue_worker run <schema> <ttl_ms> | fence <schema> <session> <ttl_ms>".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("queue_worker {}: {e}", std::process::id());
            ExitCode::FAILURE
        }
    }
}

async fn serve(schema: &str, ttl: Duration) -> Result<(), BoxError> {
    let store = store(schema).await?;
    let ledger = downstream(schema).await?;
    let queue = store.queue();
    let owner = format!("worker-{}", std::process::id());
    loop {
        queue.reap(&owner, ttl).await?;
        if let Some(run) = queue.claim(&owner, ttl).await? {
            work(&store, &ledger, run, ttl, &PACE).await?;
        } else if queue.counts().await?.is_settled() {
            return Ok(());
        } else {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

async fn fence(schema: &str, session_id: &str, ttl: Duration) -> ExitCode {
    let run = async {
        let store = store(schema).await?;
        let owner = format!("fenced-{}", std::process::id());
        let mut lease = store.lease(session_id, &owner, ttl).await?;
        println!("leased {}", lease.attempt);
        let session = store.open_leased(lease.clone())?;
        let mut renewed = Instant::now();
        for i in 0.. {
            if renewed.elapsed() >= ttl / 3 {
                match store.renew(&lease, ttl).await {
                    Ok(l) => lease = l,
                    Err(e) => println!("lease lost: {e}"),
                }
                renewed = Instant::now();
            }
            let id = format!("w-{i}");
            match session
                .save_turn(&Turn::completed(id.clone(), vec![Message::user("from the fenced worker")]))
                .await
            {
                Ok(_) => println!("wrote {id}"),
                Err(e) => {
                    println!("refused {id}: {e}");
                    return Ok::<bool, BoxError>(true);
                }
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(false)
    };
    match run.await {
        Ok(true) => ExitCode::from(3),
        Ok(false) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fence worker: {e}");
            ExitCode::FAILURE
        }
    }
}
