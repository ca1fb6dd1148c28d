//! Writing turn records (revision-checked on a `TurnStore`), step checkpoints, and session
//! claims with lease renewal.

use std::sync::Arc;

use dive_core::{Message, OutcomeReason, Session, SessionError, ToolCallRecord, Turn, TurnStatus};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::{Exit, Run};
use crate::agent::ClaimOptions;
use crate::error::{AgentError, TurnFailure};

impl Run {
    /// Writes a turn record: a revision-checked checkpoint on a turn store, else `save_turn`.
    pub(super) async fn write_turn(&mut self, turn: &Turn) -> Result<u64, SessionError> {
        let Some(session) = self.session.clone() else { return Ok(0) };
        write_record(&*session, &mut self.revision, turn).await
    }

    /// The turn as it stands: input, output (plus `extra`, e.g. the results a batch has so
    /// far), usage and call states.
    pub(super) fn turn_record(&self, extra: Option<Message>) -> Turn {
        let mut turn = self.record_of(self.input.clone(), self.output.clone(), self.tool_records.clone());
        turn.messages.extend(extra);
        turn
    }

    /// The closing turn record: [`turn_record`](Self::turn_record), with the input moved out
    /// of the run rather than copied, the output moved out of the working set when that ends
    /// with it, and the call records read from the closing `outcome`.
    pub(super) fn final_turn_record(&mut self, outcome: &dive_core::TurnOutcome) -> Turn {
        let input = std::mem::take(&mut self.input);
        let output = self.final_output();
        self.record_of(input, output, outcome.tool_calls.clone())
    }

    /// A copy of the output for the closing record. The working set is not read again after
    /// it (unless the run compacted it: then it is recorded in the session), and it ends with
    /// the output unless a hook or compaction rewrote it: then its tail is moved, not cloned.
    fn final_output(&mut self) -> Vec<Message> {
        let n = self.output.len();
        if !self.compaction.compacted()
            && let Some(working) = Arc::get_mut(&mut self.working)
            && let Some(start) = working.len().checked_sub(n)
            && working[start..] == self.output[..]
        {
            return super::messages::take_from(working, start);
        }
        self.output.clone()
    }

    /// A turn record of `input` and `output`, the run's usage, and `tool_calls`.
    fn record_of(&self, input: Vec<Message>, output: Vec<Message>, tool_calls: Vec<ToolCallRecord>) -> Turn {
        let mut turn = Turn::new_at(self.turn_id.clone(), input, self.agent.inner.seams.now());
        turn.messages.extend(output);
        turn.usage = self.turn_usage();
        turn.tool_calls = tool_calls;
        turn.origin = self.origin.clone().or(turn.origin);
        turn
    }

    /// Whether the run records a checkpoint at each step (the agent asks for them and the
    /// run has a session).
    pub(super) fn checkpoints_each_step(&self) -> bool {
        self.agent.inner.checkpoint_steps && self.session.is_some()
    }

    /// Records the turn as `running` when step checkpoints are on. A failed checkpoint stops
    /// the turn before the step it guards.
    pub(super) async fn checkpoint(&mut self, extra: Option<Message>) -> Option<Exit> {
        if !self.checkpoints_each_step() {
            return None;
        }
        let mut turn = self.turn_record(extra);
        turn.status = TurnStatus::Running;
        match self.write_turn(&turn).await {
            Ok(_) => None,
            Err(e) => {
                Some(Exit::Failed { reason: OutcomeReason::Error, cause: TurnFailure::Save(e), hook: None })
            }
        }
    }

    /// Inserts or updates call records by id, keeping first-seen order. The first records,
    /// when their ids are distinct, are taken as they are (no second list is allocated).
    pub(super) fn upsert_records(&mut self, records: Vec<ToolCallRecord>) {
        let distinct = records.iter().enumerate().all(|(i, r)| records[..i].iter().all(|p| p.id != r.id));
        if self.tool_records.is_empty() && distinct {
            self.tool_records = records;
            return;
        }
        for record in records {
            match self.tool_records.iter_mut().find(|r| r.id == record.id) {
                Some(existing) => *existing = record,
                None => self.tool_records.push(record),
            }
        }
    }
}

/// Writes a turn record and tracks the session revision: a revision-checked checkpoint on a
/// turn store, else `save_turn`.
pub(super) async fn write_record(
    session: &dyn Session,
    revision: &mut u64,
    turn: &Turn,
) -> Result<u64, SessionError> {
    let new = match session.as_turn_store() {
        Some(store) => store.checkpoint_turn(*revision, turn).await?,
        None => session.save_turn(turn).await?,
    };
    *revision = new;
    Ok(new)
}

/// A held session claim: renewed every third of its TTL until dropped or released; a failed
/// renewal cancels `lost`.
pub(crate) struct ClaimGuard {
    session: Arc<dyn Session>,
    owner: String,
    renewal: JoinHandle<()>,
    pub(crate) lost: CancellationToken,
    pub(crate) loss: Arc<std::sync::Mutex<Option<SessionError>>>,
}

impl ClaimGuard {
    /// Claims `session` for `options.owner`; fails when another owner holds it.
    pub(crate) async fn acquire(
        session: Arc<dyn Session>,
        options: &ClaimOptions,
    ) -> Result<Self, AgentError> {
        let claimer = session.as_claimer().ok_or_else(|| crate::error::Rejection::Unsupported {
            session: session.id().to_owned(),
            needs: "be claimed (it is not a SessionClaimer)",
        })?;
        claimer.claim(&options.owner, options.ttl).await?;
        let lost = CancellationToken::new();
        let loss = Arc::new(std::sync::Mutex::new(None));
        let (s, owner, ttl, token, slot) =
            (Arc::clone(&session), options.owner.clone(), options.ttl, lost.clone(), Arc::clone(&loss));
        let renewal = tokio::spawn(async move {
            let every = (ttl / 3).max(std::time::Duration::from_millis(10));
            loop {
                tokio::time::sleep(every).await;
                let Some(claimer) = s.as_claimer() else { return };
                if let Err(e) = claimer.claim(&owner, ttl).await {
                    tracing::error!(session = s.id(), error = %e, "lost the session claim; cancelling the run");
                    *slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(e);
                    token.cancel();
                    return;
                }
            }
        });
        Ok(Self { session, owner: options.owner.clone(), renewal, lost, loss })
    }

    /// Stops renewing and releases the claim (best effort, bounded).
    pub(crate) async fn release(self, timeout: std::time::Duration) {
        self.renewal.abort();
        if let Some(claimer) = self.session.as_claimer() {
            match tokio::time::timeout(timeout, claimer.release(&self.owner)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(error = %e, "releasing the session claim failed"),
                Err(_) => tracing::warn!("releasing the session claim timed out"),
            }
        }
    }

    /// The error that made the claim lost, if it was.
    pub(crate) fn take_loss(&self) -> Option<SessionError> {
        self.loss.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()
    }
}

impl Drop for ClaimGuard {
    fn drop(&mut self) {
        self.renewal.abort();
    }
}
