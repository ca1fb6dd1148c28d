//! A conformance suite for [`SessionStore`] implementations: every store in this workspace
//! passes it, and third-party store authors can run it on theirs.
//!
//! Call [`session_store_conformance`] from a test with any executor and a function that
//! makes a fresh, empty store each time. The suite reads what the store declares
//! ([`SessionStore::capabilities`]) and checks it: the rules of the [`Session`] contract that
//! every store keeps, each declared capability (a store that lacks one fails), and that
//! nothing undeclared is offered (an undeclared interface a session offers fails; an
//! undeclared operation must be refused). Checks of undeclared capabilities are skipped, each
//! with a printed line saying why, and listed in the returned [`ConformanceReport`].
//!
//! ```
//! use dive_test::conformance::session_store_conformance;
//!
//! async fn check_my_store<S: dive_core::SessionStore>(make_store: impl Fn() -> S) {
//!     let report = session_store_conformance(make_store).await;
//!     for skipped in &report.skipped {
//!         println!("{skipped}"); // e.g. "skipped `fork`: the store declares no fork capability"
//!     }
//! }
//! ```

use std::time::Duration;

use dive_core::{
    Content, ForkOptions, ListOptions, Message, OutcomeReason, Role, Session, SessionDocument, SessionEdit,
    SessionError, SessionStore, StoreCapabilities, ToolCallRecord, ToolCallState, Turn, TurnOutcome,
    TurnStatus, Usage,
};

/// A check the suite did not run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skipped {
    /// The check (`revisions`, `claims`, `fork`, …).
    pub check: &'static str,
    /// The capability it needs (`turn store`, `claims`, `history`, `compaction`, `fork`,
    /// `import`).
    pub capability: &'static str,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "skipped `{}`: the store declares no {} capability", self.check, self.capability)
    }
}

/// What the suite ran and skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConformanceReport {
    /// What the store declared (and the suite checked).
    pub declared: StoreCapabilities,
    /// The checks that ran.
    pub passed: Vec<&'static str>,
    /// The checks skipped, with why.
    pub skipped: Vec<Skipped>,
}

/// The suite's running state: the declared capabilities and the report so far.
struct Run {
    declared: StoreCapabilities,
    report: ConformanceReport,
}

impl Run {
    /// Whether `check` runs: yes when `capability` is declared and present; a declared one
    /// that is missing, or a present one that is not declared, fails the suite; neither is a
    /// printed skip.
    fn needs(
        &mut self,
        check: &'static str,
        capability: &'static str,
        declared: bool,
        present: bool,
    ) -> bool {
        match (declared, present) {
            (true, true) => true,
            (true, false) => panic!(
                "conformance `{check}`: the store declares the {capability} capability, but its sessions do \
                 not offer it (as_{}() returns None)",
                capability.replace(' ', "_")
            ),
            (false, true) => panic!(
                "conformance `{check}`: the store's sessions offer the {capability} capability, but \
                 SessionStore::capabilities leaves it out: declare it so the suite checks it"
            ),
            (false, false) => {
                self.skip(check, capability);
                false
            }
        }
    }

    fn skip(&mut self, check: &'static str, capability: &'static str) {
        let skipped = Skipped { check, capability };
        eprintln!("session store conformance: {skipped}");
        self.report.skipped.push(skipped);
    }

    fn turn_store(&mut self, check: &'static str, s: &dyn Session) -> bool {
        let declared = self.declared.turn_store;
        let present = reported(check, "turn store", s.as_turn_store().is_some(), s.capabilities().turn_store);
        self.needs(check, "turn store", declared, present)
    }

    fn claims(&mut self, check: &'static str, s: &dyn Session) -> bool {
        let declared = self.declared.claims;
        let present = reported(check, "claims", s.as_claimer().is_some(), s.capabilities().claims);
        self.needs(check, "claims", declared, present)
    }

    fn history(&mut self, check: &'static str, s: &dyn Session) -> bool {
        let declared = self.declared.history;
        let present = reported(check, "history", s.as_history().is_some(), s.capabilities().history);
        self.needs(check, "history", declared, present)
    }
}

/// Whether a session offers `capability`, failing when [`Session::capabilities`] (what an
/// agent asks when it is built) says otherwise than the interface itself.
fn reported(check: &str, capability: &str, offered: bool, reported: bool) -> bool {
    assert_eq!(
        offered,
        reported,
        "conformance `{check}`: Session::capabilities() reports {capability} = {reported}, but as_{}() {}: an \
         agent would accept or refuse this session wrongly when it is built",
        capability.replace(' ', "_"),
        if offered { "offers it" } else { "returns None" }
    );
    offered
}

/// Fails unless an undeclared operation was refused with [`SessionError::Rejected`].
fn assert_refused<T>(check: &str, capability: &str, result: Result<T, SessionError>) {
    match result {
        Err(SessionError::Rejected(_)) => {}
        Err(other) => panic!(
            "conformance `{check}`: the store declares no {capability} capability, so it must refuse \
             with SessionError::Rejected, not {other}"
        ),
        Ok(_) => panic!(
            "conformance `{check}`: the store declares no {capability} capability but did it anyway: \
             declare {capability} in SessionStore::capabilities so the suite checks it"
        ),
    }
}

fn sample_messages() -> Vec<Message> {
    let unknown: Content = serde_json::from_value(serde_json::json!({"type": "hologram", "frames": [1, 2]}))
        .unwrap_or_else(|_| Content::text("unreachable"));
    vec![
        Message::user("hello"),
        Message::new(
            Role::Assistant,
            vec![Content::text("hi"), unknown, Content::tool_use("c1", "t", serde_json::json!({"a": 1}))],
        ),
    ]
}

fn closed(id: &str, reason: OutcomeReason) -> Turn {
    let mut t = Turn::new(id, vec![Message::user(format!("input of {id}"))]);
    t.close(TurnOutcome::new(reason, vec![]));
    t
}

/// Runs every check against stores made by `make_store`: the rules every store follows, and
/// the checks of each capability the store declares ([`SessionStore::capabilities`]).
/// Returns what ran and what was skipped (each skip is also printed to stderr).
///
/// # Panics
/// When the store breaks a rule, lacks a declared capability, or offers or performs one not
/// declared; the message names the check and the rule.
pub async fn session_store_conformance<S, F>(make_store: F) -> ConformanceReport
where
    S: SessionStore,
    F: Fn() -> S,
{
    let declared = make_store().capabilities();
    let mut run = Run { declared, report: ConformanceReport { declared, ..ConformanceReport::default() } };
    macro_rules! check {
        ($name:ident) => {
            if $name(&make_store(), &mut run).await {
                run.report.passed.push(stringify!($name));
            }
        };
    }
    check!(round_trip);
    check!(revisions);
    check!(open_turns);
    check!(suspension);
    check!(recovery);
    check!(listing);
    check!(ids);
    check!(claims);
    check!(concurrent_writers);
    check!(history);
    check!(compaction);
    check!(remove_last_turn);
    check!(fork);
    check!(export_import);
    run.report
}

macro_rules! ok {
    ($e:expr, $what:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => panic!("{}: unexpected error: {e}", $what),
        }
    };
}

async fn round_trip<S: SessionStore>(store: &S, _run: &mut Run) -> bool {
    let s = ok!(store.open("round-trip").await, "open");
    let empty = ok!(s.load().await, "load of a new session");
    assert!(empty.history.is_empty() && empty.open_turn.is_none(), "a new session is empty");
    let turn = Turn::completed("t1", sample_messages());
    ok!(s.save_turn(&turn).await, "save_turn");
    let again = ok!(store.open("round-trip").await, "reopen");
    let snap = ok!(again.load().await, "load");
    assert_eq!(snap.history, sample_messages(), "messages (including unknown blocks) round-trip unchanged");
    true
}

async fn revisions<S: SessionStore>(store: &S, run: &mut Run) -> bool {
    let s = ok!(store.open("revisions").await, "open");
    if !run.turn_store("revisions", &*s) {
        return false;
    }
    let ts = ok!(s.as_turn_store().ok_or("no turn store"), "turn store");
    let r1 = ok!(ts.checkpoint_turn(0, &Turn::completed("t1", vec![Message::user("a")])).await, "checkpoint");
    assert!(r1 > 0, "the revision advances on write");
    let stale = ts.checkpoint_turn(0, &Turn::completed("t2", vec![])).await;
    assert!(
        matches!(stale, Err(SessionError::RevisionConflict { .. })),
        "a stale revision is refused: {stale:?}"
    );
    let snap = ok!(ts.load().await, "load");
    assert_eq!(snap.revision, r1, "a refused write changes nothing");
    assert_eq!(snap.history.len(), 1, "a refused write changes nothing");
    true
}

async fn open_turns<S: SessionStore>(store: &S, _run: &mut Run) -> bool {
    let s = ok!(store.open("open-turns").await, "open");
    ok!(s.save_turn(&closed("t1", OutcomeReason::OutputLimit)).await, "save incomplete");
    let mut more = closed("t1", OutcomeReason::OutputLimit);
    more.messages.push(Message::assistant("continued"));
    ok!(s.save_turn(&more).await, "replace open turn");
    let snap = ok!(s.load().await, "load");
    let open = snap.open_turn.unwrap_or_else(|| panic!("an incomplete last turn is the open turn"));
    assert_eq!(open.messages.len(), 2, "recording the open turn's id replaces it");
    assert_eq!(snap.latest_outcome.map(|o| o.reason), Some(OutcomeReason::OutputLimit));
    ok!(s.save_turn(&Turn::completed("t2", vec![Message::user("next")])).await, "append");
    let snap = ok!(s.load().await, "load");
    assert!(snap.open_turn.is_none(), "a completed last turn leaves no open turn");
    assert_eq!(snap.history.len(), 3, "history holds both turns");
    for id in ["t1", "t2"] {
        let again = s.save_turn(&Turn::completed(id, vec![Message::user("again")])).await;
        assert!(
            matches!(again, Err(SessionError::Rejected(_))),
            "rule `closed turns are never recorded again`: save_turn with the id of the closed turn {id:?} \
             must fail with SessionError::Rejected (see the Session trait docs), got {again:?}"
        );
    }
    let snap = ok!(s.load().await, "load");
    assert_eq!(snap.history.len(), 3, "a refused save_turn changes nothing");
    true
}

async fn suspension<S: SessionStore>(store: &S, _run: &mut Run) -> bool {
    let s = ok!(store.open("suspended").await, "open");
    let mut t = Turn::new("t1", vec![Message::user("ask")]);
    t.suspension = Some(Box::default());
    t.close(TurnOutcome::new(OutcomeReason::Suspended, vec![]));
    ok!(s.save_turn(&t).await, "save suspended");
    let snap = ok!(s.load().await, "load");
    assert!(snap.is_suspended(), "the suspended turn is open");
    let other = s.save_turn(&Turn::completed("t2", vec![])).await;
    assert!(
        matches!(other, Err(SessionError::Suspended(_))),
        "rule `refuse while suspended`: save_turn of a different turn while one is suspended must fail \
         with SessionError::Suspended (see the Session trait docs), got {other:?}"
    );
    let snap = ok!(s.load().await, "load");
    assert!(snap.is_suspended(), "rule `refuse while suspended`: the refused turn must change nothing");
    let page = ok!(store.list(&ListOptions::all().with_suspended(true)).await, "list suspended");
    assert!(page.sessions.iter().any(|i| i.id == "suspended"), "list filters suspended sessions");
    true
}

async fn recovery<S: SessionStore>(store: &S, _run: &mut Run) -> bool {
    let s = ok!(store.open("recovery").await, "open");
    let mut running = Turn::new("t1", vec![Message::user("deploy")]);
    running.tool_calls = vec![ToolCallRecord::new("c1", "bash", ToolCallState::Running)];
    ok!(s.save_turn(&running).await, "checkpoint running");
    let snap = ok!(s.load().await, "load");
    let turn = snap.open_turn.unwrap_or_else(|| panic!("the recovered turn stays open"));
    assert_eq!(
        turn.status,
        TurnStatus::Incomplete,
        "rule `recover a running turn`: load closes a turn left running (see the Session trait docs)"
    );
    let outcome = turn
        .outcome
        .unwrap_or_else(|| panic!("rule `recover a running turn`: the closed turn has an outcome"));
    assert_eq!(
        outcome.reason,
        OutcomeReason::ProcessExit,
        "rule `recover a running turn`: its outcome is process_exit"
    );
    assert_eq!(
        outcome.tool_calls.first().map(|c| c.state),
        Some(ToolCallState::Unknown),
        "rule `running calls become unknown`: a call still running when the process died may have taken \
         effect, so recovery records it as unknown (see the Session trait docs)"
    );
    let reopened = ok!(store.open("recovery").await, "reopen");
    let again = ok!(reopened.load().await, "load again");
    assert_eq!(
        again.revision, snap.revision,
        "rule `recovery stored once`: a second load must return the stored recovery at the same revision, \
         not recover again (see the Session trait docs)"
    );
    assert_eq!(
        again.open_turn.map(|t| t.status),
        Some(TurnStatus::Incomplete),
        "rule `recovery stored once`: the recovery must be stored, not only returned"
    );
    true
}

async fn listing<S: SessionStore>(store: &S, _run: &mut Run) -> bool {
    for id in ["l-a", "l-b", "l-c"] {
        let s = ok!(store.open(id).await, "open");
        ok!(s.save_turn(&Turn::completed("t", vec![Message::user(id)])).await, "save");
        std::thread::sleep(Duration::from_millis(3));
    }
    let page = ok!(store.list(&ListOptions::page(0, 2)).await, "list");
    assert_eq!(page.sessions.len(), 2, "limit applies");
    assert!(page.total >= 3, "total counts every match");
    assert_eq!(page.sessions[0].id, "l-c", "most recently updated first");
    ok!(store.delete("l-c").await, "delete");
    ok!(store.delete("l-c").await, "delete is idempotent");
    let page = ok!(store.list(&ListOptions::all()).await, "list");
    assert!(page.sessions.iter().all(|i| i.id != "l-c"), "deleted sessions are gone");
    true
}

async fn ids<S: SessionStore>(store: &S, _run: &mut Run) -> bool {
    for bad in ["", "..", "../escape", "a/b", "a\\b"] {
        let r = store.open(bad).await;
        assert!(matches!(r, Err(SessionError::InvalidId { .. })), "id {bad:?} must be refused");
    }
    true
}

async fn claims<S: SessionStore>(store: &S, run: &mut Run) -> bool {
    let s = ok!(store.open("claims").await, "open");
    if !run.claims("claims", &*s) {
        return false;
    }
    let c = ok!(s.as_claimer().ok_or("no claims"), "claims");
    ok!(c.claim("owner-a", Duration::from_secs(30)).await, "claim");
    ok!(c.claim("owner-a", Duration::from_secs(30)).await, "renew");
    let taken = c.claim("owner-b", Duration::from_secs(30)).await;
    assert!(matches!(taken, Err(SessionError::Claimed { .. })), "another owner is refused: {taken:?}");
    ok!(c.release("owner-a").await, "release");
    ok!(c.claim("owner-b", Duration::from_millis(1)).await, "claim after release");
    std::thread::sleep(Duration::from_millis(10));
    ok!(c.claim("owner-a", Duration::from_secs(1)).await, "an expired claim can be taken over");
    true
}

async fn concurrent_writers<S: SessionStore>(store: &S, run: &mut Run) -> bool {
    let a = ok!(store.open("concurrent").await, "open a");
    let b = ok!(store.open("concurrent").await, "open b");
    if !run.turn_store("concurrent_writers", &*a) {
        return false;
    }
    let ta = ok!(a.as_turn_store().ok_or("no turn store"), "turn store a");
    let tb = ok!(b.as_turn_store().ok_or("no turn store"), "turn store b");
    let base = ok!(ta.load().await, "load a").revision;
    assert_eq!(ok!(tb.load().await, "load b").revision, base, "both handles see one session");
    let won =
        ok!(ta.checkpoint_turn(base, &Turn::completed("from-a", vec![Message::user("a")])).await, "a writes");
    let lost = tb.checkpoint_turn(base, &Turn::completed("from-b", vec![Message::user("b")])).await;
    assert!(
        matches!(lost, Err(SessionError::RevisionConflict { expected, actual, .. }) if expected == base && actual == won),
        "the second writer at a stale revision gets a typed conflict: {lost:?}"
    );
    let snap = ok!(tb.load().await, "reload b");
    assert_eq!(snap.revision, won, "the loser sees the winner's revision after reloading");
    assert_eq!(snap.history, vec![Message::user("a")], "no lost update, no double write");
    ok!(
        tb.checkpoint_turn(snap.revision, &Turn::completed("from-b", vec![Message::user("b")])).await,
        "retry"
    );
    assert_eq!(ok!(ta.load().await, "load a").history.len(), 2, "a sees b's retried write");
    true
}

async fn history<S: SessionStore>(store: &S, run: &mut Run) -> bool {
    let s = ok!(store.open("history").await, "open");
    if !run.history("history", &*s) {
        return false;
    }
    let h = ok!(s.as_history().ok_or("no history"), "history");
    let r0 = ok!(h.edit(None, &SessionEdit::SetTitle(Some("Trip planning".into()))).await, "set title");
    let mut metadata = serde_json::Map::new();
    metadata.insert("user".into(), serde_json::json!("ada"));
    let r1 = ok!(h.edit(Some(r0), &SessionEdit::SetMetadata(metadata.clone())).await, "set metadata");
    assert!(r1 > r0, "edits advance the revision");
    let stale = h.edit(Some(r0), &SessionEdit::SetTitle(None)).await;
    assert!(
        matches!(stale, Err(SessionError::RevisionConflict { .. })),
        "a stale edit is refused: {stale:?}"
    );
    let mut t1 = Turn::completed("t1", vec![Message::user("a"), Message::assistant("b")]);
    t1.usage = Usage::new(10, 4);
    let mut t2 = Turn::completed("t2", vec![Message::user("c")]);
    t2.usage = Usage::new(5, 1);
    ok!(s.save_turn(&t1).await, "save t1");
    ok!(s.save_turn(&t2).await, "save t2");
    let reopened = ok!(store.open("history").await, "reopen");
    let doc = ok!(ok!(reopened.as_history().ok_or("no history"), "history").document().await, "document");
    assert_eq!(doc.info.title.as_deref(), Some("Trip planning"), "title persists");
    assert_eq!(doc.info.metadata, metadata, "metadata persists");
    assert_eq!(doc.events.len(), 2, "two events");
    assert_eq!(doc.info.event_count, 2, "the summary counts events");
    assert_eq!(doc.turns().iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), ["t1", "t2"]);
    let usage = doc.total_usage();
    assert_eq!((usage.input_tokens, usage.output_tokens), (15, 5), "total usage sums turns");
    let page = ok!(store.list(&ListOptions::all()).await, "list");
    let info = page.sessions.iter().find(|i| i.id == "history");
    assert_eq!(info.and_then(|i| i.title.as_deref()), Some("Trip planning"), "list shows the title");
    true
}

async fn compaction<S: SessionStore>(store: &S, run: &mut Run) -> bool {
    let s = ok!(store.open("compaction").await, "open");
    if !run.history("compaction", &*s) {
        return false;
    }
    let h = ok!(s.as_history().ok_or("no history"), "history");
    if !run.declared.compaction {
        ok!(s.save_turn(&Turn::completed("t1", vec![Message::user("a")])).await, "t1");
        assert_refused(
            "compaction",
            "compaction",
            h.edit(None, &SessionEdit::Compact { summary: vec![] }).await,
        );
        run.skip("compaction", "compaction");
        return false;
    }
    ok!(s.save_turn(&Turn::completed("t1", vec![Message::user("a"), Message::assistant("b")])).await, "t1");
    let summary = vec![Message::user("summary of a and b")];
    ok!(h.edit(None, &SessionEdit::Compact { summary: summary.clone() }).await, "compact");
    ok!(s.save_turn(&Turn::completed("t2", vec![Message::user("c")])).await, "t2");
    let again = ok!(store.open("compaction").await, "reopen");
    let snap = ok!(again.load().await, "load");
    assert_eq!(
        snap.history,
        vec![summary[0].clone(), Message::user("c")],
        "the window starts at the summary"
    );
    let doc = ok!(ok!(again.as_history().ok_or("no history"), "history").document().await, "document");
    assert_eq!(doc.all_messages().len(), 3, "the originals stay in the full transcript");
    assert_eq!(doc.compactions().count(), 1, "one compaction event");
    assert_eq!(doc.compactions().next().map(|c| c.replaced_messages), Some(2), "it replaced two messages");
    let mut t = Turn::new("t3", vec![Message::user("ask")]);
    t.suspension = Some(Box::default());
    t.close(TurnOutcome::new(OutcomeReason::Suspended, vec![]));
    ok!(s.save_turn(&t).await, "suspend");
    let refused = h.edit(None, &SessionEdit::Compact { summary: vec![] }).await;
    assert!(matches!(refused, Err(SessionError::Suspended(_))), "no compaction while suspended: {refused:?}");
    true
}

async fn remove_last_turn<S: SessionStore>(store: &S, run: &mut Run) -> bool {
    let s = ok!(store.open("remove").await, "open");
    if !run.history("remove_last_turn", &*s) {
        return false;
    }
    let h = ok!(s.as_history().ok_or("no history"), "history");
    let empty = h.edit(None, &SessionEdit::RemoveLastTurn).await;
    assert!(matches!(empty, Err(SessionError::NoTurn { .. })), "nothing to remove: {empty:?}");
    ok!(s.save_turn(&Turn::completed("t1", vec![Message::user("keep")])).await, "t1");
    let mut t = Turn::new("t2", vec![Message::user("ask")]);
    t.suspension = Some(Box::default());
    t.close(TurnOutcome::new(OutcomeReason::Suspended, vec![]));
    let r = ok!(s.save_turn(&t).await, "suspend");
    let removed = ok!(h.edit(Some(r), &SessionEdit::RemoveLastTurn).await, "remove the suspended turn");
    assert!(removed > r, "removal advances the revision");
    let again = ok!(store.open("remove").await, "reopen");
    let snap = ok!(again.load().await, "load");
    assert!(!snap.is_suspended() && snap.open_turn.is_none(), "the suspended turn is gone");
    assert_eq!((snap.history, snap.revision), (vec![Message::user("keep")], removed), "the rest stays");
    ok!(again.save_turn(&Turn::completed("t3", vec![Message::user("next")])).await, "new turns are accepted");
    let page = ok!(store.list(&ListOptions::all().with_suspended(true)).await, "list");
    assert!(page.sessions.iter().all(|i| i.id != "remove"), "no longer listed as suspended");
    true
}

async fn fork<S: SessionStore>(store: &S, run: &mut Run) -> bool {
    let s = ok!(store.open("fork-src").await, "open");
    if !run.declared.fork {
        assert_refused("fork", "fork", store.fork("fork-src", "fork-a", &ForkOptions::default()).await);
        run.skip("fork", "fork");
        return false;
    }
    if !run.history("fork", &*s) {
        return false;
    }
    ok!(s.save_turn(&Turn::completed("t1", vec![Message::user("a")])).await, "t1");
    ok!(s.save_turn(&closed("t2", OutcomeReason::OutputLimit)).await, "t2 incomplete");
    let plain = ok!(store.fork("fork-src", "fork-a", &ForkOptions::default()).await, "fork");
    let snap = ok!(plain.load().await, "load fork");
    assert!(snap.open_turn.is_none(), "a fork stops at the last completed turn");
    assert_eq!(snap.history, vec![Message::user("a")], "with everything before it");
    let doc = ok!(ok!(plain.as_history().ok_or("no history"), "history").document().await, "document");
    assert_eq!(doc.info.forked_from.as_deref(), Some("fork-src"), "the fork names its source");
    let full = ok!(store.fork("fork-src", "fork-b", &ForkOptions::default().with_open_turn()).await, "fork");
    let snap = ok!(full.load().await, "load fork");
    assert_eq!(snap.open_turn.map(|t| t.id), Some("t2".into()), "the open turn comes when asked");
    ok!(plain.save_turn(&Turn::completed("x", vec![Message::user("only in the fork")])).await, "write fork");
    let source = ok!(ok!(store.open("fork-src").await, "open").load().await, "load source");
    assert_eq!(source.history.len(), 1, "writing the fork leaves the source alone");
    let taken = store.fork("fork-src", "fork-a", &ForkOptions::default()).await;
    assert!(matches!(taken, Err(SessionError::Rejected(_))), "a fork never overwrites: {:?}", taken.err());
    true
}

async fn export_import<S: SessionStore>(store: &S, run: &mut Run) -> bool {
    let s = ok!(store.open("export").await, "open");
    if !run.declared.import {
        assert_refused("export_import", "import", store.import(&SessionDocument::new("imported")).await);
        run.skip("export_import", "import");
        return false;
    }
    if !run.history("export_import", &*s) {
        return false;
    }
    let h = ok!(s.as_history().ok_or("no history"), "history");
    ok!(h.edit(None, &SessionEdit::SetTitle(Some("exported".into()))).await, "title");
    ok!(s.save_turn(&Turn::completed("t1", sample_messages())).await, "t1");
    ok!(h.edit(None, &SessionEdit::Compact { summary: vec![Message::user("sum")] }).await, "compact");
    ok!(s.save_turn(&closed("t2", OutcomeReason::OutputLimit)).await, "t2");
    let doc = ok!(h.document().await, "export");
    let json = ok!(serde_json::to_string(&doc), "serialize");
    let back: SessionDocument = ok!(serde_json::from_str(&json), "parse");
    let refused = store.import(&back).await;
    assert!(
        matches!(refused, Err(SessionError::Rejected(_))),
        "import never overwrites: {:?}",
        refused.err()
    );
    ok!(store.delete("export").await, "delete");
    let imported = ok!(store.import(&back).await, "import");
    let again = ok!(ok!(imported.as_history().ok_or("no history"), "history").document().await, "document");
    assert_eq!(again.events, doc.events, "events round-trip");
    assert_eq!(
        (again.info.title.as_deref(), again.revision),
        (Some("exported"), doc.revision),
        "summary too"
    );
    let snap = ok!(ok!(store.open("export").await, "open").load().await, "load");
    assert_eq!(snap.open_turn.map(|t| t.id), Some("t2".into()), "the imported session continues");
    true
}
