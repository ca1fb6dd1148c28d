//! [`SessionLog`]: the turn-record rules of reference §6.11–6.12, independent of storage.

use dive_core::{
    ListOptions, OutcomeReason, SessionError, SessionInfo, SessionPage, SessionSnapshot, Timestamp,
    ToolCallState, Turn, TurnOutcome, TurnStatus,
};

/// A session's turns and revision, with the rules for recording a turn.
///
/// - the **open turn** is the last turn when it is suspended, incomplete or running;
/// - recording a turn with the open turn's id replaces it; any other id is appended (refused
///   while the open turn is suspended; re-recording a closed turn is a conflict);
/// - the revision advances on every write;
/// - a turn found `running` on load is closed as `process_exit`.
#[derive(Debug, Clone)]
pub struct SessionLog {
    /// Session summary.
    pub info: SessionInfo,
    /// Turns, oldest first.
    pub turns: Vec<Turn>,
    /// Current revision.
    pub revision: u64,
}

impl SessionLog {
    /// An empty log.
    #[must_use]
    pub fn new(id: impl Into<String>) -> Self {
        Self { info: SessionInfo::new(id), turns: Vec::new(), revision: 0 }
    }

    fn open_index(&self) -> Option<usize> {
        let last = self.turns.len().checked_sub(1)?;
        self.turns[last].status.is_open().then_some(last)
    }

    /// Records a turn and returns the new revision.
    ///
    /// # Errors
    /// [`SessionError::Suspended`] when a different turn is suspended;
    /// [`SessionError::Rejected`] when the turn id names a closed turn.
    pub fn record(&mut self, turn: &Turn) -> Result<u64, SessionError> {
        let open = self.open_index();
        match open {
            Some(i) if self.turns[i].id == turn.id => {
                self.revision += 1;
                let mut t = turn.clone();
                t.revision = self.revision;
                self.turns[i] = t;
            }
            Some(i) if self.turns[i].status == TurnStatus::Suspended => {
                return Err(SessionError::Suspended(self.info.id.clone()));
            }
            _ => {
                if self.turns.iter().any(|t| t.id == turn.id) {
                    return Err(SessionError::Rejected(format!(
                        "turn {:?} is already closed in session {:?}",
                        turn.id, self.info.id
                    )));
                }
                self.revision += 1;
                let mut t = turn.clone();
                t.revision = self.revision;
                self.turns.push(t);
            }
        }
        self.touch();
        Ok(self.revision)
    }

    /// Records a turn only at `expected_revision`.
    ///
    /// # Errors
    /// [`SessionError::RevisionConflict`], or the errors of [`record`](Self::record).
    pub fn checkpoint(&mut self, expected_revision: u64, turn: &Turn) -> Result<u64, SessionError> {
        if expected_revision != self.revision {
            return Err(SessionError::RevisionConflict {
                id: self.info.id.clone(),
                expected: expected_revision,
                actual: self.revision,
            });
        }
        self.record(turn)
    }

    /// Whether the open turn was left `running` (by a process that died mid-turn).
    #[must_use]
    pub fn has_running_turn(&self) -> bool {
        self.open_index().is_some_and(|i| self.turns[i].status == TurnStatus::Running)
    }

    /// Closes a turn left `running` by a dead process; returns whether it changed anything.
    pub fn recover_running_turn(&mut self) -> bool {
        if !self.has_running_turn() {
            return false;
        }
        let Some(turn) = self.turns.last_mut() else { return false };
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
        self.revision += 1;
        turn.revision = self.revision;
        self.touch();
        true
    }

    /// The snapshot an agent loads.
    #[must_use]
    pub fn snapshot(&self) -> SessionSnapshot {
        let open = self.open_index();
        let closed = open.map_or(&self.turns[..], |i| &self.turns[..i]);
        let mut snapshot = SessionSnapshot::default();
        snapshot.history = closed.iter().flat_map(|t| t.messages.iter().cloned()).collect();
        snapshot.open_turn = open.map(|i| self.turns[i].clone());
        snapshot.revision = self.revision;
        snapshot.latest_outcome = self.turns.last().and_then(|t| t.outcome.clone());
        snapshot
    }

    /// Every turn, with incomplete turns followed by another turn marked superseded.
    #[must_use]
    pub fn turns(&self) -> Vec<Turn> {
        let mut turns = self.turns.clone();
        let n = turns.len();
        for (i, t) in turns.iter_mut().enumerate() {
            t.superseded = i + 1 < n && t.status == TurnStatus::Incomplete;
        }
        turns
    }

    /// Recomputes the summary (event count, suspension, last update) from the turns, e.g.
    /// after reading a file whose header predates its last appends.
    pub fn refresh_info(&mut self) {
        self.info.event_count = self.turns.len() as u64;
        self.info.suspended =
            self.open_index().is_some_and(|i| self.turns[i].status == TurnStatus::Suspended);
        if let Some(latest) = self.turns.iter().map(|t| t.updated_at).max() {
            self.info.updated_at = self.info.updated_at.max(latest);
        }
    }

    fn touch(&mut self) {
        self.info.updated_at = Timestamp::now();
        self.refresh_info();
    }
}

/// One page of `infos` for `options`: filtered by suspension, most recently updated first.
pub(crate) fn page_of(infos: impl IntoIterator<Item = SessionInfo>, options: &ListOptions) -> SessionPage {
    let mut infos: Vec<_> =
        infos.into_iter().filter(|i| options.suspended.is_none_or(|want| i.suspended == want)).collect();
    infos.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| a.id.cmp(&b.id)));
    let total = infos.len();
    let page = infos.into_iter().skip(options.offset).take(options.limit.unwrap_or(usize::MAX)).collect();
    SessionPage::new(page, total)
}
