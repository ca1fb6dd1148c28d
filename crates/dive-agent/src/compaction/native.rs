//! [`Native`]: the provider's own compaction ([`Llm::compact`]) of the oldest part of the
//! working set; [`Auto`]: native where the provider has it, a [`Summarize`] otherwise.

use std::sync::Arc;

use dive_core::{
    BoxFuture, CompactedWindow, CompactionError, CompactionRequest, CompactionStrategy, Llm, LlmErrorKind,
    ModelRequest, join_messages,
};

use super::{Summarize, oldest_cut};

/// The provider compacts: everything but the newest messages (at least `keep_recent`, more
/// when needed so that no tool call is parted from its result) goes to [`Llm::compact`], and
/// what it returns (Anthropic's signed `compaction` block, OpenAI's encrypted `compaction`
/// item) stands in for them, replayed exactly on every later request. Custom instructions
/// reach the provider where its API takes them (Anthropic's; OpenAI's endpoint has none).
///
/// A provider without native compaction fails with [`CompactionError::Model`]
/// (`Unsupported`); [`Auto`] falls back to a summary instead.
///
/// ```
/// use dive_agent::{Agent, CompactionPolicy, Native};
/// use dive_test::TestModel;
/// let model = std::sync::Arc::new(TestModel::new());
/// let agent = Agent::builder()
///     .model(model.clone())
///     .compaction(CompactionPolicy::new(Native::shared(model)))
///     .build()
///     .unwrap();
/// # let _ = agent;
/// ```
#[derive(Clone)]
pub struct Native {
    model: Arc<dyn Llm>,
    keep_recent: usize,
}

impl std::fmt::Debug for Native {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Native")
            .field("model", &self.model.model())
            .field("keep_recent", &self.keep_recent)
            .finish()
    }
}

impl Native {
    /// Compacts with `model`'s provider, keeping the newest message.
    #[must_use]
    pub fn new(model: impl Llm + 'static) -> Self {
        Self::shared(Arc::new(model))
    }

    /// Compacts with a shared model's provider.
    #[must_use]
    pub fn shared(model: Arc<dyn Llm>) -> Self {
        Self { model, keep_recent: 1 }
    }

    /// Keeps at least the newest `n` messages out of the compaction (default 1).
    #[must_use]
    pub fn keep_recent(mut self, n: usize) -> Self {
        self.keep_recent = n;
        self
    }

    async fn compact_natively(
        &self,
        request: &CompactionRequest,
    ) -> Result<Option<CompactedWindow>, CompactionError> {
        let messages = &request.messages;
        let Some(cut) = oldest_cut(messages, self.keep_recent) else { return Ok(None) };
        let mut call = ModelRequest::new(messages[..cut].to_vec()).with_tools(Arc::clone(&request.tools));
        if !request.system_prompt.is_empty() {
            call = call.with_system(request.system_prompt.clone());
        }
        let compacted =
            self.model.compact(call, request.instructions.clone()).await.map_err(CompactionError::Model)?;
        if compacted.messages.is_empty() {
            return Err(CompactionError::Failed("the provider's compaction returned nothing".into()));
        }
        tracing::debug!(
            provider = self.model.provider(),
            input_tokens = compacted.usage.total_input_tokens(),
            output_tokens = compacted.usage.output_tokens,
            "native compaction"
        );
        let window = join_messages(compacted.messages, messages[cut..].to_vec());
        Ok(Some(CompactedWindow::new(window).with_usage(compacted.usage)))
    }
}

impl CompactionStrategy for Native {
    fn name(&self) -> &str {
        "native"
    }

    fn compact<'a>(
        &'a self,
        request: &'a CompactionRequest,
    ) -> BoxFuture<'a, Result<Option<CompactedWindow>, CompactionError>> {
        Box::pin(self.compact_natively(request))
    }
}

/// Native compaction when the model's provider has it ([`Llm::supports_compaction`]), a
/// [`Summarize`] by the same model otherwise, and also when the native call fails (a model
/// the provider cannot compact, a refused request): a compaction is never lost to the
/// provider's limits. Both keep the same number of newest messages.
///
/// ```
/// use dive_agent::{Auto, CompactionPolicy};
/// use dive_core::CompactionStrategy;
/// use dive_test::TestModel;
/// let auto = Auto::new(TestModel::new()); // TestModel has no native compaction
/// assert_eq!(auto.name(), "auto");
/// # let _ = CompactionPolicy::new(auto);
/// ```
#[derive(Debug, Clone)]
pub struct Auto {
    native: Native,
    summarize: Summarize,
}

impl Auto {
    /// Native or summary compaction with `model`, keeping the newest message.
    #[must_use]
    pub fn new(model: impl Llm + 'static) -> Self {
        Self::shared(Arc::new(model))
    }

    /// Native or summary compaction with a shared model.
    #[must_use]
    pub fn shared(model: Arc<dyn Llm>) -> Self {
        Self { native: Native::shared(Arc::clone(&model)), summarize: Summarize::shared(model) }
    }

    /// Keeps at least the newest `n` messages out of the compaction (default 1).
    #[must_use]
    pub fn keep_recent(mut self, n: usize) -> Self {
        self.native = self.native.keep_recent(n);
        self.summarize = self.summarize.keep_recent(n);
        self
    }

    /// Replaces the summary strategy used where native compaction is missing or fails.
    #[must_use]
    pub fn fallback(mut self, summarize: Summarize) -> Self {
        self.summarize = summarize;
        self
    }

    async fn compact_auto(
        &self,
        request: &CompactionRequest,
    ) -> Result<Option<CompactedWindow>, CompactionError> {
        if self.native.model.supports_compaction() {
            match self.native.compact_natively(request).await {
                Err(CompactionError::Model(e)) if e.kind == LlmErrorKind::Cancelled => {
                    return Err(CompactionError::Model(e));
                }
                Err(error) => {
                    tracing::warn!(%error, "native compaction failed; compacting with a summary instead");
                }
                done => return done,
            }
        }
        self.summarize.compact(request).await
    }
}

impl CompactionStrategy for Auto {
    fn name(&self) -> &str {
        "auto"
    }

    fn compact<'a>(
        &'a self,
        request: &'a CompactionRequest,
    ) -> BoxFuture<'a, Result<Option<CompactedWindow>, CompactionError>> {
        Box::pin(self.compact_auto(request))
    }
}
