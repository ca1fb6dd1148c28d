//! The PostgreSQL store against a real server: the public conformance suite, versioned
//! migrations (on open and out of band), leases fenced by attempt numbers, the effect journal
//! and the run queue with reaping. Each store lives in a schema of its own, dropped after.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::cell::RefCell;
use std::time::Duration;

use common::TestSchema;
use dive_core::{
    Message, OutcomeReason, Session, SessionError, SessionStore, ToolCallRecord, ToolCallState, Turn,
    TurnStatus,
};
use dive_postgres::{Delivery, Error, Intent, NewRun, PostgresStore, RunStatus};
use dive_test::conformance::session_store_conformance;
use serde_json::json;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

async fn store(schema: &TestSchema) -> PostgresStore {
    PostgresStore::connect(&schema.config()).await.unwrap()
}

#[test]
fn postgres_store_passes_the_conformance_suite() {
    if !common::available("postgres_store_passes_the_conformance_suite") {
        return;
    }
    let rt = runtime();
    let handle = rt.handle().clone();
    let schemas: RefCell<Vec<TestSchema>> = RefCell::default();
    let report = rt.block_on(session_store_conformance(|| {
        let schema = TestSchema::new("conformance");
        let config = schema.config();
        schemas.borrow_mut().push(schema);
        // The suite makes stores synchronously; connect on a thread outside the runtime.
        std::thread::scope(|s| s.spawn(|| handle.block_on(PostgresStore::connect(&config))).join().unwrap())
            .unwrap()
    }));
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    assert!(report.passed.len() >= 14, "{:?}", report.passed);
}

#[test]
fn migrations_run_once_on_open_or_out_of_band_and_a_newer_schema_is_refused() {
    if !common::available("migrations") {
        return;
    }
    runtime().block_on(async {
        let schema = TestSchema::new("migrations");
        let manual = schema.config().with_migrate_on_open(false);
        let refused = PostgresStore::connect(&manual).await.unwrap_err();
        assert!(matches!(refused, Error::SchemaVersion { found: 0, .. }), "{refused}");
        assert_eq!(dive_postgres::migrate(&manual).await.unwrap(), 1, "out of band: the first migration");
        assert_eq!(dive_postgres::migrate(&manual).await.unwrap(), 0, "applied once");
        let s = PostgresStore::connect(&manual).await.unwrap();
        assert_eq!(s.schema_version().await.unwrap(), dive_postgres::latest_version());
        // Four workers opening at once migrate once (they take turns on an advisory lock).
        let racing = TestSchema::new("migration_race");
        let opens: Vec<_> = (0..4)
            .map(|_| {
                let config = racing.config();
                tokio::spawn(async move { PostgresStore::connect(&config).await })
            })
            .collect();
        for open in opens {
            open.await.unwrap().unwrap();
        }
        let versions = racing.execute("SELECT version FROM dive_migrations").await;
        assert_eq!(versions.len(), 1);
        dive_postgres::drop_schema(&racing.config()).await.unwrap();
        let left =
            schema.execute(&format!("SELECT 1 FROM pg_namespace WHERE nspname = '{}'", racing.name)).await;
        assert!(left.is_empty(), "drop_schema removed the schema");
        let unnamed = dive_postgres::PostgresConfig::new(&common::url()).unwrap();
        assert!(
            matches!(dive_postgres::drop_schema(&unnamed).await, Err(Error::Config(_))),
            "never the default schema"
        );
        schema.execute("INSERT INTO dive_migrations (version) VALUES (99)").await;
        for config in [schema.config(), manual] {
            let newer = PostgresStore::connect(&config).await.unwrap_err();
            assert!(matches!(newer, Error::SchemaVersion { found: 99, .. }), "{newer}");
        }
    });
}

#[test]
fn a_lease_taken_over_fences_every_write_of_the_old_holder() {
    if !common::available("fencing") {
        return;
    }
    runtime().block_on(async {
        let schema = TestSchema::new("fencing");
        let store = store(&schema).await;
        let a = store.lease("job", "worker-a", Duration::from_secs(1)).await.unwrap();
        assert_eq!(a.attempt, 1);
        let renewed = store.lease("job", "worker-a", Duration::from_secs(1)).await.unwrap();
        assert_eq!(renewed.attempt, 1, "renewal by the holder keeps the attempt");
        let refused = store.lease("job", "worker-b", Duration::from_secs(5)).await.unwrap_err();
        assert!(
            matches!(refused, Error::Session(SessionError::Claimed { ref owner, .. }) if owner == "worker-a"),
            "{refused}"
        );
        let old = store.open_leased(a.clone()).unwrap();
        old.save_turn(&Turn::completed("by-a", vec![Message::user("a")])).await.unwrap();
        tokio::time::sleep(Duration::from_millis(1100)).await; // a's lease lapses
        let b = store.lease("job", "worker-b", Duration::from_secs(5)).await.unwrap();
        assert_eq!(b.attempt, 2, "a takeover raises the attempt");
        let stale = old.save_turn(&Turn::completed("late-a", vec![Message::user("late")])).await;
        assert!(
            matches!(stale, Err(SessionError::Claimed { ref owner, .. }) if owner == "worker-b"),
            "{stale:?}"
        );
        let lost = store.renew(&a, Duration::from_secs(5)).await.unwrap_err();
        assert!(
            matches!(lost, Error::LeaseLost { attempt: 1, ref holder, .. } if holder == "worker-b"),
            "{lost}"
        );
        let new = store.open_leased(b.clone()).unwrap();
        new.save_turn(&Turn::completed("by-b", vec![Message::user("b")])).await.unwrap();
        let extended = new.renew(Duration::from_secs(10)).await.unwrap();
        assert!(extended.attempt == b.attempt && extended.expires_at > b.expires_at, "{extended:?}");
        assert!(matches!(old.renew(Duration::from_secs(10)).await, Err(Error::LeaseLost { .. })));
        let doc = new.as_history().unwrap().document().await.unwrap();
        let ids: Vec<_> = doc.turns().into_iter().map(|t| t.id).collect();
        assert_eq!(ids, ["by-a", "by-b"], "the stale write never landed");
        // Released and taken again: the attempt still only grows.
        store.release(&b).await.unwrap();
        let stale_b = new.save_turn(&Turn::completed("after-release", vec![])).await;
        assert!(matches!(stale_b, Err(SessionError::Claimed { .. })), "{stale_b:?}");
        assert_eq!(store.lease("job", "worker-a", Duration::from_secs(5)).await.unwrap().attempt, 3);
    });
}

#[test]
fn effects_are_recorded_before_they_run_and_delivered_idempotently() {
    if !common::available("effects") {
        return;
    }
    runtime().block_on(async {
        let schema = TestSchema::new("effects");
        let store = store(&schema).await;
        let effects = store.effects();
        let lease = store.lease("pay", "worker-a", Duration::from_secs(5)).await.unwrap();
        assert_eq!(effects.begin("pay/t1/c1", Some(&lease)).await.unwrap(), Intent::New);
        let pending = schema.execute("SELECT status FROM effects WHERE effect_id = 'pay/t1/c1'").await;
        assert_eq!(pending[0].get::<_, &str>(0), "pending", "the intent is committed before the effect runs");
        assert_eq!(
            effects.begin("pay/t1/c1", Some(&lease)).await.unwrap(),
            Intent::Unfinished { earlier_attempt: Some(1) },
            "a second attempt learns the first may have acted"
        );
        let paid = json!({"charged": 42});
        assert_eq!(effects.finish("pay/t1/c1", &paid, Some(&lease)).await.unwrap(), Delivery::Recorded);
        assert_eq!(effects.finish("pay/t1/c1", &paid, Some(&lease)).await.unwrap(), Delivery::Duplicate);
        let conflict = effects.finish("pay/t1/c1", &json!({"charged": 43}), Some(&lease)).await.unwrap_err();
        assert!(matches!(conflict, Error::EffectConflict { .. }), "{conflict}");
        assert_eq!(
            effects.result("pay/t1/c1").await.unwrap(),
            Some(paid.clone()),
            "the conflict changed nothing"
        );
        assert_eq!(effects.begin("pay/t1/c1", Some(&lease)).await.unwrap(), Intent::Done(paid));
        let unknown = effects.finish("pay/t1/never", &json!(1), None).await.unwrap_err();
        assert!(matches!(unknown, Error::NoIntent(_)), "{unknown}");
        // Fenced: after a takeover the old holder cannot record an intent.
        store.release(&lease).await.unwrap();
        store.lease("pay", "worker-b", Duration::from_secs(5)).await.unwrap();
        let fenced = effects.begin("pay/t1/c2", Some(&lease)).await.unwrap_err();
        assert!(matches!(fenced, Error::LeaseLost { .. }), "{fenced}");
        assert!(schema.execute("SELECT 1 FROM effects WHERE effect_id = 'pay/t1/c2'").await.is_empty());
    });
}

#[test]
fn the_queue_hands_each_run_to_one_worker_and_reaps_lapsed_leases() {
    if !common::available("queue") {
        return;
    }
    runtime().block_on(async {
        let schema = TestSchema::new("queue");
        let store = store(&schema).await;
        let queue = store.queue();
        assert!(queue.submit(&NewRun::new("r1", "s1", json!({"prompt": "one"}))).await.unwrap());
        assert!(!queue.submit(&NewRun::new("r1", "s1", json!({"prompt": "again"}))).await.unwrap());
        queue.submit(&NewRun::new("r2", "s1", json!({"prompt": "two"}))).await.unwrap();
        queue.submit(&NewRun::new("r3", "s3", json!({"prompt": "three"}))).await.unwrap();
        let ttl = Duration::from_secs(1);
        let first = queue.claim("w1", ttl).await.unwrap().unwrap();
        assert_eq!((first.id.as_str(), first.deliveries), ("r1", 1));
        assert_eq!(first.input, json!({"prompt": "one"}));
        let second = queue.claim("w2", ttl).await.unwrap().unwrap();
        assert_eq!(second.id, "r3", "r2's session is leased to w1: skipped, not waited for");
        assert!(queue.claim("w3", ttl).await.unwrap().is_none());
        queue.complete(&second, &json!({"answer": "three"})).await.unwrap();

        // w1 records a running turn with a running call, then goes silent.
        let session = store.open_leased(first.lease.clone()).unwrap();
        let mut turn = Turn::new("t1", vec![Message::user("one")]);
        turn.tool_calls.push(ToolCallRecord::new("c1", "pay", ToolCallState::Running));
        session.save_turn(&turn).await.unwrap();
        assert!(queue.reap("reaper", ttl).await.unwrap().is_empty(), "a live lease is not reaped");
        tokio::time::sleep(Duration::from_millis(1100)).await;
        assert!(
            queue.claim("w3", ttl).await.unwrap().is_none(),
            "r2 waits: its session's run r1 is still running (lapsed, not yet reaped)"
        );
        assert_eq!(queue.reap("reaper", ttl).await.unwrap(), ["r1"]);
        let recovered = store.open("s1").await.unwrap().load().await.unwrap();
        let open = recovered.open_turn.expect("the recovered turn stays open to be continued");
        assert_eq!(open.status, TurnStatus::Incomplete);
        assert_eq!(
            recovered.latest_outcome.as_ref().map(|o| o.reason.clone()),
            Some(OutcomeReason::ProcessExit)
        );
        assert_eq!(open.tool_calls[0].state, ToolCallState::Unknown, "the running call may have acted");

        let resumed = queue.claim("w2", ttl).await.unwrap().unwrap();
        assert_eq!((resumed.id.as_str(), resumed.deliveries), ("r1", 2));
        assert!(resumed.lease.attempt > first.lease.attempt);
        let late = queue.complete(&first, &json!({"answer": "late"})).await.unwrap_err();
        assert!(matches!(late, Error::LeaseLost { .. }), "{late}");
        let stale = session.save_turn(&Turn::completed("t1", vec![Message::user("late")])).await;
        assert!(matches!(stale, Err(SessionError::Claimed { .. })), "{stale:?}");
        queue.complete(&resumed, &json!({"answer": "one"})).await.unwrap();
        let record = queue.run("r1").await.unwrap().unwrap();
        assert_eq!((record.status, record.result), (RunStatus::Done, Some(json!({"answer": "one"}))));
        let next = queue.claim("w3", ttl).await.unwrap().unwrap();
        assert_eq!(next.id, "r2", "r1 released its session");
        queue.fail(&next, "gave up").await.unwrap();
        let counts = queue.counts().await.unwrap();
        assert_eq!((counts.done, counts.failed, counts.is_settled()), (2, 1, true));
    });
}

#[test]
fn the_engine_hands_each_tool_call_a_stable_effect_id() {
    if !common::available("effect_id") {
        return;
    }
    use dive_agent::Agent;
    use dive_core::{FunctionTool, ModelResponse, ToolContext, ToolError, ToolUse};
    use std::sync::{Arc, Mutex};

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Nothing {}

    runtime().block_on(async {
        let schema = TestSchema::new("effect_id");
        let store = store(&schema).await;
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let record = Arc::clone(&seen);
        let tool = FunctionTool::new("act", "Acts.", move |_: Nothing, ctx: ToolContext| {
            record.lock().unwrap().push(ctx.effect_id().to_owned());
            async { Ok::<_, ToolError>("done") }
        });
        let model = dive_test::ScriptedModel::new([
            ModelResponse::tool_calls(vec![ToolUse::new("call-1", "act", json!({}))]),
            ModelResponse::text("ok"),
        ]);
        let session = store.open("chat").await.unwrap();
        let agent = Agent::builder().model(model).tool(tool).session(Arc::clone(&session)).build().unwrap();
        agent.run("go").await.unwrap();
        let turn = session.as_history().unwrap().document().await.unwrap().turns().remove(0);
        assert_eq!(*seen.lock().unwrap(), [format!("chat/{}/call-1", turn.id)]);
    });
}
