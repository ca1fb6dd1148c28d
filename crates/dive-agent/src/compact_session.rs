//! [`Agent::compact_session`]: a session's window compacted on demand (a `/compact` command),
//! with the agent's PreCompact and PostCompact hooks, recorded as a compaction.

use dive_core::{
    CompactionError, CompactionRequest, CompactionTrigger, PostCompactContext, RunInfo, Session, SessionEdit,
    SessionError, ToolDefinition, Usage, estimate_tokens,
};

use crate::agent::Agent;
use crate::compaction::{CompactionPolicy, hooks};

/// What [`Agent::compact_session`] did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionCompaction {
    /// The window was compacted and the compaction recorded; the sizes are estimates.
    Compacted {
        /// Messages in the window before.
        messages_before: usize,
        /// Messages in the window after.
        messages_after: usize,
        /// Estimated tokens before.
        tokens_before: u64,
        /// Estimated tokens after.
        tokens_after: u64,
        /// What the compaction's model calls cost (none for the pure strategies).
        usage: Usage,
    },
    /// There was nothing the strategy could take away (an empty or very short window).
    NothingToCompact,
    /// A PreCompact hook vetoed the compaction, or failed: why.
    Vetoed(String),
}

/// Why [`Agent::compact_session`] could not compact.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompactSessionError {
    /// The session's store keeps no history to record a compaction in.
    #[error("the session {0} keeps no history to record a compaction in; use a store with history")]
    NoHistory(String),
    /// Reading the session or recording the compaction failed (nothing was recorded); a
    /// revision conflict means a turn was saved meanwhile: compact again.
    #[error("the session could not be compacted: {0}")]
    Session(#[from] SessionError),
    /// The strategy failed (nothing was recorded).
    #[error(transparent)]
    Strategy(#[from] CompactionError),
}

impl Agent {
    /// Compacts `session`'s window now, as a `/compact` command does: the agent's PreCompact
    /// hooks first (trigger `manual`; they may add instructions to `instructions` or veto),
    /// then `policy`'s strategy over the whole window, the compacted window recorded as a
    /// compaction (the transcript keeps every message; the next turn starts from it), then the
    /// PostCompact hooks. Nothing is recorded unless every step succeeded.
    ///
    /// ```
    /// # tokio_test_block_on(async {
    /// use dive_agent::{Agent, CompactionPolicy, SessionCompaction, Summarize};
    /// use dive_core::{ModelResponse, SessionStore};
    /// use dive_test::ScriptedModel;
    /// let store = dive_session::MemoryStore::new();
    /// let session = store.open("chat").await.unwrap();
    /// let model = ScriptedModel::new([ModelResponse::text("Paris."), ModelResponse::text("They asked about Paris.")]);
    /// let agent = Agent::builder().model(model.clone()).session(session.clone()).build().unwrap();
    /// agent.run("Capital of France?").await.unwrap();
    /// let policy = CompactionPolicy::new(Summarize::new(model).keep_recent(0));
    /// let done = agent.compact_session(&*session, &policy, None).await.unwrap();
    /// assert!(matches!(done, SessionCompaction::Compacted { messages_before: 2, messages_after: 1, .. }));
    /// # });
    /// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
    /// #     tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`CompactSessionError`]: a store without history, a session that cannot be read or
    /// written, a failing strategy.
    pub async fn compact_session(
        &self,
        session: &dyn Session,
        policy: &CompactionPolicy,
        instructions: Option<String>,
    ) -> Result<SessionCompaction, CompactSessionError> {
        let history =
            session.as_history().ok_or_else(|| CompactSessionError::NoHistory(session.id().to_owned()))?;
        let snapshot = session.load().await?;
        let messages = snapshot.messages();
        if messages.is_empty() {
            return Ok(SessionCompaction::NothingToCompact);
        }
        let inner = &self.inner;
        let info = RunInfo::new(std::sync::Arc::clone(&inner.name))
            .with_agent_id(std::sync::Arc::clone(&inner.id))
            .with_session(session.id());
        let tokens_before = estimate_tokens(&messages);
        let planned = hooks::Planned {
            info: &info,
            strategy: policy.strategy().name(),
            trigger: CompactionTrigger::Manual,
            estimated_tokens: tokens_before,
            message_count: messages.len(),
        };
        let instructions = match hooks::pre_compact(&inner.hooks, &planned, instructions).await {
            Ok(instructions) => instructions,
            Err(reason) => return Ok(SessionCompaction::Vetoed(reason)),
        };
        let tools: Vec<ToolDefinition> = self.tools().iter().map(|t| t.definition()).collect();
        let mut request = CompactionRequest::new(messages, CompactionTrigger::Manual)
            .with_system_prompt(self.effective_system_prompt())
            .with_estimated_tokens(tokens_before)
            .with_tools(tools);
        request.instructions = instructions;
        request.context_window = policy.context_window(&*self.model());
        let Some(window) = policy.apply(&request).await? else {
            return Ok(SessionCompaction::NothingToCompact);
        };
        let (compacted, usage) = (window.messages, window.usage);
        let (messages_before, messages_after) = (request.messages.len(), compacted.len());
        let tokens_after = estimate_tokens(&compacted);
        history.edit(Some(snapshot.revision), &SessionEdit::Compact { summary: compacted }).await?;
        let mut ctx = PostCompactContext::new(info, CompactionTrigger::Manual, policy.strategy().name());
        (ctx.tokens_before, ctx.tokens_after) = (tokens_before, tokens_after);
        (ctx.messages_before, ctx.messages_after) = (messages_before, messages_after);
        hooks::post_compact(&inner.hooks, ctx).await;
        Ok(SessionCompaction::Compacted {
            messages_before,
            messages_after,
            tokens_before,
            tokens_after,
            usage,
        })
    }
}
