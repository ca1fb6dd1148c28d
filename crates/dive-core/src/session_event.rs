//! A session's full record: [`SessionEvent`]s (turns and compactions), the
//! [`SessionDocument`] that holds them with the session summary and revision (also the
//! versioned JSON export format), and the pure reads every store shares: active window, full
//! transcript, turns, total usage, snapshot, fork.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::SessionError;
use crate::llm::Usage;
use crate::message::Message;
use crate::session::{SessionInfo, SessionSnapshot, validate_session_id};
use crate::time::Timestamp;
use crate::turn::{OutcomeReason, ToolCallRecord, ToolCallState, Turn, TurnOutcome, TurnStatus};

/// The `format` field of an exported [`SessionDocument`].
pub const SESSION_DOCUMENT_FORMAT: &str = "dive.session";

/// The document version this library writes (and the newest it reads).
pub const SESSION_DOCUMENT_VERSION: u32 = 1;

/// A compaction: a summary that replaces the active window before it. The replaced turns stay
/// in the session (non-destructive); only the window the model sees starts anew.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Compaction {
    /// Event id.
    pub id: String,
    /// The summary messages that start the new window.
    pub summary: Vec<Message>,
    /// How many messages of the previous window the summary replaced.
    #[serde(default)]
    pub replaced_messages: usize,
    /// Session revision this record was written at.
    #[serde(default)]
    pub revision: u64,
    /// When it was made.
    pub created_at: Timestamp,
}

impl Compaction {
    /// A compaction with a summary (id and time fresh).
    #[must_use]
    pub fn new(summary: Vec<Message>, replaced_messages: usize) -> Self {
        Self {
            id: crate::id::new_id("compaction"),
            summary,
            replaced_messages,
            revision: 0,
            created_at: Timestamp::now(),
        }
    }
}

/// One entry of a session's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
#[allow(clippy::large_enum_variant)] // nearly every event is a turn: boxing would only add allocations
pub enum SessionEvent {
    /// A turn record.
    Turn(Turn),
    /// A compaction: a new window starts here.
    Compaction(Compaction),
}

impl SessionEvent {
    /// The turn, if this is one.
    #[must_use]
    pub fn as_turn(&self) -> Option<&Turn> {
        match self {
            Self::Turn(t) => Some(t),
            Self::Compaction(_) => None,
        }
    }

    /// The event id.
    #[must_use]
    pub fn id(&self) -> &str {
        match self {
            Self::Turn(t) => &t.id,
            Self::Compaction(c) => &c.id,
        }
    }

    /// The revision this event was written at.
    #[must_use]
    pub fn revision(&self) -> u64 {
        match self {
            Self::Turn(t) => t.revision,
            Self::Compaction(c) => c.revision,
        }
    }

    /// Sets the revision this event is written at.
    pub fn set_revision(&mut self, revision: u64) {
        match self {
            Self::Turn(t) => t.revision = revision,
            Self::Compaction(c) => c.revision = revision,
        }
    }
}

/// A change to a session other than recording a turn (see
/// [`SessionHistory::edit`](crate::session::SessionHistory::edit)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionEdit {
    /// Sets or clears the title.
    SetTitle(Option<String>),
    /// Replaces the application metadata.
    SetMetadata(Map<String, Value>),
    /// Appends a compaction whose summary starts a new active window (refused while a turn
    /// is suspended or running). The replaced turns stay in the full transcript.
    Compact {
        /// The summary of the current window.
        summary: Vec<Message>,
    },
    /// Removes the last turn ([`SessionError::NoTurn`] with an empty turn id when the session
    /// is empty or ends with a compaction). Also the way to drop a suspended turn.
    RemoveLastTurn,
}

/// Options of [`SessionDocument::fork`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ForkOptions {
    /// Also take the open turn: an incomplete one is copied as is, a suspended or running
    /// one is closed as `canceled` (its unfinished calls `unknown`).
    pub with_open_turn: bool,
}

impl ForkOptions {
    /// Takes the open turn too.
    #[must_use]
    pub fn with_open_turn(mut self) -> Self {
        self.with_open_turn = true;
        self
    }
}

/// A whole session: summary, revision and every event. Stores return it from
/// [`SessionHistory::document`](crate::session::SessionHistory::document) and accept it in
/// [`SessionStore::import`](crate::session::SessionStore::import); serialized with serde it
/// is the stable, versioned export format (`format` = [`SESSION_DOCUMENT_FORMAT`],
/// `version` = [`SESSION_DOCUMENT_VERSION`]).
///
/// ```
/// use dive_core::{Message, SessionDocument, SessionEvent, Turn};
/// let mut doc = SessionDocument::new("chat");
/// doc.events.push(SessionEvent::Turn(Turn::completed("t1", vec![Message::user("hi")])));
/// let json = serde_json::to_string(&doc).unwrap();
/// let back: SessionDocument = serde_json::from_str(&json).unwrap();
/// assert_eq!(back, doc);
/// assert_eq!(back.messages().len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionDocument {
    /// Always [`SESSION_DOCUMENT_FORMAT`].
    pub format: String,
    /// The document version.
    pub version: u32,
    /// Summary: id, title, times, metadata.
    pub info: SessionInfo,
    /// The revision (advances on every write).
    pub revision: u64,
    /// Turns and compactions, oldest first.
    pub events: Vec<SessionEvent>,
}

impl SessionDocument {
    /// An empty session.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            format: SESSION_DOCUMENT_FORMAT.to_owned(),
            version: SESSION_DOCUMENT_VERSION,
            info: SessionInfo::new(id),
            revision: 0,
            events: Vec::new(),
        }
    }

    /// The session id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.info.id
    }

    /// Checks what an import needs: the format, a version this library reads, a valid id.
    ///
    /// # Errors
    /// [`SessionError::Rejected`] or [`SessionError::InvalidId`].
    pub fn validate(&self) -> Result<(), SessionError> {
        if self.format != SESSION_DOCUMENT_FORMAT {
            return Err(SessionError::Rejected(format!(
                "not a session document (format {:?}, expected {SESSION_DOCUMENT_FORMAT:?})",
                self.format
            )));
        }
        if self.version > SESSION_DOCUMENT_VERSION {
            return Err(SessionError::Rejected(format!(
                "session document version {} is newer than this library reads ({SESSION_DOCUMENT_VERSION})",
                self.version
            )));
        }
        validate_session_id(&self.info.id)
    }

    /// Index of the open turn: the last event when it is a suspended, incomplete or running
    /// turn.
    #[must_use]
    pub fn open_turn_index(&self) -> Option<usize> {
        let last = self.events.len().checked_sub(1)?;
        self.events[last].as_turn().is_some_and(|t| t.status.is_open()).then_some(last)
    }

    /// The open turn.
    #[must_use]
    pub fn open_turn(&self) -> Option<&Turn> {
        self.open_turn_index().and_then(|i| self.events[i].as_turn())
    }

    /// Whether the open turn is in this status.
    #[must_use]
    pub fn open_turn_is(&self, status: TurnStatus) -> bool {
        self.open_turn().is_some_and(|t| t.status == status)
    }

    /// Index of the latest compaction (where the active window starts).
    fn window_start(&self) -> Option<usize> {
        self.events.iter().rposition(|e| matches!(e, SessionEvent::Compaction(_)))
    }

    fn window_messages(&self, end: usize) -> Vec<Message> {
        let start = self.window_start().filter(|s| *s < end);
        let mut out = Vec::new();
        let from = match start {
            Some(s) => {
                if let SessionEvent::Compaction(c) = &self.events[s] {
                    out.extend(c.summary.iter().cloned());
                }
                s + 1
            }
            None => 0,
        };
        for event in &self.events[from..end] {
            if let SessionEvent::Turn(t) = event {
                out.extend(t.messages.iter().cloned());
            }
        }
        out
    }

    /// The active window: the latest compaction's summary, then every later turn's messages
    /// (the open turn included).
    #[must_use]
    pub fn messages(&self) -> Vec<Message> {
        self.window_messages(self.events.len())
    }

    /// The full transcript: every turn's messages, compactions ignored.
    #[must_use]
    pub fn all_messages(&self) -> Vec<Message> {
        self.turn_records().flat_map(|t| t.messages.iter().cloned()).collect()
    }

    fn turn_records(&self) -> impl Iterator<Item = &Turn> {
        self.events.iter().filter_map(SessionEvent::as_turn)
    }

    /// Every turn, oldest first, with incomplete turns followed by another turn marked
    /// [`superseded`](Turn::superseded).
    #[must_use]
    pub fn turns(&self) -> Vec<Turn> {
        let mut turns: Vec<Turn> = self.turn_records().cloned().collect();
        let n = turns.len();
        for (i, t) in turns.iter_mut().enumerate() {
            t.superseded = i + 1 < n && t.status == TurnStatus::Incomplete;
        }
        turns
    }

    /// The compactions, oldest first.
    pub fn compactions(&self) -> impl Iterator<Item = &Compaction> {
        self.events.iter().filter_map(|e| match e {
            SessionEvent::Compaction(c) => Some(c),
            SessionEvent::Turn(_) => None,
        })
    }

    /// The usage of every turn, summed.
    #[must_use]
    pub fn total_usage(&self) -> Usage {
        let mut total = Usage::default();
        for t in self.turn_records() {
            total += &t.usage;
        }
        total
    }

    /// The snapshot an agent loads: the active window before the open turn, the open turn,
    /// the revision and the latest outcome.
    #[must_use]
    pub fn snapshot(&self) -> SessionSnapshot {
        let open = self.open_turn_index();
        SessionSnapshot {
            history: self.window_messages(open.unwrap_or(self.events.len())),
            open_turn: self.open_turn().cloned(),
            revision: self.revision,
            latest_outcome: self.turn_records().last().and_then(|t| t.outcome.clone()),
        }
    }

    /// Recomputes the summary (event count, suspension, last update) from the events.
    pub fn refresh_info(&mut self) {
        self.info.event_count = self.events.len() as u64;
        self.info.suspended = self.open_turn_is(TurnStatus::Suspended);
        let latest = self.events.iter().map(|e| match e {
            SessionEvent::Turn(t) => t.updated_at,
            SessionEvent::Compaction(c) => c.created_at,
        });
        if let Some(latest) = latest.max() {
            self.info.updated_at = self.info.updated_at.max(latest);
        }
    }

    /// A copy under a new id, up to the last completed turn; with
    /// [`ForkOptions::with_open_turn`] the open turn comes too (suspended or running turns
    /// closed as `canceled`). Title and metadata are copied; `forked_from` names this session.
    ///
    /// # Errors
    /// [`SessionError::InvalidId`] for a bad `new_id`.
    pub fn fork(&self, new_id: &str, options: &ForkOptions) -> Result<SessionDocument, SessionError> {
        validate_session_id(new_id)?;
        let mut events = self.events.clone();
        if let Some(i) = self.open_turn_index() {
            if !options.with_open_turn {
                events.truncate(i);
            } else if let Some(SessionEvent::Turn(turn)) = events.get_mut(i)
                && turn.status != TurnStatus::Incomplete
            {
                close_as_canceled(turn);
            }
        }
        let mut info = SessionInfo::new(new_id);
        info.title.clone_from(&self.info.title);
        info.metadata.clone_from(&self.info.metadata);
        info.forked_from = Some(self.info.id.clone());
        let mut doc = SessionDocument { info, events, ..SessionDocument::new(new_id) };
        doc.revision = self.revision;
        doc.refresh_info();
        Ok(doc)
    }
}

/// Closes a suspended or running turn as `canceled`: calls without a result become `unknown`.
fn close_as_canceled(turn: &mut Turn) {
    let mut calls: Vec<ToolCallRecord> =
        turn.outcome.as_ref().map(|o| o.tool_calls.clone()).unwrap_or_default();
    if calls.is_empty() {
        calls.clone_from(&turn.tool_calls);
    }
    if let Some(s) = &turn.suspension {
        for p in &s.pending {
            if !calls.iter().any(|c| c.id == p.id) {
                calls.push(ToolCallRecord::new(&p.id, &p.name, ToolCallState::Unknown));
            }
        }
    }
    for c in &mut calls {
        if matches!(c.state, ToolCallState::Running | ToolCallState::Waiting) {
            c.state = ToolCallState::Unknown;
        }
    }
    turn.suspension = None;
    turn.close(
        TurnOutcome::new(OutcomeReason::Canceled, calls)
            .with_error("the open turn was closed when the session was forked"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc_with(events: Vec<SessionEvent>) -> SessionDocument {
        let mut d = SessionDocument::new("s");
        d.events = events;
        d
    }

    #[test]
    fn compaction_starts_a_new_window_and_keeps_the_transcript() {
        let d = doc_with(vec![
            SessionEvent::Turn(Turn::completed("t1", vec![Message::user("a"), Message::assistant("b")])),
            SessionEvent::Compaction(Compaction::new(vec![Message::user("summary")], 2)),
            SessionEvent::Turn(Turn::completed("t2", vec![Message::user("c")])),
        ]);
        let texts = |m: Vec<Message>| m.iter().map(Message::text).collect::<Vec<_>>();
        assert_eq!(texts(d.messages()), ["summary", "c"]);
        assert_eq!(texts(d.all_messages()), ["a", "b", "c"]);
        assert_eq!(texts(d.snapshot().history), ["summary", "c"]);
        assert_eq!(d.compactions().count(), 1);
    }

    #[test]
    fn fork_stops_at_the_last_completed_turn_unless_asked() {
        let mut suspended = Turn::new("t2", vec![Message::user("ask")]);
        suspended.suspension = Some(Box::default());
        suspended.close(TurnOutcome::new(OutcomeReason::Suspended, vec![]));
        let d = doc_with(vec![
            SessionEvent::Turn(Turn::completed("t1", vec![Message::user("a")])),
            SessionEvent::Turn(suspended),
        ]);
        let plain = d.fork("copy", &ForkOptions::default()).unwrap();
        assert_eq!(plain.events.len(), 1);
        assert_eq!(plain.info.forked_from.as_deref(), Some("s"));
        let with_open = d.fork("copy", &ForkOptions::default().with_open_turn()).unwrap();
        let turn = with_open.events[1].as_turn().unwrap();
        assert_eq!(turn.status, TurnStatus::Incomplete);
        assert_eq!(turn.outcome.as_ref().unwrap().reason, OutcomeReason::Canceled);
        assert!(turn.suspension.is_none() && !with_open.info.suspended);
        assert!(d.fork("../x", &ForkOptions::default()).is_err());
    }

    #[test]
    fn documents_from_the_future_are_refused() {
        let mut d = SessionDocument::new("s");
        assert!(d.validate().is_ok());
        d.version = SESSION_DOCUMENT_VERSION + 1;
        assert!(matches!(d.validate(), Err(SessionError::Rejected(_))));
        d.version = 1;
        d.format = "other".into();
        assert!(matches!(d.validate(), Err(SessionError::Rejected(_))));
    }

    #[test]
    fn total_usage_sums_turns() {
        let mut a = Turn::completed("a", vec![]);
        a.usage = Usage::new(10, 5);
        let mut b = Turn::completed("b", vec![]);
        b.usage = Usage::new(1, 2);
        let d = doc_with(vec![SessionEvent::Turn(a), SessionEvent::Turn(b)]);
        assert_eq!((d.total_usage().input_tokens, d.total_usage().output_tokens), (11, 7));
    }
}
