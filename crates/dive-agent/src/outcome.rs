//! The engine's return contract per outcome: which ways a turn ends make a run an error.
//! dive-core names the reasons; what the engine does with each is decided here.

use dive_core::OutcomeReason;

/// Whether a turn that ends for `reason` makes [`Agent::run`](crate::Agent::run) return
/// [`AgentError::Turn`](crate::AgentError::Turn) (the response inside it) rather than
/// `Ok(response)`: a cancellation, a deadline, a failed or cut model call, a hook abort, a
/// failed event callback and any other error. Limits and provider stops return `Ok` with an
/// incomplete turn. Cancelling a suspended turn on request is the one `canceled` that returns
/// `Ok`: it is what the caller asked for.
///
/// ```
/// use dive_agent::outcome_returns_error;
/// use dive_core::OutcomeReason;
/// assert!(outcome_returns_error(&OutcomeReason::StreamInterrupted));
/// assert!(!outcome_returns_error(&OutcomeReason::OutputLimit));
/// ```
#[must_use]
pub fn outcome_returns_error(reason: &OutcomeReason) -> bool {
    matches!(
        reason,
        OutcomeReason::Canceled
            | OutcomeReason::Deadline
            | OutcomeReason::ProviderError
            | OutcomeReason::StreamInterrupted
            | OutcomeReason::HookAbort
            | OutcomeReason::CallbackError
            | OutcomeReason::Error
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_of_reasons() {
        use OutcomeReason as R;
        for (r, err) in [
            (R::Canceled, true),
            (R::Deadline, true),
            (R::ProviderError, true),
            (R::StreamInterrupted, true),
            (R::HookAbort, true),
            (R::CallbackError, true),
            (R::Error, true),
            (R::OutputLimit, false),
            (R::ContextLimit, false),
            (R::IterationLimit, false),
            (R::ProviderStopped, false),
            (R::Pause, false),
            (R::ProcessExit, false),
            (R::Completed, false),
            (R::Suspended, false),
        ] {
            assert_eq!(outcome_returns_error(&r), err, "{r:?}");
        }
    }
}
