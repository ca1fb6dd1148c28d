//! One invocation of an agent: the work before the turn boundary, then the loop
//! (PreGeneration, then per iteration PreIteration → tools → model → message → tool batch
//! → reminders; Stop hooks; PostGeneration), ending through one exit ([`finish`]).

mod batch;
mod call;
mod calls;
mod compact;
mod durability;
mod finish;
mod hooks;
mod interrupt;
mod messages;
mod model;
mod observe;
mod plan;
mod prepare;
mod resume;

use std::sync::Arc;

use dive_core::{
    AgentRunSpan, BackgroundTaskHandle, Blocks, EventStream, Llm, Message, ModelCallRecord, ModelResponse,
    OutcomeReason, Reminder, Response, ResponseItem, RunInfo, Session, StopKind, TurnOrigin, Usage,
};
use tokio::sync::mpsc::UnboundedSender;

use self::calls::Calls;
use self::model::ResolvedTools;
use crate::agent::Agent;
use crate::emit::Emitter;
use crate::error::{AgentError, TurnFailure};
use crate::lock;
use crate::options::RunOptions;

pub(crate) use interrupt::{HardStop, Interrupt, Interrupts};
pub(crate) use model::ToolIndex;
pub use prepare::TURN_CONTINUE_REMINDER;
use resume::ResumeWork;

/// How a run ends: its response is boxed where it is built, so the futures it returns
/// through move a pointer, not the whole response.
pub(crate) type Finished = Result<Box<Response>, AgentError>;

/// How the loop ended; [`finish`] turns it into the outcome, the saved turn and the result.
#[derive(Debug)]
pub(crate) enum Exit {
    /// The model finished and no Stop hook asked for more.
    Completed,
    /// A tool suspended the turn.
    Suspended(Box<dive_core::SuspensionState>),
    /// The model stopped for a reason that is not an error (output limit, refusal kept as
    /// completed elsewhere, iteration limit…).
    Stopped { reason: OutcomeReason, detail: Option<String> },
    /// An error ended the turn.
    Failed { reason: OutcomeReason, cause: TurnFailure, hook: Option<String> },
}

impl Exit {
    fn interrupted(interrupt: Interrupt) -> Self {
        Self::Failed { reason: interrupt.reason(), cause: interrupt.failure(), hook: None }
    }

    fn hook(error: dive_core::HookError) -> Self {
        let reason = if error.is_abort() { OutcomeReason::HookAbort } else { OutcomeReason::Error };
        let hook = error.hook.clone();
        Self::Failed { reason, cause: TurnFailure::Hook(error), hook }
    }

    fn stopped(reason: OutcomeReason) -> Self {
        Self::Stopped { reason, detail: None }
    }

    /// The exit's reason, detail, failure, hook and suspension.
    fn into_parts(self) -> ExitParts {
        match self {
            Self::Completed => (OutcomeReason::Completed, None, None, None, None),
            Self::Suspended(state) => (OutcomeReason::Suspended, None, None, None, Some(state)),
            Self::Stopped { reason, detail } => (reason, detail, None, None, None),
            Self::Failed { reason, cause, hook } => (reason, None, Some(cause), hook, None),
        }
    }
}

/// What the loop does after a model response.
enum Step {
    /// The turn ends.
    Exit(Exit),
    /// Call the model again (a paused response).
    Retry,
    /// The model finished: the Stop hooks decide whether it goes on.
    Stop(Box<ModelResponse>),
    /// Run the response's tool calls, then call the model again.
    Tools(Calls),
}

/// An [`Exit`] taken apart: its reason, detail, failure, hook and suspension.
type ExitParts = (
    OutcomeReason,
    Option<String>,
    Option<TurnFailure>,
    Option<String>,
    Option<Box<dive_core::SuspensionState>>,
);

/// The state of one run after the turn boundary.
pub(crate) struct Run {
    agent: Agent,
    model: Arc<dyn Llm>,
    system_prompt: String,
    info: RunInfo,
    emitter: Emitter,
    /// What steps race against, kept between them (see [`HardStop`]); taken out while a step
    /// runs.
    hard_stop: Option<HardStop>,
    /// The emitter as the tools' event sink, made at the first tool call.
    tool_sink: Option<Arc<dyn dive_core::ToolEventSink>>,
    interrupts: Interrupts,
    session: Option<Arc<dyn Session>>,
    prompt_cache_key: String,
    call_reminders: Vec<Reminder>,
    /// The id of the response this invocation returns.
    response_id: String,
    /// When the invocation started (before the first hook): the response's `created_at`.
    created_at: dive_core::Timestamp,
    turn_id: String,
    input: Vec<Message>,
    output: Vec<Message>,
    /// What the model sees: history, input and output, as hooks may have rewritten it.
    /// What the model sees: shared with the request of each call (see `call_model`).
    working: Arc<Vec<Message>>,
    usage: Usage,
    tool_records: Vec<dive_core::ToolCallRecord>,
    model_calls: Vec<ModelCallRecord>,
    /// Model-only reminders for the next model call.
    next_call_reminders: Vec<Reminder>,
    /// Recorded reminders waiting for the next iteration boundary.
    pending_reminders: Vec<Reminder>,
    /// The last model response: its call record's place in `model_calls` (which holds its stop
    /// reason) and its stop details (all the response keeps of it).
    last_stop: Option<(usize, Option<serde_json::Value>)>,
    /// The model stream being read: kept here so a call cancelled mid-stream still leaves what
    /// it produced (see `keep_partial`). Boxed, like the other rarely or briefly held parts
    /// below, so that the run stays small enough for the allocator's fast path.
    stream: Option<Box<EventStream>>,
    background: Vec<BackgroundTaskHandle>,
    /// The session revision this run last saw or wrote (turn stores).
    revision: u64,
    /// Where this invocation's output starts in `output` (a resumed or continued turn keeps
    /// its earlier output before it).
    output_start: usize,
    /// Usage of the turn before this invocation.
    prior_usage: Usage,
    /// Iterations this invocation started (what observers' final response reports).
    iterations: u32,
    origin: Option<TurnOrigin>,
    /// Work a resume does before the loop.
    resume: Option<Box<ResumeWork>>,
    /// A partial resume: the turn stays suspended; OnSuspend does not fire again.
    partial_resume: bool,
    /// Close the suspended turn as cancelled, without a model call.
    cancel_suspended: bool,
    claim: Option<Box<durability::ClaimGuard>>,
    /// The run span (behind a mutex so the run is `Sync` and its future `Send`).
    span: std::sync::Mutex<Option<Box<dyn AgentRunSpan>>>,
    /// What compaction knows of the working set's size (nothing without a strategy).
    compaction: compact::CompactionState,
}

/// Runs one invocation under the session lock.
pub(crate) async fn run(
    agent: Agent,
    options: RunOptions,
    stream: Option<UnboundedSender<ResponseItem>>,
) -> Finished {
    crate::runtime::check()?;
    let session = options.session.clone().or_else(|| agent.inner.session.clone());
    let held = match &session {
        Some(s) => Some(lock::acquire(s, options.cancel.as_ref(), options.session_wait).await?),
        None => None,
    };
    // The turn's state lives in one allocation, made here: every future above this one
    // stays a few hundred bytes, so awaiting and moving it copies next to nothing.
    lock::while_held(held.as_ref(), Box::pin(turn(agent, options, session, stream))).await
}

/// One turn, from its preparation to its end. Its future is allocated once a turn and lives
/// across all of it, so it is kept small: the run lives in its own box (`prepare` builds it
/// there), the rare paths' futures are boxed when they run, and what a step no longer needs
/// is dropped or taken apart before its next await.
async fn turn(
    agent: Agent,
    options: RunOptions,
    session: Option<Arc<dyn Session>>,
    stream: Option<UnboundedSender<ResponseItem>>,
) -> Finished {
    let mut run = Run::prepare(agent, options, session, stream).await?;
    if run.partial_resume {
        return Box::pin(run.finish_partial_resume()).await;
    }
    if run.cancel_suspended {
        return Box::pin(run.finish_cancelled_suspension()).await;
    }
    run.execute().await
}

impl Run {
    /// Opens the run's `invoke_agent` span. With a tracer, the run's values carry it
    /// ([`dive_core::trace::RunTracer`]) so hooks, extensions and tools can report operations
    /// under the run; without one nothing is added.
    fn open_span(&mut self) {
        let tracer = &self.agent.inner.tracer;
        if tracer.enabled() {
            self.info.values.insert(dive_core::trace::RunTracer(Arc::clone(tracer)));
        }
        self.span = std::sync::Mutex::new(Some(tracer.start_agent_run(&self.info)));
    }

    /// Everything after the turn boundary; every path ends in [`finish`].
    async fn execute(&mut self) -> Finished {
        self.open_span();
        let exit = self.work().await;
        self.finish(exit).await
    }

    /// The turn's work up to its exit. The rare paths' futures are boxed when they run, so
    /// this future (allocated every turn, and alive across all of it) has no room for them:
    /// resuming a suspended batch.
    async fn work(&mut self) -> Exit {
        if let Some(exit) = self.begin().await {
            return exit;
        }
        if self.resume.is_some()
            && let Some(exit) = Box::pin(self.resume_batch()).await
        {
            return exit;
        }
        self.drive().await
    }

    /// PreGeneration hooks and background-result delivery.
    async fn begin(&mut self) -> Option<Exit> {
        if !self.agent.inner.hooks.pre_generation.is_empty() {
            let edit = Box::pin(hooks::generation(&self.agent.inner.hooks.pre_generation, || {
                self.generation_context(0)
            }))
            .await;
            if let Some(exit) = self.apply_edit(edit) {
                return Some(exit);
            }
        }
        let handles = std::mem::take(&mut self.background);
        if let Some(message) = messages::background_results_message(&handles) {
            self.input.push(message.clone());
            Arc::make_mut(&mut self.working).push(message);
            Box::pin(hooks::post_background(&self.agent.inner.hooks, &self.info, &handles)).await;
        }
        if self.resume.is_none() && self.checkpoints_each_step() {
            return Box::pin(self.checkpoint(None)).await;
        }
        None
    }

    fn generation_context(&self, iteration: u32) -> dive_core::GenerationContext {
        dive_core::GenerationContext::new(
            self.info.clone(),
            iteration,
            self.system_prompt.clone(),
            Vec::clone(&self.working),
        )
    }

    /// Applies hook edits; returns the exit when a hook failed.
    fn apply_edit(&mut self, edit: Result<dive_core::GenerationEdit, dive_core::HookError>) -> Option<Exit> {
        let edit = match edit {
            Ok(edit) => edit,
            Err(e) => return Some(Exit::hook(e)),
        };
        if let Some(prompt) = edit.system_prompt {
            self.system_prompt = prompt;
        }
        if let Some(messages) = edit.messages {
            self.working = Arc::new(messages);
        }
        self.queue_reminders(edit.reminders);
        None
    }

    fn queue_reminders(&mut self, reminders: Vec<dive_core::QueuedReminder>) {
        for r in reminders {
            match r.delivery {
                dive_core::ReminderDelivery::ModelOnly => self.next_call_reminders.push(r.reminder),
                _ => self.pending_reminders.push(r.reminder),
            }
        }
    }

    /// The response, under `id`, as it stands before the turn's results are put in: model and
    /// start.
    fn response_skeleton(&self, id: String) -> Response {
        let mut response = Response::new_at(id, self.created_at);
        response.model = self.model.model().to_owned();
        response
    }

    /// Records a message of the turn's output (and what the model sees).
    fn push_output(&mut self, message: Message) {
        Arc::make_mut(&mut self.working).push(message.clone());
        self.output.push(message);
    }

    /// Records reminders as user blocks of the output.
    fn push_output_blocks(&mut self, blocks: Vec<dive_core::Content>) {
        if blocks.is_empty() {
            return;
        }
        messages::append_user_blocks(Arc::make_mut(&mut self.working), blocks.clone());
        messages::append_user_blocks(&mut self.output, blocks);
    }

    /// The step-boundary check: interrupts first, then a failed event callback.
    /// The turn's usage: before this invocation plus this invocation's.
    fn turn_usage(&self) -> Usage {
        let mut usage = self.prior_usage.clone();
        usage += &self.usage;
        usage
    }

    /// The run's [`HardStop`], taken out for one step; [`put_back`](Self::put_back) returns it.
    fn hard_stop(&mut self) -> HardStop {
        self.hard_stop.take().unwrap_or_else(|| HardStop::new(&self.interrupts))
    }

    fn put_back(&mut self, stop: HardStop) {
        self.hard_stop = Some(stop);
    }

    fn boundary(&self) -> Option<Exit> {
        if let Some(i) = self.interrupts.check() {
            return Some(Exit::interrupted(i));
        }
        self.callback_failed()
    }

    fn callback_failed(&self) -> Option<Exit> {
        self.emitter.take_callback_error().map(|e| Exit::Failed {
            reason: OutcomeReason::CallbackError,
            cause: TurnFailure::Callback(e),
            hook: None,
        })
    }

    /// The loop: model calls and tool batches until the model finishes or something stops it.
    async fn drive(&mut self) -> Exit {
        let limit = self.agent.inner.tool_iteration_limit;
        let mut iteration: u32 = 0;
        let mut pauses: u32 = 0;
        let mut stop_hook_active = false;
        loop {
            if let Some(exit) = self.boundary() {
                return exit;
            }
            // What runs only with hooks, toolsets or a session is awaited through a box made
            // when it runs: the loop's future has no room for it, nor its code a turn's lines.
            if !self.agent.inner.hooks.pre_iteration.is_empty() {
                let edit = Box::pin(hooks::generation(&self.agent.inner.hooks.pre_iteration, || {
                    self.generation_context(iteration)
                }))
                .await;
                if let Some(exit) = self.apply_edit(edit) {
                    return exit;
                }
            }
            let pending = std::mem::take(&mut self.pending_reminders);
            self.push_output_blocks(messages::reminder_blocks(pending));
            let tools = if self.agent.inner.toolsets.is_empty() {
                ResolvedTools::over(Arc::clone(&self.agent.inner.tool_index))
            } else {
                match Box::pin(self.resolve_tools()).await {
                    Ok(tools) => tools,
                    Err(exit) => return exit,
                }
            };
            let last_call = iteration >= limit;
            if let Some(exit) = self.boundary() {
                return exit;
            }
            self.observe_iteration_start(iteration);
            let response = match self.call_model_compacting(&tools, iteration, last_call).await {
                Ok(r) => r,
                Err(exit) => return exit,
            };
            // The response is settled without an await, so the loop's future keeps no room
            // for it while the tools run.
            match self.settle(response, last_call, &mut pauses) {
                Step::Exit(exit) => return exit,
                Step::Retry => {}
                Step::Stop(response) => {
                    match Box::pin(self.stop_hooks(response, iteration, stop_hook_active)).await {
                        Ok(Some(reason)) if iteration < limit => {
                            stop_hook_active = true;
                            iteration += 1;
                            let text = format!("The following input arrived from the user: {reason}");
                            if let Ok(r) = Reminder::new("stop-continuation", text) {
                                self.push_output_blocks(vec![dive_core::Content::Reminder(r)]);
                            }
                        }
                        Ok(_) => return Exit::Completed,
                        Err(e) => return Exit::hook(e),
                    }
                }
                Step::Tools(calls) => {
                    if self.checkpoints_each_step()
                        && let Some(exit) = Box::pin(self.checkpoint(None)).await
                    {
                        return exit;
                    }
                    if let Some(exit) = self.run_batch(calls, Vec::new(), &tools, iteration).await {
                        return exit;
                    }
                    iteration += 1;
                }
            }
        }
    }

    /// Records a model response and says what the loop does next.
    fn settle(&mut self, response: Box<ModelResponse>, last_call: bool, pauses: &mut u32) -> Step {
        let has_calls = response.tool_uses().next().is_some();
        let kind = effective_stop_kind(&response, has_calls);
        match kind {
            StopKind::Finished | StopKind::ToolUse | StopKind::Other if !has_calls => {
                self.record_response(&response);
                if let Some(exit) = self.callback_failed() {
                    return Step::Exit(exit);
                }
                if self.agent.inner.hooks.stop.is_empty() {
                    return Step::Exit(Exit::Completed);
                }
                Step::Stop(response)
            }
            StopKind::Finished | StopKind::ToolUse => {
                // The batch reads its calls from the recorded message's shared blocks.
                let calls = Calls::of(self.record_response_owned(*response));
                if last_call {
                    self.answer_not_run(calls);
                    return Step::Exit(Exit::stopped(OutcomeReason::IterationLimit));
                }
                match self.callback_failed() {
                    Some(exit) => Step::Exit(exit),
                    None => Step::Tools(calls),
                }
            }
            StopKind::Refusal => {
                let recorded = self.record_response(&response);
                self.answer_not_run(Calls::of(recorded));
                Step::Exit(Exit::Completed)
            }
            StopKind::Pause if !has_calls => {
                if *pauses < self.agent.inner.pause_turn_limit {
                    *pauses += 1;
                    self.record_response(&response);
                    return Step::Retry;
                }
                let mut trimmed = response;
                drop_trailing_server_call(&mut trimmed);
                self.record_response(&trimmed);
                Step::Exit(Exit::stopped(OutcomeReason::Pause))
            }
            StopKind::OutputLimit | StopKind::ContextLimit => {
                let kept = self.record_response_dropping_truncated(&response);
                self.answer_not_run(Calls::of(kept));
                let reason = if kind == StopKind::OutputLimit {
                    OutcomeReason::OutputLimit
                } else {
                    OutcomeReason::ContextLimit
                };
                Step::Exit(Exit::stopped(reason))
            }
            _ => {
                let recorded = self.record_response(&response);
                self.answer_not_run(Calls::of(recorded));
                Step::Exit(Exit::Stopped {
                    reason: OutcomeReason::ProviderStopped,
                    detail: Some(response.stop_reason.clone()),
                })
            }
        }
    }

    /// The Stop hooks on a finished response: the reason to go on, if one asks.
    async fn stop_hooks(
        &self,
        response: Box<ModelResponse>,
        iteration: u32,
        stop_hook_active: bool,
    ) -> Result<Option<String>, dive_core::HookError> {
        hooks::stop(&self.agent.inner.hooks, &self.info, iteration, &response, &self.output, stop_hook_active)
            .await
    }

    /// Records the assistant message and emits its item; an empty response is not recorded.
    /// Returns the recorded blocks (shared with the recorded message).
    fn record_response(&mut self, response: &ModelResponse) -> Blocks {
        if response.content.is_empty() {
            return Blocks::new();
        }
        self.record_message(response.to_message(), response.usage.clone())
    }

    /// [`record_response`](Self::record_response) for a response not needed afterwards: its
    /// content moves into the message instead of being copied.
    fn record_response_owned(&mut self, response: ModelResponse) -> Blocks {
        if response.content.is_empty() {
            return Blocks::new();
        }
        let usage = response.usage.clone();
        self.record_message(response.into_message(), usage)
    }

    fn record_message(&mut self, message: Message, usage: dive_core::Usage) -> Blocks {
        let blocks = message.content.clone();
        self.emitter.emit(ResponseItem::Message { message: message.clone(), usage: Some(usage) });
        self.push_output(message);
        blocks
    }

    /// Records a response cut by a limit: tool calls whose input did not parse are dropped.
    /// Returns the recorded blocks, whose calls are the complete ones kept.
    fn record_response_dropping_truncated(&mut self, response: &ModelResponse) -> Blocks {
        let mut trimmed = response.clone();
        trimmed.content.retain(|c| c.as_tool_use().is_none_or(|t| t.input.is_object()));
        self.record_response(&trimmed)
    }
}

/// The stop kind the loop acts on. A response with no stop reason at all (a hand-written
/// model) counts as a tool-use stop when it has tool calls and as finished otherwise.
fn effective_stop_kind(response: &ModelResponse, has_client_calls: bool) -> StopKind {
    if response.stop_reason.trim().is_empty() {
        return if has_client_calls { StopKind::ToolUse } else { StopKind::Finished };
    }
    response.stop_kind()
}

/// Drops a trailing server tool call that has no result block (a paused response given up).
fn drop_trailing_server_call(response: &mut ModelResponse) {
    if let Some(dive_core::Content::ServerToolUse(call)) = response.content.last() {
        let id = call.id.clone();
        let answered = response
            .content
            .iter()
            .any(|c| matches!(c, dive_core::Content::ServerToolResult(r) if r.tool_use_id == id));
        if !answered {
            response.content.pop();
        }
    }
}

/// The prompt-cache routing key of a session: stable for the session, revealing nothing of
/// its id (64-bit FNV-1a, hex).
fn session_cache_key(session_id: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in session_id.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("dive-session-{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_cache_keys_are_stable_and_distinct() {
        assert_eq!(session_cache_key("a"), session_cache_key("a"));
        assert_ne!(session_cache_key("a"), session_cache_key("b"));
        assert!(session_cache_key("secret-id").starts_with("dive-session-"));
        assert!(!session_cache_key("secret-id").contains("secret"));
    }

    #[test]
    fn missing_stop_reason_is_read_from_the_content() {
        let r = ModelResponse::default();
        assert_eq!(effective_stop_kind(&r, true), StopKind::ToolUse);
        assert_eq!(effective_stop_kind(&r, false), StopKind::Finished);
        assert_eq!(effective_stop_kind(&r.with_stop_reason("max_tokens"), true), StopKind::OutputLimit);
    }

    /// The largest request glibc's per-thread cache serves (its fast path; larger blocks go
    /// through the bins, at several times the cost, on every turn).
    const THREAD_CACHE_MAX: usize = 1032;

    /// The size of the future `f` returns.
    fn future_size<A, B, C, D, F: Future>(_: fn(A, B, C, D) -> F) -> usize {
        std::mem::size_of::<F>()
    }

    #[test]
    fn a_turn_s_future_stays_small() {
        // Allocated once a turn and written as the turn goes: a large local kept across an
        // await (a moved-from request, a matched response, an async fn's argument held twice)
        // widens every turn's (taking these out brought it from 3,696 bytes to under 2,048).
        let size = future_size(turn);
        assert!(
            size <= 2048,
            "a turn's future is {size} bytes: box a rare path or drop a local before its await"
        );
    }

    #[test]
    fn a_turn_s_run_and_response_fit_the_allocator_s_fast_path() {
        // Each is boxed once a turn; a field added unboxed can push it over (boxing the run's
        // stream, resume work and claim, and the suspension, brought them from 1,744 and
        // 1,344 bytes to under the limit).
        let run = std::mem::size_of::<Run>();
        let response = std::mem::size_of::<dive_core::Response>();
        assert!(run <= THREAD_CACHE_MAX, "Run is {run} bytes: box a rarely used field");
        assert!(response <= THREAD_CACHE_MAX, "Response is {response} bytes: box a rarely used field");
    }
}
