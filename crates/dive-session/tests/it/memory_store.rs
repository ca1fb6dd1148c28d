//! The in-memory store follows the turn-record rules every store shares.

use std::sync::Arc;
use std::time::Duration;

use dive_core::{
    BoxFuture, ListOptions, Message, NextStep, OutcomeReason, Session, SessionError, SessionPage,
    SessionSnapshot, SessionStore, StoreCapabilities, ToolCallRecord, ToolCallState, Turn, TurnOutcome,
    TurnStatus,
};
use dive_session::{MemorySession, MemoryStore};
use dive_test::conformance::session_store_conformance;
use futures::executor::block_on;

fn incomplete(id: &str) -> Turn {
    let mut t = Turn::new(id, vec![Message::user("go")]);
    t.close(TurnOutcome::new(OutcomeReason::OutputLimit, vec![]));
    t
}

#[test]
fn revisions_advance_and_stale_checkpoints_are_refused() {
    let s = MemorySession::new("s1");
    let store = s.as_turn_store_for_test();
    assert_eq!(
        block_on(store.checkpoint_turn(0, &Turn::completed("t1", vec![Message::user("a")]))).unwrap(),
        1
    );
    let err = block_on(store.checkpoint_turn(0, &Turn::completed("t2", vec![]))).unwrap_err();
    assert!(matches!(err, SessionError::RevisionConflict { expected: 0, actual: 1, .. }));
    let snap = block_on(store.load()).unwrap();
    assert_eq!((snap.revision, snap.history.len()), (1, 1));
}

#[test]
fn open_turn_is_replaced_then_superseded() {
    let s = MemorySession::new("s2");
    let store = s.as_turn_store_for_test();
    block_on(store.save_turn(&incomplete("t1"))).unwrap();
    let mut continued = incomplete("t1");
    continued.messages.push(Message::assistant("more"));
    block_on(store.save_turn(&continued)).unwrap();
    let snap = block_on(store.load()).unwrap();
    assert_eq!(snap.open_turn.as_ref().map(|t| t.messages.len()), Some(2));
    block_on(store.save_turn(&Turn::completed("t2", vec![Message::user("new")]))).unwrap();
    let turns = s.turns();
    assert_eq!(turns.len(), 2);
    assert!(turns[0].superseded);
    let closed_again = block_on(store.save_turn(&Turn::completed("t1", vec![]))).unwrap_err();
    assert!(matches!(closed_again, SessionError::Rejected(_)));
}

#[test]
fn running_turn_is_closed_as_process_exit_on_load() {
    let s = MemorySession::new("s3");
    let store = s.as_turn_store_for_test();
    let mut running = Turn::new("t1", vec![Message::user("deploy")]);
    running.tool_calls = vec![ToolCallRecord::new("c1", "bash", ToolCallState::Running)];
    block_on(store.save_turn(&running)).unwrap();
    let snap = block_on(store.load()).unwrap();
    let turn = snap.open_turn.unwrap();
    assert_eq!(turn.status, TurnStatus::Incomplete);
    let outcome = turn.outcome.unwrap();
    assert_eq!(outcome.reason, OutcomeReason::ProcessExit);
    assert_eq!(outcome.tool_calls[0].state, ToolCallState::Unknown);
    assert_eq!(outcome.next, NextStep::Reconcile);
}

#[test]
fn claims_exclude_other_owners_until_expiry() {
    let s = MemorySession::new("s4");
    use dive_core::SessionClaimer;
    block_on(s.claim("a", Duration::from_secs(30))).unwrap();
    assert!(matches!(block_on(s.claim("b", Duration::from_secs(30))), Err(SessionError::Claimed { .. })));
    block_on(s.release("a")).unwrap();
    block_on(s.claim("b", Duration::from_millis(1))).unwrap();
    std::thread::sleep(Duration::from_millis(5));
    block_on(s.claim("a", Duration::from_secs(1))).unwrap();
}

#[test]
fn store_opens_lists_and_deletes() {
    let store = MemoryStore::new();
    assert!(matches!(block_on(store.open("../x")), Err(SessionError::InvalidId { .. })));
    let a = block_on(store.open("a")).unwrap();
    block_on(a.save_turn(&Turn::completed("t", vec![Message::user("hi")]))).unwrap();
    let again = block_on(store.open("a")).unwrap();
    assert_eq!(block_on(again.load()).unwrap().revision, 1, "handles share one session");
    block_on(store.open("b")).unwrap();
    let page = block_on(store.list(&ListOptions::page(0, 1))).unwrap();
    assert_eq!((page.total, page.sessions.len()), (2, 1));
    block_on(store.delete("a")).unwrap();
    assert_eq!(block_on(store.list(&ListOptions::all())).unwrap().total, 1);
}

trait ForTest {
    fn as_turn_store_for_test(&self) -> &dyn dive_core::TurnStore;
}

impl ForTest for MemorySession {
    #[allow(clippy::expect_used)] // test helper
    fn as_turn_store_for_test(&self) -> &dyn dive_core::TurnStore {
        use dive_core::Session;
        self.as_turn_store().expect("memory sessions are turn stores")
    }
}

#[test]
fn memory_store_passes_the_conformance_suite() {
    let report = block_on(session_store_conformance(MemoryStore::new));
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    assert_eq!(report.passed.len(), 14, "every check ran: {:?}", report.passed);
}

/// A store whose sessions offer none of the optional interfaces: `MemoryStore`'s sessions
/// behind a bare [`Session`], declaring what the test says, to check how the suite treats
/// capabilities.
struct Bare(MemoryStore, StoreCapabilities);

struct BareSession(Arc<dyn Session>);

impl Session for BareSession {
    fn id(&self) -> &str {
        self.0.id()
    }
    fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
        self.0.load()
    }
    fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
        self.0.save_turn(turn)
    }
}

impl SessionStore for Bare {
    fn capabilities(&self) -> StoreCapabilities {
        self.1
    }
    fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        Box::pin(async move { Ok(Arc::new(BareSession(self.0.open(id).await?)) as Arc<dyn Session>) })
    }
    fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
        self.0.list(options)
    }
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        self.0.delete(id)
    }
}

fn bare() -> Bare {
    Bare(MemoryStore::new(), StoreCapabilities::none())
}

/// `MemoryStore` itself, declaring only turn store and claims.
struct Underdeclared(MemoryStore);

impl SessionStore for Underdeclared {
    fn capabilities(&self) -> StoreCapabilities {
        StoreCapabilities::none().with_turn_store().with_claims()
    }
    fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        self.0.open(id)
    }
    fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
        self.0.list(options)
    }
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        self.0.delete(id)
    }
}

/// The panic message of a suite run that must fail.
#[allow(clippy::unwrap_used, clippy::expect_used)] // test helper
fn failure(run: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let err = std::panic::catch_unwind(run).expect_err("the suite must fail");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap()
}

#[test]
fn undeclared_capabilities_are_skipped_and_reported() {
    let report = block_on(session_store_conformance(bare));
    assert_eq!(report.declared, StoreCapabilities::none(), "the suite reads what the store declares");
    let skipped: Vec<(&str, &str)> = report.skipped.iter().map(|s| (s.check, s.capability)).collect();
    assert_eq!(
        skipped,
        [
            ("revisions", "turn store"),
            ("claims", "claims"),
            ("concurrent_writers", "turn store"),
            ("history", "history"),
            ("compaction", "history"),
            ("remove_last_turn", "history"),
            ("fork", "fork"),
            ("export_import", "import"),
        ]
    );
    assert_eq!(report.passed, ["round_trip", "open_turns", "suspension", "recovery", "listing", "ids"]);
    assert_eq!(
        report.skipped[0].to_string(),
        "skipped `revisions`: the store declares no turn store capability"
    );
}

#[test]
fn a_declared_capability_the_store_lacks_fails_the_suite() {
    for (declared, capability) in [
        (StoreCapabilities::none().with_turn_store(), "turn store"),
        (StoreCapabilities::none().with_claims(), "claims"),
        (StoreCapabilities::none().with_history(), "history"),
    ] {
        let store = move || Bare(MemoryStore::new(), declared);
        let message = failure(move || drop(block_on(session_store_conformance(store))));
        assert!(message.contains(&format!("declares the {capability} capability")), "{message}");
    }
}

#[test]
fn an_offered_capability_left_undeclared_fails_the_suite() {
    let store = || Underdeclared(MemoryStore::new());
    let message = failure(move || drop(block_on(session_store_conformance(store))));
    assert!(message.contains("history capability") && message.contains("declare it"), "{message}");
}

#[test]
fn an_undeclared_operation_the_store_performs_fails_the_suite() {
    // Offers history and imports, declares history but not import: the suite probes import
    // and fails because it worked.
    struct NoImportDeclared(MemoryStore);
    impl SessionStore for NoImportDeclared {
        fn capabilities(&self) -> StoreCapabilities {
            let every_but_import = StoreCapabilities::none().with_turn_store().with_claims().with_history();
            every_but_import.with_compaction().with_fork()
        }
        fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
            self.0.open(id)
        }
        fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
            self.0.list(options)
        }
        fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
            self.0.delete(id)
        }
        fn import<'a>(
            &'a self,
            document: &'a dive_core::SessionDocument,
        ) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
            self.0.import(document)
        }
    }
    let message =
        failure(|| drop(block_on(session_store_conformance(|| NoImportDeclared(MemoryStore::new())))));
    assert!(message.contains("declares no import capability but did it anyway"), "{message}");
}

/// `MemoryStore` behind sessions that break one rule: a refusal of `save_turn` matching
/// `breaks` is reported as a success.
struct RuleBreaker(MemoryStore, fn(&SessionError) -> bool);

struct RuleBreakingSession(Arc<dyn Session>, fn(&SessionError) -> bool);

impl Session for RuleBreakingSession {
    fn id(&self) -> &str {
        self.0.id()
    }
    fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
        self.0.load()
    }
    fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
        Box::pin(async move {
            match self.0.save_turn(turn).await {
                Err(e) if (self.1)(&e) => Ok(0),
                other => other,
            }
        })
    }
}

impl SessionStore for RuleBreaker {
    fn capabilities(&self) -> StoreCapabilities {
        StoreCapabilities::none()
    }
    fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        let breaks = self.1;
        Box::pin(async move {
            Ok(Arc::new(RuleBreakingSession(self.0.open(id).await?, breaks)) as Arc<dyn Session>)
        })
    }
    fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
        self.0.list(options)
    }
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
        self.0.delete(id)
    }
}

#[test]
fn a_store_that_records_a_closed_turn_again_fails_by_the_rule_s_name() {
    let breaks: fn(&SessionError) -> bool = |e| matches!(e, SessionError::Rejected(_));
    let message = failure(move || {
        drop(block_on(session_store_conformance(|| RuleBreaker(MemoryStore::new(), breaks))))
    });
    assert!(message.contains("rule `closed turns are never recorded again`"), "{message}");
}

#[test]
fn a_store_that_appends_while_suspended_fails_by_the_rule_s_name() {
    let breaks: fn(&SessionError) -> bool = |e| matches!(e, SessionError::Suspended(_));
    let message = failure(move || {
        drop(block_on(session_store_conformance(|| RuleBreaker(MemoryStore::new(), breaks))))
    });
    assert!(message.contains("rule `refuse while suspended`"), "{message}");
}

#[test]
fn a_session_that_misreports_its_capabilities_fails_the_suite() {
    struct Boasting(Arc<dyn Session>);
    impl Session for Boasting {
        fn id(&self) -> &str {
            self.0.id()
        }
        fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>> {
            self.0.load()
        }
        fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>> {
            self.0.save_turn(turn)
        }
        fn capabilities(&self) -> StoreCapabilities {
            StoreCapabilities::none().with_turn_store() // but no as_turn_store()
        }
    }
    struct BoastingStore(MemoryStore);
    impl SessionStore for BoastingStore {
        fn capabilities(&self) -> StoreCapabilities {
            StoreCapabilities::none()
        }
        fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
            Box::pin(async move { Ok(Arc::new(Boasting(self.0.open(id).await?)) as Arc<dyn Session>) })
        }
        fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>> {
            self.0.list(options)
        }
        fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>> {
            self.0.delete(id)
        }
    }
    let message = failure(|| drop(block_on(session_store_conformance(|| BoastingStore(MemoryStore::new())))));
    assert!(message.contains("Session::capabilities() reports turn store = true"), "{message}");
}
