//! Dispatching hooks in order, naming the hook in its errors, and the error policy of each
//! phase: some errors end the turn, others are logged.

use std::sync::Arc;

use dive_core::{
    BackgroundTaskHandle, BoxFuture, GenerationContext, GenerationEdit, HookError, Hooks, Message,
    ModelResponse, PreGenerationHook, PreIterationHook, RunInfo, SessionStartContext, StopContext,
    StopDecision, ToolResultContext, ToolUse,
};

use crate::error::AgentError;

fn named(error: HookError, name: &str) -> HookError {
    if error.hook.is_some() { error } else { error.with_hook(name) }
}

/// Logs a hook error whose phase does not end the turn; returns it when it is an abort.
pub(super) fn log_unless_abort(error: HookError, phase: &str) -> Result<(), HookError> {
    if error.is_abort() {
        return Err(error);
    }
    tracing::warn!(phase, error = %error, "hook failed; continuing");
    Ok(())
}

/// Messages seeded by SessionStart hooks.
pub(super) struct Seeded {
    pub(super) persisted: Vec<Message>,
    pub(super) transient: Vec<Message>,
}

pub(super) async fn session_start(hooks: &Hooks, ctx: SessionStartContext) -> Result<Seeded, AgentError> {
    let mut seeded = Seeded { persisted: Vec::new(), transient: Vec::new() };
    for hook in &hooks.session_start {
        let decision = hook
            .session_start(ctx.clone())
            .await
            .map_err(|e| AgentError::SessionStart(named(e, hook.name())))?;
        if decision.persist {
            seeded.persisted.extend(decision.messages);
        } else {
            seeded.transient.extend(decision.messages);
        }
    }
    Ok(seeded)
}

/// PreGeneration and PreIteration hooks share a context and a decision.
pub(super) trait EditHook {
    fn edit(&self, ctx: GenerationContext) -> BoxFuture<'_, Result<GenerationEdit, HookError>>;
    fn hook_name(&self) -> &str;
}

impl EditHook for dyn PreGenerationHook {
    fn edit(&self, ctx: GenerationContext) -> BoxFuture<'_, Result<GenerationEdit, HookError>> {
        self.pre_generation(ctx)
    }
    fn hook_name(&self) -> &str {
        self.name()
    }
}

impl EditHook for dyn PreIterationHook {
    fn edit(&self, ctx: GenerationContext) -> BoxFuture<'_, Result<GenerationEdit, HookError>> {
        self.pre_iteration(ctx)
    }
    fn hook_name(&self) -> &str {
        self.name()
    }
}

/// Runs edit hooks in order; each sees the edits of those before it. Any error ends the turn.
/// The context (a copy of the working messages) is built only when a hook is registered.
pub(super) async fn generation<H: EditHook + ?Sized>(
    hooks: &[Arc<H>],
    context: impl FnOnce() -> GenerationContext,
) -> Result<GenerationEdit, HookError> {
    let mut merged = GenerationEdit::unchanged();
    if hooks.is_empty() {
        return Ok(merged);
    }
    let mut ctx = context();
    for hook in hooks {
        let edit = hook.edit(ctx.clone()).await.map_err(|e| named(e, hook.hook_name()))?;
        if let Some(prompt) = edit.system_prompt {
            ctx.system_prompt.clone_from(&prompt);
            merged.system_prompt = Some(prompt);
        }
        if let Some(messages) = edit.messages {
            ctx.messages.clone_from(&messages);
            merged.messages = Some(messages);
        }
        merged.reminders.extend(edit.reminders);
    }
    Ok(merged)
}

/// Stop hooks: the first `Continue` wins (all hooks still run). Plain errors are logged; an
/// abort ends the turn.
pub(super) async fn stop(
    hooks: &Hooks,
    run: &RunInfo,
    iteration: u32,
    response: &ModelResponse,
    output: &[Message],
    stop_hook_active: bool,
) -> Result<Option<String>, HookError> {
    let mut continue_with = None;
    for hook in &hooks.stop {
        let ctx = StopContext::new(run.clone(), iteration, response.clone(), output.to_vec())
            .with_stop_hook_active(stop_hook_active);
        match hook.stop(ctx).await {
            Ok(StopDecision::Continue { reason }) if continue_with.is_none() => continue_with = Some(reason),
            Ok(_) => {}
            Err(e) => log_unless_abort(named(e, hook.name()), "stop")?,
        }
    }
    Ok(continue_with)
}

/// PostBackgroundToolUse hooks for delivered background results; errors are logged.
pub(super) async fn post_background(hooks: &Hooks, run: &RunInfo, handles: &[BackgroundTaskHandle]) {
    for handle in handles {
        let Some(output) = handle.try_result() else { continue };
        let call =
            ToolUse::new(handle.tool_use_id.clone(), handle.tool_name.clone(), serde_json::Value::Null);
        for hook in &hooks.post_background_tool_use {
            let ctx = ToolResultContext::new(run.clone(), call.clone(), output.clone())
                .with_task_id(handle.task_id.clone());
            if let Err(e) = hook.post_background_tool_use(ctx).await {
                tracing::warn!(hook = hook.name(), error = %e, "post-background-tool-use hook failed");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> GenerationContext {
        GenerationContext::new(RunInfo::new("agent"), 0, "prompt".into(), vec![Message::user("hi")])
    }

    #[tokio::test]
    async fn the_generation_context_is_built_only_when_a_hook_is_registered() {
        let none: Vec<Arc<dyn PreIterationHook>> = Vec::new();
        let mut built = 0;
        let edit = generation(&none, || {
            built += 1;
            context()
        })
        .await
        .unwrap();
        assert_eq!(built, 0, "no hook: no copy of the working messages");
        assert!(edit.messages.is_none() && edit.system_prompt.is_none());

        let hook: Arc<dyn PreIterationHook> = Arc::new(|ctx: GenerationContext| async move {
            Ok(GenerationEdit::system_prompt(format!("{} seen", ctx.system_prompt)))
        });
        let one = vec![hook];
        let edit = generation(&one, || {
            built += 1;
            context()
        })
        .await
        .unwrap();
        assert_eq!(built, 1);
        assert_eq!(edit.system_prompt.as_deref(), Some("prompt seen"));
    }
}
