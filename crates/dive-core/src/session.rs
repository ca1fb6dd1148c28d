//! Session traits: [`Session`] (a conversation the agent reads and records turns into),
//! [`TurnStore`] (revision-checked checkpoints), [`SessionClaimer`] (execution ownership)
//! [`SessionHistory`] (the full record: events, title, metadata, compaction, removal) and
//! [`SessionStore`] (open, list, delete, import, fork, declared capabilities). The write rules
//! of the [`Session`] contract live in `dive-session-log`, our stores in `dive-session`;
//! `dive-test` has a conformance suite for third-party stores.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::capabilities::StoreCapabilities;
use crate::error::SessionError;
use crate::future::BoxFuture;
use crate::future::ready;
use crate::message::Message;
use crate::session_event::{ForkOptions, SessionDocument, SessionEdit};
use crate::time::Timestamp;
use crate::turn::{Turn, TurnOutcome};

/// A session as loaded: history before the open turn, the open turn, the revision.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SessionSnapshot {
    /// The active window of messages before the open turn.
    pub history: Vec<Message>,
    /// The last turn if it is suspended, incomplete or running.
    pub open_turn: Option<Turn>,
    /// The revision (advances on every write).
    pub revision: u64,
    /// The outcome of the latest turn.
    pub latest_outcome: Option<TurnOutcome>,
}

impl SessionSnapshot {
    /// History plus the open turn's messages: what the model sees next.
    #[must_use]
    pub fn messages(&self) -> Vec<Message> {
        let mut all = self.history.clone();
        if let Some(turn) = &self.open_turn {
            all.extend(turn.messages.iter().cloned());
        }
        all
    }

    /// Whether the open turn is suspended.
    #[must_use]
    pub fn is_suspended(&self) -> bool {
        self.open_turn.as_ref().is_some_and(Turn::is_suspended)
    }
}

/// A conversation an agent reads history from and records turns into.
///
/// # The contract every session keeps
///
/// The **open turn** is the last turn when it is `suspended`, `incomplete` or `running`.
///
/// - [`save_turn`](Session::save_turn) with the open turn's id **replaces** the open turn.
/// - Any other id is **appended** as a new turn, with two refusals that change nothing:
///   - while the open turn is `suspended`, a different turn is refused with
///     [`SessionError::Suspended`] (resume or cancel the suspended turn first);
///   - an id that names a turn already closed (any recorded turn that is not the open turn)
///     is refused with [`SessionError::Rejected`]: a closed turn is never recorded again.
/// - Every write advances the revision.
/// - [`load`](Session::load) closes a turn found `running` (a process died mid-turn) as
///   `process_exit`: each of its tool calls still `running` becomes `unknown` (it may have
///   taken effect), and the recovery is **stored once**: a second load returns the same
///   revision, not a new recovery.
///
/// `dive-session-log`'s `SessionLog` implements exactly these rules, and `dive-test`'s
/// conformance suite checks them. Stores that can check revisions also implement
/// [`TurnStore`] and return it from [`as_turn_store`](Session::as_turn_store); the engine
/// then uses revision-checked checkpoints.
pub trait Session: Send + Sync {
    /// The session id.
    fn id(&self) -> &str;

    /// Loads history, the open turn and the revision. A turn found `running` is recovered
    /// as the [contract](Session#the-contract-every-session-keeps) says: closed as
    /// `process_exit`, its running calls `unknown`, the recovery stored once.
    fn load(&self) -> BoxFuture<'_, Result<SessionSnapshot, SessionError>>;

    /// Records a turn; returns the new revision. Replaces the open turn when the ids match,
    /// else appends; refuses a new turn while one is suspended ([`SessionError::Suspended`])
    /// and a closed turn's id ([`SessionError::Rejected`]).
    fn save_turn<'a>(&'a self, turn: &'a Turn) -> BoxFuture<'a, Result<u64, SessionError>>;

    /// The revision-checked interface, when supported.
    fn as_turn_store(&self) -> Option<&dyn TurnStore> {
        None
    }

    /// The claim interface, when supported.
    fn as_claimer(&self) -> Option<&dyn SessionClaimer> {
        None
    }

    /// The full-record interface (events, title, metadata, compaction), when supported.
    fn as_history(&self) -> Option<&dyn SessionHistory> {
        None
    }

    /// The lock runs take on this session, so two runs on it run one after the other. A store
    /// gives every object it opens for one id the same lock ([`SessionLocks`](crate::SessionLocks)),
    /// and no other store shares it. `None` (the default): runs on this session are not
    /// serialised (only a nested run on it from inside its own turn is refused).
    fn run_lock(&self) -> Option<crate::SessionLock> {
        None
    }

    /// What this session can do, read from the interfaces it offers (turn store, claims,
    /// history). An agent asks it when it is built, so a configuration the session cannot
    /// honour (step checkpoints without a turn store, claims without a claimer) is refused
    /// then, not mid-run.
    fn capabilities(&self) -> StoreCapabilities {
        StoreCapabilities {
            turn_store: self.as_turn_store().is_some(),
            claims: self.as_claimer().is_some(),
            history: self.as_history().is_some(),
            ..StoreCapabilities::none()
        }
    }
}

/// A session's full record: every event (turns and compactions), title, metadata, and the
/// edits that are not turn records. Reads go through the returned [`SessionDocument`]
/// (active window, full transcript, turns, total usage, compactions).
pub trait SessionHistory: Session {
    /// The whole session as it is stored now (a copy). A `running` turn is returned as is;
    /// [`Session::load`] is what recovers it.
    fn document(&self) -> BoxFuture<'_, Result<SessionDocument, SessionError>>;

    /// Applies `edit` and returns the new revision. With `Some(expected_revision)` it is
    /// refused with [`SessionError::RevisionConflict`] unless the session is still there.
    fn edit<'a>(
        &'a self,
        expected_revision: Option<u64>,
        edit: &'a SessionEdit,
    ) -> BoxFuture<'a, Result<u64, SessionError>>;
}

/// Revision-checked turn records (optimistic concurrency, step checkpoints).
pub trait TurnStore: Session {
    /// Records `turn` if the session is still at `expected_revision`; returns the new
    /// revision. Fails with [`SessionError::RevisionConflict`] otherwise, changing nothing.
    fn checkpoint_turn<'a>(
        &'a self,
        expected_revision: u64,
        turn: &'a Turn,
    ) -> BoxFuture<'a, Result<u64, SessionError>>;
}

/// Execution ownership of a session across processes (leases with a TTL).
pub trait SessionClaimer: Send + Sync {
    /// Claims (or renews) the session for `owner` for `ttl`. Fails with
    /// [`SessionError::Claimed`] while another owner's lease is live.
    fn claim<'a>(&'a self, owner: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), SessionError>>;

    /// Releases `owner`'s claim (no error when not held).
    fn release<'a>(&'a self, owner: &'a str) -> BoxFuture<'a, Result<(), SessionError>>;
}

/// Summary of a stored session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionInfo {
    /// Id.
    pub id: String,
    /// Title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Creation time.
    pub created_at: Timestamp,
    /// Last write.
    pub updated_at: Timestamp,
    /// Number of events (turns and compactions).
    pub event_count: u64,
    /// Whether the open turn is suspended.
    pub suspended: bool,
    /// Application metadata.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// The session this one was forked from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<String>,
}

impl SessionInfo {
    /// Info for a new session.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        let now = Timestamp::now();
        Self {
            id: id.into(),
            title: None,
            created_at: now,
            updated_at: now,
            event_count: 0,
            suspended: false,
            metadata: Map::new(),
            forked_from: None,
        }
    }
}

/// Filters and paging for [`SessionStore::list`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ListOptions {
    /// Page size; `None` for all.
    pub limit: Option<usize>,
    /// Sessions to skip.
    pub offset: usize,
    /// Only suspended (`Some(true)`) or not suspended (`Some(false)`) sessions.
    pub suspended: Option<bool>,
}

impl ListOptions {
    /// Every session.
    #[must_use]
    pub fn all() -> Self {
        Self::default()
    }

    /// One page.
    #[must_use]
    pub fn page(offset: usize, limit: usize) -> Self {
        Self { limit: Some(limit), offset, suspended: None }
    }

    /// Filters by suspension.
    #[must_use]
    pub fn with_suspended(mut self, suspended: bool) -> Self {
        self.suspended = Some(suspended);
        self
    }
}

/// One page of sessions, most recently updated first.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SessionPage {
    /// The sessions.
    pub sessions: Vec<SessionInfo>,
    /// Matching sessions in total.
    pub total: usize,
}

impl SessionPage {
    /// A page.
    #[must_use]
    pub fn new(sessions: Vec<SessionInfo>, total: usize) -> Self {
        Self { sessions, total }
    }
}

/// Opens, lists and deletes sessions.
///
/// Every session it opens keeps the [`Session`] contract. The store declares what else it
/// can do with [`capabilities`](SessionStore::capabilities); `dive-test`'s conformance suite
/// checks each declared ability and that nothing undeclared is offered.
pub trait SessionStore: Send + Sync {
    /// The abilities this store and its sessions offer. A session it opens offers exactly
    /// the declared `turn_store`, `claims` and `history` interfaces; `compaction`, `fork` and
    /// `import` say whether those operations work or are refused with
    /// [`SessionError::Rejected`].
    fn capabilities(&self) -> StoreCapabilities;

    /// Opens a session, creating it when absent. Ids are validated
    /// ([`SessionError::InvalidId`]).
    fn open<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>>;

    /// Lists sessions, most recently updated first.
    fn list<'a>(&'a self, options: &'a ListOptions) -> BoxFuture<'a, Result<SessionPage, SessionError>>;

    /// Deletes a session (no error when absent).
    fn delete<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), SessionError>>;

    /// Creates a session from a document (an export of this or another store). Refused with
    /// [`SessionError::Rejected`] when the document is not valid
    /// ([`SessionDocument::validate`]) or a session with its id already has a revision.
    /// The default refuses every import.
    fn import<'a>(
        &'a self,
        document: &'a SessionDocument,
    ) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        let _ = document;
        ready(Err(SessionError::Rejected("this session store cannot import sessions".into())))
    }

    /// Copies session `from` to a new session `to` ([`SessionDocument::fork`]), through
    /// [`SessionHistory::document`] and [`import`](Self::import).
    fn fork<'a>(
        &'a self,
        from: &'a str,
        to: &'a str,
        options: &'a ForkOptions,
    ) -> BoxFuture<'a, Result<Arc<dyn Session>, SessionError>> {
        Box::pin(async move {
            let source = self.open(from).await?;
            let history = source.as_history().ok_or_else(|| {
                SessionError::Rejected(format!("session {from:?} cannot be read as a whole to fork it"))
            })?;
            let copy = history.document().await?.fork(to, options)?;
            self.import(&copy).await
        })
    }
}

/// Checks a session id: 1–128 characters of `[A-Za-z0-9_.-]`, not `.` or `..`.
///
/// ```
/// assert!(dive_core::validate_session_id("chat-2026_12.a").is_ok());
/// assert!(dive_core::validate_session_id("../etc/passwd").is_err());
/// ```
///
/// # Errors
/// [`SessionError::InvalidId`] with the reason.
pub fn validate_session_id(id: &str) -> Result<(), SessionError> {
    let reason = if id.is_empty() {
        Some("it is empty")
    } else if id.len() > 128 {
        Some("it is longer than 128 characters")
    } else if id == "." || id == ".." {
        Some("it is a relative path component")
    } else if !id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
        Some("only letters, digits, '-', '_' and '.' are allowed")
    } else {
        None
    };
    match reason {
        None => Ok(()),
        Some(r) => Err(SessionError::InvalidId { id: id.to_owned(), reason: r.to_owned() }),
    }
}
