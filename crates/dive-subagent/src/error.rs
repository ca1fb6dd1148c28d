//! [`SubagentError`]: why a subagent could not start, or a run could not be stopped.

/// Why a subagent could not be started, or a background run stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SubagentError {
    /// The model asked for a kind of subagent the catalog does not hold.
    #[error("there is no subagent type {name:?}: use one of {}", known.join(", "))]
    UnknownType {
        /// What was asked for.
        name: String,
        /// The types there are.
        known: Vec<String>,
    },
    /// A definition names a model the factory does not know.
    #[error(
        "the subagent {subagent:?} asks for the model {model:?}, which is not configured: add it to the factory or use `model: inherit`"
    )]
    UnknownModel {
        /// The subagent.
        subagent: String,
        /// The model name.
        model: String,
    },
    /// The subagent's agent could not be built.
    #[error("cannot build the subagent {subagent:?}: {source}")]
    Build {
        /// The subagent.
        subagent: String,
        /// Why.
        #[source]
        source: dive_agent::AgentError,
    },
    /// The temporary worktree could not be made or removed.
    #[error("worktree isolation failed: {0}")]
    Worktree(String),
    /// No background run has this id.
    #[error("there is no background task {0:?}: it may have finished and been delivered already")]
    UnknownTask(String),
    /// The run had already finished.
    #[error("the background task {0:?} has already finished")]
    Finished(String),
}
