//! One tool call in three steps: [`Run::prepare_call`] (lookup, preview, `tool_call` item,
//! PreToolUse hooks, schema validation), [`execute`] (the tool itself, panics caught) and
//! [`Run::complete_call`] (its result; Post hooks, when any, in [`Run::finish_call`]).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use dive_core::{
    BackgroundTaskHandle, HookError, PostToolUseDecision, Reminder, ReminderDelivery, ResponseItem,
    SuspendRequest, Tool, ToolCallError, ToolCallErrorKind, ToolCallResult, ToolCallSpan, ToolContext,
    ToolError, ToolOutput, ToolPreview, ToolResult, ToolResultContext, ToolUse, ToolUseContext, Verdict,
};
use futures_util::FutureExt;

use super::Run;
use super::hooks::log_unless_abort;
use super::model::ResolvedTools;
use crate::suggest::{suggest, unknown_tool_message};

/// A call that passed its PreToolUse hooks and validation, split into what the tool needs
/// ([`Execution`]) and what completing it needs ([`CallMeta`]).
pub(super) struct Ready {
    pub(super) meta: CallMeta,
    pub(super) execution: Execution,
}

/// Bookkeeping of a call between preparation and completion.
pub(super) struct CallMeta {
    pub(super) call: ToolUse,
    pub(super) preview: Option<ToolPreview>,
    pub(super) context: Vec<String>,
    pub(super) span: Box<dyn ToolCallSpan>,
}

/// What runs the tool; owns everything so it can run concurrently with other calls.
pub(super) struct Execution {
    pub(super) tool: Arc<dyn Tool>,
    /// The call's input, shared with the call (see [`Tool::call_shared`]).
    pub(super) input: dive_core::Input,
    pub(super) ctx: ToolContext,
}

/// The result of preparing a call.
pub(super) enum Prepared {
    /// Answered without running: unknown tool, denied, invalid input.
    Answered(ToolCallResult),
    /// Ready to run.
    Ready(Ready),
}

/// What a tool's future produced.
pub(super) enum Executed {
    /// A result (possibly a tool-reported error).
    Output(ToolOutput),
    /// `call` returned an error or panicked; the model sees an error result.
    Failed(ToolOutput, ToolCallError),
    /// The tool failed fatally: the turn ends after this batch.
    Fatal(ToolOutput, ToolError),
    /// The tool suspended the turn.
    Suspend(SuspendRequest),
    /// The tool started background work.
    Background(ToolOutput, BackgroundTaskHandle),
}

/// A completed call and what it asks of the batch.
pub(super) struct Completed {
    pub(super) result: ToolCallResult,
    pub(super) suspend: Option<SuspendRequest>,
    pub(super) fatal: Option<ToolError>,
    pub(super) abort: Option<HookError>,
}

/// An executed call: complete, or its result waiting for its Post hooks.
#[expect(clippy::large_enum_variant, reason = "a call without hooks is not boxed; one with hooks is")]
pub(super) enum CallOutcome {
    /// Complete: its span ended.
    Done(Completed),
    /// Post hooks run for it ([`Run::finish_call`]).
    Hooks(Box<AwaitingHooks>),
}

/// A call's result waiting for its Post hooks, and what completing it needs.
pub(super) struct AwaitingHooks {
    result: ToolCallResult,
    failed: bool,
    fatal: Option<ToolError>,
    span: Box<dyn ToolCallSpan>,
}

/// What a call's PreToolUse hooks decided: the first denial's reason, and the context they add.
#[derive(Default)]
struct PreToolUse {
    denial: Option<String>,
    context: Vec<String>,
}

/// Tool-scoped reminders a batch collects: recorded ones go into its results message.
#[derive(Default)]
pub(super) struct BatchReminders {
    pub(super) recorded: Vec<Reminder>,
    pub(super) model_only: Vec<Reminder>,
}

impl BatchReminders {
    fn add(&mut self, reminders: Vec<dive_core::QueuedReminder>) {
        for r in reminders {
            match r.delivery {
                ReminderDelivery::ModelOnly => self.model_only.push(r.reminder),
                _ => self.recorded.push(r.reminder),
            }
        }
    }
}

/// Runs the tool, catching panics. Background work goes to the agent's spawner.
///
/// A plain function returning a block: an `async fn` would hold its arguments twice (as
/// passed and as moved into its body), the block holds the execution once.
#[expect(clippy::manual_async_fn, reason = "an async fn would hold the execution twice")]
pub(super) fn execute<'a>(
    execution: Execution,
    turn_id: &'a str,
    seams: &'a crate::seams::Seams,
) -> impl Future<Output = Executed> + Send + 'a {
    async move {
        let call_id = Arc::clone(&execution.ctx.call_id);
        let tool = &execution.tool;
        let outcome = AssertUnwindSafe(tool.call_shared(execution.input, execution.ctx)).catch_unwind().await;
        match outcome {
            Ok(Ok(ToolResult::Output(output))) => Executed::Output(output),
            Ok(Ok(ToolResult::Suspend(request))) => Executed::Suspend(request),
            Ok(Ok(ToolResult::Background(task))) => {
                let task_id = seams.new_id("task");
                let (handle, completer) = BackgroundTaskHandle::new(
                    task_id.clone(),
                    &*call_id,
                    tool.name(),
                    task.description.clone(),
                );
                let handle = handle.with_turn_id(turn_id);
                let name = tool.name().to_owned();
                seams.spawner.spawn(Box::pin(async move {
                    let output = AssertUnwindSafe(task.future).catch_unwind().await.unwrap_or_else(|panic| {
                        ToolOutput::error(format!("Tool {name} panicked: {}", panic_text(&*panic)))
                    });
                    completer.complete(output);
                }));
                let text = format!(
                    "Started background task {task_id}: {}. Its result will be delivered in a later message.",
                    task.description
                );
                Executed::Background(ToolOutput::text(text), handle)
            }
            Ok(Ok(_)) => Executed::Failed(
                ToolOutput::error("The tool returned a result this version does not understand."),
                ToolCallError::new(ToolCallErrorKind::Failed, "unsupported tool result"),
            ),
            Ok(Err(error)) if error.is_fatal() => {
                Executed::Fatal(ToolOutput::error(format!("Tool execution error: {error}")), error)
            }
            Ok(Err(error)) => Executed::Failed(
                ToolOutput::error(format!("Tool execution error: {error}")),
                ToolCallError::new(ToolCallErrorKind::Failed, error.to_string()),
            ),
            Err(panic) => {
                let text = panic_text(&*panic);
                tracing::error!(tool = tool.name(), panic = %text, "tool panicked");
                Executed::Failed(
                    ToolOutput::error(format!("Tool {} panicked: {text}", tool.name())),
                    ToolCallError::new(ToolCallErrorKind::Panicked, text),
                )
            }
        }
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

impl Run {
    /// Looks the tool up, emits the `tool_call` item and runs PreToolUse hooks. `Err` is a
    /// hook abort: the call is not run and the turn ends.
    pub(super) async fn prepare_call(
        &mut self,
        call: &ToolUse,
        tools: &ResolvedTools,
        iteration: u32,
        reminders: &mut BatchReminders,
    ) -> Result<Prepared, HookError> {
        let Some(tool) = tools.get(&call.name).cloned() else {
            self.announce(call, None);
            let suggestions = suggest(&call.name, tools.names());
            let message = unknown_tool_message(&call.name, &suggestions);
            let result = ToolCallResult::new(call, ToolOutput::error(message.clone()))
                .with_error(ToolCallError::new(ToolCallErrorKind::UnknownTool, message));
            return Ok(Prepared::Answered(result));
        };
        let preview = tool.preview(&call.input);
        self.announce(call, preview.clone());
        let original = call;
        let mut call = original.clone();
        // Boxed when it runs: a call without PreToolUse hooks has no room for them.
        let PreToolUse { denial, context } = if self.agent.inner.hooks.pre_tool_use.is_empty() {
            PreToolUse::default()
        } else {
            Box::pin(self.pre_tool_use(original, &mut call, &tool, preview.as_ref(), iteration, reminders))
                .await?
        };
        let answered =
            |output: ToolOutput, kind: ToolCallErrorKind, message: String, context: Vec<String>| {
                let mut result =
                    ToolCallResult::new(&call, output).with_error(ToolCallError::new(kind, message));
                result.preview.clone_from(&preview);
                result.additional_context = context;
                Prepared::Answered(result)
            };
        if let Some(reason) = denial {
            let text = if reason.is_empty() { "The tool call was denied.".to_owned() } else { reason };
            return Ok(answered(ToolOutput::error(text.clone()), ToolCallErrorKind::Denied, text, context));
        }
        if let Err(message) = self.agent.inner.schemas.check(&tool, &call.input) {
            return Ok(answered(
                ToolOutput::error(message.clone()),
                ToolCallErrorKind::InvalidInput,
                message,
                context,
            ));
        }
        let span = self.agent.inner.tracer.start_tool_call(&self.info, &call);
        let ctx = ToolContext::in_run(
            call.id.as_str(),
            call.name.as_str(),
            self.info.clone(),
            self.interrupts.soft.child(),
        )
        .with_sink(self.tool_sink());
        Ok(Prepared::Ready(Ready {
            execution: Execution { tool, input: call.input.clone(), ctx },
            meta: CallMeta { call, preview, context, span },
        }))
    }

    /// PreToolUse hooks of one call, in order: each sees the `original` call; the first denial
    /// wins, an updated input replaces `call`'s, context and reminders add up. `Err` is a hook
    /// abort.
    async fn pre_tool_use(
        &self,
        original: &ToolUse,
        call: &mut ToolUse,
        tool: &Arc<dyn Tool>,
        preview: Option<&ToolPreview>,
        iteration: u32,
        reminders: &mut BatchReminders,
    ) -> Result<PreToolUse, HookError> {
        let mut verdict = PreToolUse::default();
        for hook in &self.agent.inner.hooks.pre_tool_use {
            let ctx = ToolUseContext::new(
                self.info.clone(),
                iteration,
                original.clone(),
                tool.annotations().clone(),
            )
            .with_preview(preview.cloned());
            match hook.pre_tool_use(ctx).await {
                Ok(decision) => {
                    if let (Verdict::Deny(reason), None) = (&decision.verdict, &verdict.denial) {
                        verdict.denial = Some(reason.clone());
                    }
                    if let Some(updated) = decision.updated_input {
                        call.input = updated.into();
                    }
                    verdict.context.extend(decision.additional_context);
                    reminders.add(decision.reminders);
                }
                Err(e) if e.is_abort() => {
                    return Err(if e.hook.is_some() { e } else { e.with_hook(hook.name()) });
                }
                Err(e) if verdict.denial.is_none() => verdict.denial = Some(e.message),
                Err(_) => {}
            }
        }
        Ok(verdict)
    }

    /// The run's emitter as the tools' event sink: made at the first call, shared by the rest.
    fn tool_sink(&mut self) -> Arc<dyn dive_core::ToolEventSink> {
        let emitter = &self.emitter;
        Arc::clone(self.tool_sink.get_or_insert_with(|| Arc::new(emitter.clone())))
    }

    /// Emits the `tool_call` item of a call and tells observers it is about to be dispatched.
    pub(super) fn announce(&self, call: &ToolUse, preview: Option<ToolPreview>) {
        self.observe_tool_call(call, preview.as_ref());
        self.emitter.emit(ResponseItem::ToolCall { call: call.clone(), preview });
    }

    /// Emits the `tool_call_result` item of a call and tells observers.
    pub(super) fn emit_result(&self, result: ToolCallResult) {
        self.observe_tool_result(&result);
        self.emitter.emit(ResponseItem::ToolCallResult { result: Box::new(result) });
    }

    /// Emits the result of a call answered without running.
    pub(super) fn complete_answered(&mut self, result: ToolCallResult) -> ToolCallResult {
        self.emit_result(result.clone());
        result
    }

    /// Builds an executed call's result. It is complete at once when the call suspended or
    /// no Post hook runs for it (its span ended); otherwise [`Run::finish_call`] runs the
    /// hooks, boxed by the caller: a batch's future then has no room for them.
    pub(super) fn complete_call(
        &mut self,
        meta: CallMeta,
        executed: Executed,
        started: Instant,
    ) -> CallOutcome {
        let CallMeta { call, preview, context, mut span, .. } = meta;
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (output, error, fatal, background) = match executed {
            Executed::Suspend(request) => {
                let mut result = ToolCallResult::from_call(call, ToolOutput::default());
                result.output = None;
                result.suspended = Some(request.clone());
                result.preview = preview;
                result.additional_context = context;
                result.duration_ms = duration_ms;
                span.set_result(&result);
                span.end();
                return CallOutcome::Done(Completed {
                    result,
                    suspend: Some(request),
                    fatal: None,
                    abort: None,
                });
            }
            Executed::Output(output) => (output, None, None, None),
            Executed::Failed(output, error) => (output, Some(error), None, None),
            Executed::Fatal(output, error) => {
                let e = ToolCallError::new(ToolCallErrorKind::Fatal, error.to_string());
                (output, Some(e), Some(error), None)
            }
            Executed::Background(output, handle) => (output, None, None, Some(handle)),
        };
        let failed = output.is_error || error.is_some();
        let mut result = ToolCallResult::from_call(call, output);
        result.error = error;
        result.preview = preview;
        result.additional_context = context;
        result.duration_ms = duration_ms;
        if let Some(handle) = background {
            result.background_task_id = Some(handle.task_id.clone());
            self.background.push(handle);
        }
        let hooks = &self.agent.inner.hooks;
        if failed && !hooks.post_tool_use_failure.is_empty() || !failed && !hooks.post_tool_use.is_empty() {
            return CallOutcome::Hooks(Box::new(AwaitingHooks { result, failed, fatal, span }));
        }
        span.set_result(&result);
        span.end();
        CallOutcome::Done(Completed { result, suspend: None, fatal, abort: None })
    }

    /// Runs the Post hooks of a call [`Run::complete_call`] left waiting, and ends its span.
    pub(super) async fn finish_call(
        &mut self,
        waiting: Box<AwaitingHooks>,
        reminders: &mut BatchReminders,
    ) -> Completed {
        let AwaitingHooks { mut result, failed, fatal, mut span } = *waiting;
        let abort = self.post_hooks(&mut result, failed, reminders).await.err();
        span.set_result(&result);
        span.end();
        Completed { result, suspend: None, fatal, abort }
    }

    pub(super) async fn post_hooks(
        &self,
        result: &mut ToolCallResult,
        failed: bool,
        reminders: &mut BatchReminders,
    ) -> Result<(), HookError> {
        let hooks = &self.agent.inner.hooks;
        let count = if failed { hooks.post_tool_use_failure.len() } else { hooks.post_tool_use.len() };
        if count == 0 {
            return Ok(());
        }
        let mut call = ToolUse::new(result.id.clone(), result.name.clone(), result.input.clone());
        call.toolset_name.clone_from(&result.toolset_name);
        for i in 0..count {
            let output = result.output.clone().unwrap_or_default();
            let ctx = ToolResultContext::new(self.info.clone(), call.clone(), output)
                .with_error(result.error.clone());
            let (name, decision) = if failed {
                let hook = &hooks.post_tool_use_failure[i];
                (hook.name(), hook.post_tool_use_failure(ctx).await)
            } else {
                let hook = &hooks.post_tool_use[i];
                (hook.name(), hook.post_tool_use(ctx).await)
            };
            match decision {
                Ok(PostToolUseDecision { replace_output, additional_context, reminders: queued, .. }) => {
                    if let Some(output) = replace_output {
                        result.output = Some(output);
                    }
                    result.additional_context.extend(additional_context);
                    reminders.add(queued);
                }
                Err(e) => {
                    let e = if e.hook.is_some() { e } else { e.with_hook(name) };
                    log_unless_abort(e, if failed { "post_tool_use_failure" } else { "post_tool_use" })?;
                }
            }
        }
        Ok(())
    }
}
