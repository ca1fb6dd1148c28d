//! [`SessionLog`]: the write rules every store shares (turn records, compactions,
//! revisions), independent of storage.
//! Every store keeps its sessions as a [`SessionDocument`] and changes it only through here.

use dive_core::{
    Compaction, ListOptions, OutcomeReason, SessionDocument, SessionEdit, SessionError, SessionEvent,
    SessionInfo, SessionPage, SessionSnapshot, Timestamp, ToolCallState, Turn, TurnOutcome, TurnStatus,
};

/// A session's document with the rules for changing it.
///
/// - the **open turn** is the last event when it is a suspended, incomplete or running turn;
/// - recording a turn with the open turn's id replaces it; any other id is appended, except
///   while the open turn is suspended ([`SessionError::Suspended`]) and for the id of a turn
///   already closed ([`SessionError::Rejected`]);
/// - the revision advances on every write (turns, compactions, edits);
/// - a turn found `running` on load is closed as `process_exit`, its running calls
///   `unknown` ([`recover_running_turn`](Self::recover_running_turn); the store persists it
///   once).
///
/// The document is private: read it with [`document`](Self::document), change it only
/// through the rules.
///
/// ```compile_fail
/// let mut log = dive_session_log::SessionLog::new("chat");
/// log.doc.events.clear(); // the document is not reachable: only the rules change it
/// ```
#[derive(Debug, Clone)]
pub struct SessionLog {
    doc: SessionDocument,
}

impl SessionLog {
    /// An empty log.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        Self { doc: SessionDocument::new(id) }
    }

    /// A log for an imported document (checked with [`SessionDocument::validate`]).
    ///
    /// # Errors
    /// The validation error.
    pub fn import(document: &SessionDocument) -> Result<Self, SessionError> {
        document.validate()?;
        Ok(Self::from_stored(document.clone()))
    }

    /// A log over a document read back from the store's own storage: trusted as written
    /// (use [`import`](Self::import) for documents from elsewhere), its summary refreshed
    /// from its events and its revision at least that of its last event.
    #[must_use]
    pub fn from_stored(mut document: SessionDocument) -> Self {
        document.revision =
            document.revision.max(document.events.iter().map(SessionEvent::revision).max().unwrap_or(0));
        document.refresh_info();
        Self { doc: document }
    }

    /// The error an import into an existing session gets: a store refuses to overwrite.
    #[must_use]
    pub fn exists_error(id: &str) -> SessionError {
        SessionError::Rejected(format!("session {id:?} already exists; delete it before importing"))
    }

    /// The session id.
    #[must_use]
    pub fn id(&self) -> &str {
        &self.doc.info.id
    }

    /// The session as it stands (for reads, exports and writing it to storage).
    #[must_use]
    pub fn document(&self) -> &SessionDocument {
        &self.doc
    }

    /// The session's document, for a store that hands it over whole.
    #[must_use]
    pub fn into_document(self) -> SessionDocument {
        self.doc
    }

    /// [`Session::load`](dive_core::Session::load) by the rules: recovers a turn left
    /// `running`, then returns the snapshot and whether the recovery changed the log (the
    /// store then persists it, so recovery is stored once).
    pub fn load(&mut self) -> (SessionSnapshot, bool) {
        let recovered = self.recover_running_turn();
        (self.snapshot(), recovered)
    }

    /// The current revision.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.doc.revision
    }

    /// The session summary.
    #[must_use]
    pub fn info(&self) -> &SessionInfo {
        &self.doc.info
    }

    fn check(&self, expected_revision: Option<u64>) -> Result<(), SessionError> {
        match expected_revision {
            Some(expected) if expected != self.doc.revision => Err(SessionError::RevisionConflict {
                id: self.doc.info.id.clone(),
                expected,
                actual: self.doc.revision,
            }),
            _ => Ok(()),
        }
    }

    fn next_revision(&mut self) -> u64 {
        self.doc.revision += 1;
        self.doc.revision
    }

    /// Records a turn and returns the new revision.
    ///
    /// # Errors
    /// [`SessionError::Suspended`] when a different turn is suspended;
    /// [`SessionError::Rejected`] when the turn id names a closed turn.
    pub fn record(&mut self, turn: &Turn) -> Result<u64, SessionError> {
        let open = self.doc.open_turn_index();
        let open_turn = open.and_then(|i| self.doc.events[i].as_turn());
        match (open, open_turn) {
            (Some(i), Some(t)) if t.id == turn.id => {
                let mut t = turn.clone();
                t.revision = self.next_revision();
                self.doc.events[i] = SessionEvent::Turn(t);
            }
            (_, Some(t)) if t.status == TurnStatus::Suspended => {
                return Err(SessionError::Suspended(self.doc.info.id.clone()));
            }
            _ => {
                if self.doc.events.iter().any(|e| e.as_turn().is_some_and(|t| t.id == turn.id)) {
                    return Err(SessionError::Rejected(format!(
                        "turn {:?} is already closed in session {:?}",
                        turn.id, self.doc.info.id
                    )));
                }
                let mut t = turn.clone();
                t.revision = self.next_revision();
                self.doc.events.push(SessionEvent::Turn(t));
            }
        }
        self.touch();
        Ok(self.doc.revision)
    }

    /// Records a turn only at `expected_revision`.
    ///
    /// # Errors
    /// [`SessionError::RevisionConflict`], or the errors of [`record`](Self::record).
    pub fn checkpoint(&mut self, expected_revision: u64, turn: &Turn) -> Result<u64, SessionError> {
        self.check(Some(expected_revision))?;
        self.record(turn)
    }

    /// Applies an edit (title, metadata, compaction, removal), optionally only at
    /// `expected_revision`; returns the new revision.
    ///
    /// # Errors
    /// [`SessionError::RevisionConflict`]; for `Compact`, [`SessionError::Suspended`] while a
    /// turn is suspended and [`SessionError::Rejected`] while one is running; for
    /// `RemoveLastTurn`, [`SessionError::NoTurn`] (empty turn id) when the last event is not a
    /// turn.
    pub fn edit(&mut self, expected_revision: Option<u64>, edit: &SessionEdit) -> Result<u64, SessionError> {
        self.check(expected_revision)?;
        match edit {
            SessionEdit::SetTitle(title) => title.clone_into(&mut self.doc.info.title),
            SessionEdit::SetMetadata(metadata) => metadata.clone_into(&mut self.doc.info.metadata),
            SessionEdit::Compact { summary } => {
                if self.doc.open_turn_is(TurnStatus::Suspended) {
                    return Err(SessionError::Suspended(self.doc.info.id.clone()));
                }
                if self.doc.open_turn_is(TurnStatus::Running) {
                    return Err(SessionError::Rejected(format!(
                        "session {:?} has a running turn; it cannot be compacted",
                        self.doc.info.id
                    )));
                }
                let replaced = self.doc.messages().len();
                let mut compaction = Compaction::new(summary.clone(), replaced);
                compaction.revision = self.doc.revision + 1;
                self.doc.events.push(SessionEvent::Compaction(compaction));
            }
            SessionEdit::RemoveLastTurn => {
                if !matches!(self.doc.events.last(), Some(SessionEvent::Turn(_))) {
                    return Err(SessionError::NoTurn {
                        session_id: self.doc.info.id.clone(),
                        turn_id: String::new(),
                    });
                }
                self.doc.events.pop();
            }
            other => {
                return Err(SessionError::Rejected(format!("this version cannot apply the edit {other:?}")));
            }
        }
        self.next_revision();
        self.touch();
        Ok(self.doc.revision)
    }

    /// Whether the open turn was left `running` (by a process that died mid-turn).
    #[must_use]
    pub fn has_running_turn(&self) -> bool {
        self.doc.open_turn_is(TurnStatus::Running)
    }

    /// Closes a turn left `running` by a dead process; returns whether it changed anything.
    pub fn recover_running_turn(&mut self) -> bool {
        if !self.has_running_turn() {
            return false;
        }
        let revision = self.doc.revision + 1;
        let Some(SessionEvent::Turn(turn)) = self.doc.events.last_mut() else { return false };
        let mut calls = turn.tool_calls.clone();
        for c in &mut calls {
            if c.state == ToolCallState::Running {
                c.state = ToolCallState::Unknown;
            }
        }
        turn.tool_calls.clone_from(&calls);
        let outcome = TurnOutcome::new(OutcomeReason::ProcessExit, calls)
            .with_error("the invocation ended without recording how (the process exited mid-turn)");
        turn.close(outcome);
        turn.revision = revision;
        self.doc.revision = revision;
        self.touch();
        true
    }

    /// The snapshot an agent loads.
    #[must_use]
    pub fn snapshot(&self) -> SessionSnapshot {
        self.doc.snapshot()
    }

    /// Every turn, with incomplete turns followed by another turn marked superseded.
    #[must_use]
    pub fn turns(&self) -> Vec<Turn> {
        self.doc.turns()
    }

    fn touch(&mut self) {
        self.doc.info.updated_at = Timestamp::now();
        self.doc.refresh_info();
    }
}

/// One page of `infos` for `options`: filtered by suspension, most recently updated first
/// (ties by id), then `offset` and `limit` applied. What [`SessionStore::list`] returns.
///
/// [`SessionStore::list`]: dive_core::SessionStore::list
#[must_use]
pub fn page_of(infos: impl IntoIterator<Item = SessionInfo>, options: &ListOptions) -> SessionPage {
    let mut infos: Vec<_> =
        infos.into_iter().filter(|i| options.suspended.is_none_or(|want| i.suspended == want)).collect();
    infos.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| a.id.cmp(&b.id)));
    let total = infos.len();
    let page = infos.into_iter().skip(options.offset).take(options.limit.unwrap_or(usize::MAX)).collect();
    SessionPage::new(page, total)
}
