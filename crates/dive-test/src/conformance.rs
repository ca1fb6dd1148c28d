//! A conformance suite for [`SessionStore`] implementations: every store in this workspace
//! passes it, and third-party store authors can run it on theirs.
//!
//! Call [`session_store_conformance`] from a test with any executor, passing a function that
//! makes a fresh, empty store each time.

use std::time::Duration;

use dive_core::{
    Content, ListOptions, Message, OutcomeReason, Role, SessionError, SessionStore, SuspensionState,
    ToolCallRecord, ToolCallState, Turn, TurnOutcome, TurnStatus,
};

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

/// Runs every check against stores made by `make_store`. Panics naming the first rule a
/// store breaks.
///
/// # Panics
/// When the store breaks a rule.
pub async fn session_store_conformance<S, F>(make_store: F)
where
    S: SessionStore,
    F: Fn() -> S,
{
    round_trip(&make_store()).await;
    revisions(&make_store()).await;
    open_turns(&make_store()).await;
    suspension(&make_store()).await;
    recovery(&make_store()).await;
    listing(&make_store()).await;
    ids(&make_store()).await;
    claims(&make_store()).await;
}

macro_rules! ok {
    ($e:expr, $what:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => panic!("{}: unexpected error: {e}", $what),
        }
    };
}

async fn round_trip<S: SessionStore>(store: &S) {
    let s = ok!(store.open("round-trip").await, "open");
    let empty = ok!(s.load().await, "load of a new session");
    assert!(empty.history.is_empty() && empty.open_turn.is_none(), "a new session is empty");
    let turn = Turn::completed("t1", sample_messages());
    ok!(s.save_turn(&turn).await, "save_turn");
    let again = ok!(store.open("round-trip").await, "reopen");
    let snap = ok!(again.load().await, "load");
    assert_eq!(snap.history, sample_messages(), "messages (including unknown blocks) round-trip unchanged");
}

async fn revisions<S: SessionStore>(store: &S) {
    let s = ok!(store.open("revisions").await, "open");
    let Some(ts) = s.as_turn_store() else { return };
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
}

async fn open_turns<S: SessionStore>(store: &S) {
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
}

async fn suspension<S: SessionStore>(store: &S) {
    let s = ok!(store.open("suspended").await, "open");
    let mut t = Turn::new("t1", vec![Message::user("ask")]);
    t.suspension = Some(SuspensionState::default());
    t.close(TurnOutcome::new(OutcomeReason::Suspended, vec![]));
    ok!(s.save_turn(&t).await, "save suspended");
    let snap = ok!(s.load().await, "load");
    assert!(snap.is_suspended(), "the suspended turn is open");
    let other = s.save_turn(&Turn::completed("t2", vec![])).await;
    assert!(
        matches!(other, Err(SessionError::Suspended(_))),
        "a new turn is refused while suspended: {other:?}"
    );
    let page = ok!(store.list(&ListOptions::all().with_suspended(true)).await, "list suspended");
    assert!(page.sessions.iter().any(|i| i.id == "suspended"), "list filters suspended sessions");
}

async fn recovery<S: SessionStore>(store: &S) {
    let s = ok!(store.open("recovery").await, "open");
    let mut running = Turn::new("t1", vec![Message::user("deploy")]);
    running.tool_calls = vec![ToolCallRecord::new("c1", "bash", ToolCallState::Running)];
    ok!(s.save_turn(&running).await, "checkpoint running");
    let snap = ok!(s.load().await, "load");
    let turn = snap.open_turn.unwrap_or_else(|| panic!("the recovered turn stays open"));
    assert_eq!(turn.status, TurnStatus::Incomplete, "a running turn is closed on load");
    let outcome = turn.outcome.unwrap_or_else(|| panic!("the closed turn has an outcome"));
    assert_eq!(outcome.reason, OutcomeReason::ProcessExit);
    assert_eq!(outcome.tool_calls.first().map(|c| c.state), Some(ToolCallState::Unknown));
}

async fn listing<S: SessionStore>(store: &S) {
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
}

async fn ids<S: SessionStore>(store: &S) {
    for bad in ["", "..", "../escape", "a/b", "a\\b"] {
        let r = store.open(bad).await;
        assert!(matches!(r, Err(SessionError::InvalidId { .. })), "id {bad:?} must be refused");
    }
}

async fn claims<S: SessionStore>(store: &S) {
    let s = ok!(store.open("claims").await, "open");
    let Some(c) = s.as_claimer() else { return };
    ok!(c.claim("owner-a", Duration::from_secs(30)).await, "claim");
    ok!(c.claim("owner-a", Duration::from_secs(30)).await, "renew");
    let taken = c.claim("owner-b", Duration::from_secs(30)).await;
    assert!(matches!(taken, Err(SessionError::Claimed { .. })), "another owner is refused: {taken:?}");
    ok!(c.release("owner-a").await, "release");
    ok!(c.claim("owner-b", Duration::from_millis(1)).await, "claim after release");
    std::thread::sleep(Duration::from_millis(10));
    ok!(c.claim("owner-a", Duration::from_secs(1)).await, "an expired claim can be taken over");
}
