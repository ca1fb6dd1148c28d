//! [`Delivery`]: the PreIteration hook that hands the parent's model what its background runs
//! produced since its last call (finished results, new command output).

use dive_core::{
    BoxFuture, GenerationContext, GenerationEdit, HookError, PreIterationHook, QueuedReminder, Reminder,
};

use crate::runs::Runs;

/// The name of the reminder background results arrive in.
pub const NOTIFICATION_REMINDER: &str = "task-notification";

/// Delivers [`Runs::take_notifications`] as a recorded reminder before every model call, so
/// the results reach the model on its next call (in this turn or the next one) and stay in
/// the history.
#[derive(Debug, Clone)]
pub struct Delivery {
    runs: Runs,
}

impl Delivery {
    /// The hook over `runs`.
    #[must_use]
    pub fn new(runs: Runs) -> Self {
        Self { runs }
    }
}

impl PreIterationHook for Delivery {
    fn name(&self) -> &str {
        "subagent-delivery"
    }

    fn pre_iteration(&self, _ctx: GenerationContext) -> BoxFuture<'_, Result<GenerationEdit, HookError>> {
        let notes = self.runs.take_notifications();
        Box::pin(async move {
            if notes.is_empty() {
                return Ok(GenerationEdit::unchanged());
            }
            let reminder = Reminder::new(NOTIFICATION_REMINDER, notes.join("\n"))
                .map_err(|e| HookError::new(e.to_string()))?;
            Ok(GenerationEdit::unchanged().with_reminder(QueuedReminder::recorded(reminder)))
        })
    }
}
