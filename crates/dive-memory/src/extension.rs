//! [`MemoryExtension`]: short- and long-term memory wired into an agent. A PreGeneration hook
//! windows the history the model sees and puts recalled memories in a model-only reminder
//! at the front of the new input; a PostGeneration hook runs the write policy on the finished
//! run and stores what it keeps.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use dive_core::trace::{Operation, operations, start_operation};
use dive_core::{
    BoxFuture, Content, Extension, GenerationContext, GenerationEdit, HookError, Hooks, Message,
    PostGenerationContext, PostGenerationHook, PreGenerationHook, Reminder, Role, ScoredRecord, StoreAlways,
    TurnStatus, WritePolicy,
};

use crate::group::is_tool_result;
use crate::hooks::{MemoryEvent, MemoryHooks};
use crate::long_term::{LongTerm, Retrieval};
use crate::text::{embeddable_text, render};
use crate::window::ReadPolicy;
use crate::write::AsyncWritePolicy;

/// The name of the reminder that carries recalled memories.
pub const MEMORY_REMINDER: &str = "memory";

const PREAMBLE: &str = "Memories from earlier conversations, most relevant first. Use them when they help; \
they may be out of date, and what the user says now wins.";

/// The prompt of the run, kept in the run's values from PreGeneration to PostGeneration.
#[derive(Clone)]
struct RunPrompt(Message);

#[derive(Clone)]
enum Writer {
    Sync(Arc<dyn WritePolicy>),
    Async(Arc<dyn AsyncWritePolicy>),
}

#[derive(Clone)]
struct Inner {
    window: Option<Arc<dyn ReadPolicy>>,
    long_term: Option<LongTerm>,
    retrieval: Retrieval,
    writer: Writer,
    hooks: MemoryHooks,
}

/// Memory as an agent [`Extension`]:
///
/// - **short-term**: [`with_window`](Self::with_window) applies a [`ReadPolicy`] to the history
///   before the first model call of each run (the session still stores everything: filtering
///   happens on read, never on write);
/// - **long-term**: [`with_long_term`](Self::with_long_term) recalls memories for the new
///   input and sends them as a model-only `memory` reminder placed before the input's text, so
///   the cached prefix (system prompt, tools, earlier turns) is untouched and nothing is
///   saved in the session; after a completed run the write policy (default
///   [`StoreAlways`]) decides what is stored.
///
/// Recall and store failures are logged (`tracing`) and never fail the run.
///
/// ```
/// use dive_agent::Agent;
/// use dive_core::ModelResponse;
/// use dive_memory::{InMemoryVectorStore, LongTerm, MemoryExtension, MessageWindow};
/// use dive_test::{HashEmbedder, ScriptedModel};
///
/// let memory = MemoryExtension::new()
///     .with_window(MessageWindow::new(20))
///     .with_long_term(LongTerm::new(HashEmbedder::new(256), InMemoryVectorStore::new()));
/// let agent = Agent::builder().model(ScriptedModel::new([ModelResponse::text("ok")])).extension(memory).build().unwrap();
/// # let _ = agent;
/// ```
#[derive(Clone)]
pub struct MemoryExtension {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for MemoryExtension {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryExtension")
            .field("window", &self.inner.window.is_some())
            .field("long_term", &self.inner.long_term)
            .field("retrieval", &self.inner.retrieval)
            .finish_non_exhaustive()
    }
}

impl Default for MemoryExtension {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryExtension {
    /// No window, no long-term memory (add them with the `with_` methods).
    #[must_use]
    pub fn new() -> Self {
        Self {
            inner: Arc::new(Inner {
                window: None,
                long_term: None,
                retrieval: Retrieval::default(),
                writer: Writer::Sync(Arc::new(StoreAlways)),
                hooks: MemoryHooks::new(),
            }),
        }
    }

    fn edit(mut self, f: impl FnOnce(&mut Inner)) -> Self {
        f(Arc::make_mut(&mut self.inner));
        self
    }

    /// Windows the history with this read policy.
    #[must_use]
    pub fn with_window(self, policy: impl ReadPolicy + 'static) -> Self {
        self.edit(|i| i.window = Some(Arc::new(policy)))
    }

    /// Recalls from and stores to this long-term memory.
    #[must_use]
    pub fn with_long_term(self, memory: LongTerm) -> Self {
        self.edit(|i| i.long_term = Some(memory))
    }

    /// How much is recalled (default: the 3 best).
    #[must_use]
    pub fn with_retrieval(self, retrieval: Retrieval) -> Self {
        self.edit(|i| i.retrieval = retrieval)
    }

    /// Decides what is stored with a synchronous policy ([`StoreAlways`], `MinLength`, a
    /// closure).
    #[must_use]
    pub fn with_write_policy(self, policy: impl WritePolicy + 'static) -> Self {
        self.edit(|i| i.writer = Writer::Sync(Arc::new(policy)))
    }

    /// Decides what is stored with an asynchronous policy (an [`LlmJudge`](crate::LlmJudge)).
    #[must_use]
    pub fn with_async_write_policy(self, policy: impl AsyncWritePolicy + 'static) -> Self {
        self.edit(|i| i.writer = Writer::Async(Arc::new(policy)))
    }

    /// Calls these hooks after each window load, long-term retrieve and store.
    #[must_use]
    pub fn with_hooks(self, hooks: MemoryHooks) -> Self {
        self.edit(|i| i.hooks = hooks)
    }

    /// The long-term memory, if any.
    #[must_use]
    pub fn long_term(&self) -> Option<&LongTerm> {
        self.inner.long_term.as_ref()
    }
}

/// The reminder text for recalled memories.
fn reminder_text(hits: &[ScoredRecord]) -> String {
    let mut out = String::from(PREAMBLE);
    for hit in hits {
        let _ = write!(
            out,
            "\n<memory role=\"{}\" score=\"{:.3}\">\n{}\n</memory>",
            hit.record.message.role.as_str(),
            hit.score,
            render(&hit.record.message)
        );
    }
    out
}

/// The new input: the last message, when it is a user message that is not tool results.
fn new_input(messages: &mut [Message]) -> Option<&mut Message> {
    messages.last_mut().filter(|m| m.role == Role::User && !is_tool_result(m))
}

impl Inner {
    async fn before(&self, ctx: GenerationContext) -> GenerationEdit {
        let mut messages = ctx.messages;
        let mut changed = false;
        if let Some(window) = &self.window {
            let started = Instant::now();
            let windowed = window.select(&messages);
            self.hooks.short_term_load(&MemoryEvent::new(windowed.len(), started.elapsed(), None));
            changed = windowed.len() != messages.len();
            messages = windowed;
        }
        if let Some(long_term) = &self.long_term
            && let Some(input) = new_input(&mut messages)
        {
            ctx.run.values.insert(RunPrompt(input.clone()));
            let query = embeddable_text(input);
            let mut span =
                start_operation(&ctx.run, &Operation::new(operations::SEARCH_MEMORY, Some(MEMORY_REMINDER)));
            let started = Instant::now();
            let recalled = long_term.recall(&query, &self.retrieval).await;
            let took = started.elapsed();
            match &recalled {
                Ok(hits) => {
                    span.set_count(hits.len());
                    self.hooks.long_term_retrieve(&MemoryEvent::new(hits.len(), took, None));
                }
                Err(e) => {
                    let error = e.to_string();
                    span.set_error(&error);
                    self.hooks.long_term_retrieve(&MemoryEvent::new(0, took, Some(&error)));
                }
            }
            span.end();
            match recalled {
                Ok(hits) if !hits.is_empty() => {
                    if let Ok(reminder) = Reminder::new(MEMORY_REMINDER, reminder_text(&hits)) {
                        input.content.insert(0, Content::Reminder(reminder));
                        changed = true;
                    }
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "long-term memory recall failed"),
            }
        }
        if changed { GenerationEdit::messages(messages) } else { GenerationEdit::unchanged() }
    }

    async fn after(&self, ctx: PostGenerationContext) {
        let Some(long_term) = &self.long_term else { return };
        let Some(RunPrompt(prompt)) = ctx.run.values.remove::<RunPrompt>() else { return };
        // PostGeneration sees completed and suspended turns; only a finished answer (the last
        // output message: the model's, with text and no pending tool call) is remembered.
        if ctx.response.status == TurnStatus::Suspended || ctx.response.suspension.is_some() {
            return;
        }
        let Some(answer) = ctx.response.output_messages.last().filter(|m| {
            m.role == Role::Assistant
                && !m.has_tool_uses()
                && m.content.iter().any(|c| c.as_text().is_some_and(|t| !t.trim().is_empty()))
        }) else {
            return;
        };
        let selected = match &self.writer {
            Writer::Sync(p) => Ok(p.select(&prompt, answer)),
            Writer::Async(p) => p.decide(&prompt, answer).await,
        };
        match selected {
            Ok(Some(messages)) if !messages.is_empty() => {
                let mut span = start_operation(
                    &ctx.run,
                    &Operation::new(operations::UPSERT_MEMORY, Some(MEMORY_REMINDER)),
                );
                let started = Instant::now();
                let stored = long_term.remember(&messages).await;
                let took = started.elapsed();
                match stored {
                    Ok(stored) => {
                        span.set_count(stored);
                        self.hooks.long_term_store(&MemoryEvent::new(messages.len(), took, None));
                    }
                    Err(e) => {
                        let error = e.to_string();
                        span.set_error(&error);
                        self.hooks.long_term_store(&MemoryEvent::new(messages.len(), took, Some(&error)));
                        tracing::warn!(error = %e, "long-term memory store failed");
                    }
                }
                span.end();
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "long-term memory write policy failed"),
        }
    }
}

struct Before(Arc<Inner>);
struct After(Arc<Inner>);

impl PreGenerationHook for Before {
    fn name(&self) -> &str {
        "memory"
    }

    fn pre_generation(&self, ctx: GenerationContext) -> BoxFuture<'_, Result<GenerationEdit, HookError>> {
        Box::pin(async move { Ok(self.0.before(ctx).await) })
    }
}

impl PostGenerationHook for After {
    fn name(&self) -> &str {
        "memory"
    }

    fn post_generation(&self, ctx: PostGenerationContext) -> BoxFuture<'_, Result<(), HookError>> {
        Box::pin(async move {
            self.0.after(ctx).await;
            Ok(())
        })
    }
}

impl Extension for MemoryExtension {
    fn name(&self) -> &str {
        "memory"
    }

    fn hooks(&self) -> Hooks {
        Hooks::new()
            .on_pre_generation(Before(Arc::clone(&self.inner)))
            .on_post_generation(After(Arc::clone(&self.inner)))
    }
}
