//! [`ExternalAgent`]: a subagent type that runs somewhere else — a remote A2A agent, another
//! process — offered by the `Agent` tool like any other type. The catalog holds it beside a
//! [`Definition`](crate::Definition) (its name and description for the model); the `Agent`
//! tool hands it the task and the run's cancellation, and it returns its [`Report`].

use std::sync::Arc;

use dive_agent::CancellationToken;
use dive_core::BoxFuture;

use crate::launch::Report;

/// A subagent that runs elsewhere. Cancelling the parent (or `TaskStop` on a background
/// run) cancels `cancel`; an implementation should then stop the remote work and return a
/// report saying so.
///
/// ```
/// use dive_agent::CancellationToken;
/// use dive_core::BoxFuture;
/// use dive_subagent::{ExternalAgent, Report};
///
/// /// Answers every task by shouting it back.
/// struct Echo;
/// impl ExternalAgent for Echo {
///     fn run<'a>(&'a self, task: String, _cancel: CancellationToken) -> BoxFuture<'a, Report> {
///         Box::pin(async move { Report::answered(task.to_uppercase()) })
///     }
/// }
/// ```
pub trait ExternalAgent: Send + Sync {
    /// Runs `task` to its report (never fails: a failure is a report with a reason).
    fn run<'a>(&'a self, task: String, cancel: CancellationToken) -> BoxFuture<'a, Report>;
}

/// An external agent in the catalog (cheap to clone).
#[derive(Clone)]
pub(crate) struct External(pub(crate) Arc<dyn ExternalAgent>);

impl std::fmt::Debug for External {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ExternalAgent")
    }
}
