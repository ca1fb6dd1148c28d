//! Why a run stops early, and the checks made at every step boundary.

use std::pin::Pin;

use dive_core::{OutcomeReason, SoftCancel};
use tokio::time::{Instant, Sleep};
use tokio_util::sync::CancellationToken;

use crate::error::TurnFailure;

/// An external reason to stop: hard cancel, soft cancel or the response timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Interrupt {
    Cancelled,
    SoftCancelled,
    Deadline,
    ClaimLost,
}

impl Interrupt {
    pub(crate) fn reason(self) -> OutcomeReason {
        match self {
            Self::Cancelled | Self::SoftCancelled | Self::ClaimLost => OutcomeReason::Canceled,
            Self::Deadline => OutcomeReason::Deadline,
        }
    }

    pub(crate) fn failure(self) -> TurnFailure {
        match self {
            Self::Cancelled => TurnFailure::Cancelled,
            Self::SoftCancelled => TurnFailure::SoftCancelled,
            Self::Deadline => TurnFailure::Deadline,
            Self::ClaimLost => TurnFailure::ClaimLost(dive_core::SessionError::Rejected(
                "another owner took the session".into(),
            )),
        }
    }
}

/// The run's cancellation sources. Cheap to clone, so a `select!` can wait on a copy while the
/// step it races borrows the run mutably.
#[derive(Debug, Clone)]
pub(crate) struct Interrupts {
    pub(crate) cancel: Option<CancellationToken>,
    pub(crate) soft: SoftCancel,
    pub(crate) deadline: Option<Instant>,
    /// Cancelled when the session claim is lost.
    pub(crate) claim_lost: Option<CancellationToken>,
}

impl Interrupts {
    /// The interrupt in force now, hard reasons first.
    pub(crate) fn check(&self) -> Option<Interrupt> {
        if self.cancel.as_ref().is_some_and(CancellationToken::is_cancelled) {
            return Some(Interrupt::Cancelled);
        }
        if self.claim_lost.as_ref().is_some_and(CancellationToken::is_cancelled) {
            return Some(Interrupt::ClaimLost);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(Interrupt::Deadline);
        }
        self.soft.is_cancelled().then_some(Interrupt::SoftCancelled)
    }
}

/// Waits for a hard interrupt (cancel token, lost claim or deadline) while a step runs; soft
/// cancel is not waited on, it lets running steps finish. A run keeps one between its steps,
/// so the response timeout is one timer a run (registered at the first wait), not one a step.
pub(crate) struct HardStop {
    interrupts: Interrupts,
    deadline: Option<Pin<Box<Sleep>>>,
}

impl HardStop {
    pub(crate) fn new(interrupts: &Interrupts) -> Self {
        let deadline = interrupts.deadline.map(|d| Box::pin(tokio::time::sleep_until(d)));
        Self { interrupts: interrupts.clone(), deadline }
    }

    /// Resolves when a hard interrupt happens; never otherwise.
    pub(crate) async fn wait(&mut self) -> Interrupt {
        let cancelled = async {
            match &self.interrupts.cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let deadline = async {
            match &mut self.deadline {
                Some(timer) => timer.as_mut().await,
                None => std::future::pending().await,
            }
        };
        let claim = async {
            match &self.interrupts.claim_lost {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            () = cancelled => Interrupt::Cancelled,
            () = claim => Interrupt::ClaimLost,
            () = deadline => Interrupt::Deadline,
        }
    }
}
