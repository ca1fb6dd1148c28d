//! A tool batch: sequential by default; concurrent when enabled and no call
//! forbids it, with items in completion order and results in declared order. Every call ends
//! answered: by its result, or "not run" / "unknown result" when the batch stopped early.

use std::sync::Arc;
use std::time::Instant;

use dive_core::{
    CompletedToolCall, OutcomeReason, PendingToolCall, SuspendRequest, SuspensionState,
    TOOL_CALL_UNKNOWN_TEXT, ToolCallError, ToolCallErrorKind, ToolCallRecord, ToolCallResult, ToolCallState,
    ToolOutput, ToolUse,
};
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;

use super::call::{BatchReminders, CallMeta, CallOutcome, Completed, Prepared, execute};
use super::calls::Calls;
use super::messages::tool_results_message;
use super::model::ResolvedTools;
use super::{Exit, Run};
use crate::error::TurnFailure;
use crate::texts::TOOL_CALL_NOT_RUN_TEXT;

/// The state of one batch while it runs.
struct Batch {
    calls: Calls,
    results: Vec<Option<ToolCallResult>>,
    /// Per call, in declared order (one list, not one a field).
    slots: Vec<Slot>,
    suspended: Vec<(usize, SuspendRequest)>,
    reminders: BatchReminders,
    /// Why the batch stopped early (boxed: rare, and the batch lives across every call).
    stop: Option<Box<Exit>>,
}

/// What a batch tracks of one call besides its result.
#[derive(Debug, Clone, Copy)]
struct Slot {
    state: ToolCallState,
    /// Its `tool_call` item was emitted.
    announced: bool,
    /// A failure of it halts the calls after it.
    halts: bool,
    read_only: bool,
}

impl Batch {
    fn new(calls: Calls, tools: &ResolvedTools) -> Self {
        let slots = calls
            .iter()
            .map(|c| {
                let tool = tools.get(&c.name);
                Slot {
                    state: ToolCallState::NotStarted,
                    announced: false,
                    // A call of a provider-defined toolset (a computer action) halts its batch by
                    // itself.
                    halts: c.toolset_name.is_some()
                        || tools.is_member(&c.name)
                        || tool.is_some_and(|t| t.annotations().halts_batch()),
                    read_only: tool.is_some_and(|t| t.annotations().is_read_only()),
                }
            })
            .collect();
        Self {
            results: vec![None; calls.len()],
            calls,
            slots,
            suspended: Vec::new(),
            reminders: BatchReminders::default(),
            stop: None,
        }
    }

    /// Records a completed call; returns whether the batch must stop.
    fn record(&mut self, index: usize, completed: Completed) -> bool {
        let Completed { result, suspend, fatal, abort } = completed;
        let result = self.results[index].insert(result);
        if let Some(request) = suspend {
            self.slots[index].state = ToolCallState::Waiting;
            self.suspended.push((index, request));
            return true;
        }
        self.slots[index].state = ToolCallState::Completed;
        if let Some(source) = fatal {
            let tool = result.name.clone();
            self.stop_with(Exit::Failed {
                reason: OutcomeReason::Error,
                cause: TurnFailure::FatalTool { tool, source },
                hook: None,
            });
            return true;
        }
        if let Some(e) = abort {
            self.stop_with(Exit::hook(e));
            return true;
        }
        false
    }

    fn records(&self) -> Vec<ToolCallRecord> {
        self.calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                let mut record = ToolCallRecord::new(call.id.clone(), call.name.clone(), self.slots[i].state);
                record.read_only = self.slots[i].read_only;
                record
            })
            .collect()
    }

    /// The results so far, in declared order, as one message (for running checkpoints).
    fn results_so_far(&self) -> Option<dive_core::Message> {
        let done: Vec<ToolCallResult> =
            self.results.iter().flatten().filter(|r| r.suspended.is_none()).cloned().collect();
        (!done.is_empty()).then(|| tool_results_message(&done, Vec::new()))
    }

    fn stop_with(&mut self, exit: Exit) {
        if self.stop.is_none() {
            self.stop = Some(Box::new(exit));
        }
    }
}

impl Run {
    /// Runs a batch and appends its one tool-result message. Returns the exit when the batch
    /// ended the turn (suspension, fatal tool error, hook abort, interrupt).
    pub(super) async fn run_batch(
        &mut self,
        calls: Calls,
        prefilled: Vec<ToolCallResult>,
        tools: &ResolvedTools,
        iteration: u32,
    ) -> Option<Exit> {
        let mut batch = Batch::new(calls, tools);
        for result in prefilled {
            if let Some(i) = batch.calls.iter().position(|c| c.id == result.id) {
                batch.results[i] = Some(result);
                batch.slots[i].state = ToolCallState::Completed;
                batch.slots[i].announced = true;
            }
        }
        let parallel = self.agent.inner.parallel_tool_execution
            && batch.calls.len() > 1
            && !batch.slots.iter().any(|s| s.halts)
            && !batch
                .calls
                .iter()
                .any(|c| tools.get(&c.name).is_some_and(|t| t.annotations().is_sequential_only()));
        if parallel {
            // Boxed when it runs: a sequential batch's future has no room for it.
            Box::pin(self.run_parallel(&mut batch, tools, iteration)).await;
        } else {
            self.run_sequential(&mut batch, tools, iteration).await;
        }
        self.close_batch(batch)
    }

    async fn run_sequential(&mut self, batch: &mut Batch, tools: &ResolvedTools, iteration: u32) {
        let mut halted = false;
        for i in 0..batch.calls.len() {
            if batch.results[i].is_some() {
                continue;
            }
            if let Some(exit) = self.boundary() {
                batch.stop_with(exit);
                return;
            }
            let call = &batch.calls[i];
            if halted && batch.slots[i].halts {
                batch.slots[i].announced = true;
                self.announce(call, None);
                let text = "Not run: an earlier call in this batch failed, so this call was skipped.";
                let result = ToolCallResult::new(call, ToolOutput::error(text))
                    .with_error(ToolCallError::new(ToolCallErrorKind::BatchHalted, text));
                batch.results[i] = Some(self.complete_answered(result));
                batch.slots[i].state = ToolCallState::NotStarted;
                continue;
            }
            // Scoped, and taken apart at once, so what `prepare_call` returned is not kept twice
            // in this future across the awaits below.
            let super::call::Ready { meta, execution } = {
                let prepared = self.prepare_call(call, tools, iteration, &mut batch.reminders).await;
                batch.slots[i].announced = true;
                match prepared {
                    Err(abort) => {
                        batch.stop_with(Exit::hook(abort));
                        return;
                    }
                    Ok(Prepared::Answered(result)) => {
                        let result = self.complete_answered(result);
                        halted |= batch.slots[i].halts && result.is_error();
                        batch.results[i] = Some(result);
                        batch.slots[i].state = ToolCallState::Completed;
                        continue;
                    }
                    Ok(Prepared::Ready(ready)) => ready,
                }
            };
            if let Some(interrupt) = self.interrupts.check() {
                batch.stop_with(Exit::interrupted(interrupt));
                return;
            }
            batch.slots[i].state = ToolCallState::Running;
            if self.checkpoints_each_step()
                && let Some(exit) = Box::pin(self.batch_checkpoint(batch)).await
            {
                batch.slots[i].state = ToolCallState::NotStarted;
                batch.stop_with(exit);
                end_span(meta);
                return;
            }
            let started = Instant::now();
            // Scoped: what the race holds ends with it, so it takes no room in this future
            // across the awaits after it. The tool's future takes the execution at once.
            let executed = {
                let mut stop = self.hard_stop();
                let running = execute(execution, &self.turn_id, &self.agent.inner.seams);
                let raced = tokio::select! {
                    biased;
                    why = stop.wait() => Err(why),
                    e = running => Ok(e),
                };
                self.put_back(stop);
                match raced {
                    Ok(e) => e,
                    Err(why) => {
                        batch.slots[i].state = ToolCallState::Unknown;
                        batch.stop_with(Exit::interrupted(why));
                        end_span(meta);
                        return;
                    }
                }
            };
            // Recorded in a scope of its own, so the call's result is not kept in this future
            // across the await after it.
            let (stop, failed) = {
                let completed = match self.complete_call(meta, executed, started) {
                    CallOutcome::Done(completed) => completed,
                    CallOutcome::Hooks(waiting) => {
                        Box::pin(self.finish_call(waiting, &mut batch.reminders)).await
                    }
                };
                let failed = completed.result.is_error() || completed.result.error.is_some();
                (batch.record(i, completed), failed)
            };
            self.checkpoint_and_emit(batch, i).await;
            if stop || batch.stop.is_some() {
                return;
            }
            halted |= batch.slots[i].halts && failed;
        }
    }

    async fn run_parallel(&mut self, batch: &mut Batch, tools: &ResolvedTools, iteration: u32) {
        let mut metas: Vec<Option<CallMeta>> = (0..batch.calls.len()).map(|_| None).collect();
        let mut running = FuturesUnordered::new();
        let turn_id = self.turn_id.clone();
        let calls = batch.calls.clone();
        for (i, call) in calls.iter().enumerate() {
            if batch.results[i].is_some() {
                continue;
            }
            if let Some(exit) = self.boundary() {
                batch.stop_with(exit);
                break;
            }
            let prepared = self.prepare_call(call, tools, iteration, &mut batch.reminders).await;
            batch.slots[i].announced = true;
            match prepared {
                Err(abort) => {
                    batch.stop_with(Exit::hook(abort));
                    break;
                }
                Ok(Prepared::Answered(result)) => {
                    batch.results[i] = Some(self.complete_answered(result));
                    batch.slots[i].state = ToolCallState::Completed;
                }
                Ok(Prepared::Ready(ready)) => {
                    let super::call::Ready { meta, execution } = ready;
                    metas[i] = Some(meta);
                    batch.slots[i].state = ToolCallState::Running;
                    let turn_id = turn_id.clone();
                    let agent = Arc::clone(&self.agent.inner);
                    running.push(async move {
                        let started = Instant::now();
                        (i, started, execute(execution, &turn_id, &agent.seams).await)
                    });
                }
            }
        }
        if !running.is_empty()
            && let Some(exit) = self.batch_checkpoint(batch).await
        {
            // Nothing was polled yet: the launched calls never started.
            for (i, meta) in metas.iter_mut().enumerate() {
                if let Some(meta) = meta.take() {
                    batch.slots[i].state = ToolCallState::NotStarted;
                    end_span(meta);
                }
            }
            batch.stop_with(exit);
            return;
        }
        let mut stop = self.hard_stop();
        loop {
            let next = tokio::select! {
                biased;
                why = stop.wait() => Err(why),
                next = running.next() => Ok(next),
            };
            match next {
                Ok(Some((i, started, executed))) => {
                    let Some(meta) = metas[i].take() else { continue };
                    let completed = match self.complete_call(meta, executed, started) {
                        CallOutcome::Done(completed) => completed,
                        CallOutcome::Hooks(waiting) => {
                            Box::pin(self.finish_call(waiting, &mut batch.reminders)).await
                        }
                    };
                    batch.record(i, completed);
                    self.checkpoint_and_emit(batch, i).await;
                }
                Ok(None) => break,
                Err(why) => {
                    for (i, meta) in metas.iter_mut().enumerate() {
                        if let Some(meta) = meta.take() {
                            batch.slots[i].state = ToolCallState::Unknown;
                            end_span(meta);
                        }
                    }
                    batch.stop_with(Exit::interrupted(why));
                    break;
                }
            }
        }
        self.put_back(stop);
    }

    /// A running checkpoint of the batch as it stands (call states and results so far).
    async fn batch_checkpoint(&mut self, batch: &Batch) -> Option<Exit> {
        if !self.checkpoints_each_step() {
            return None;
        }
        self.upsert_records(batch.records());
        // Boxed: only a run with a session gets here, and a batch's future has no room for it.
        Box::pin(self.checkpoint(batch.results_so_far())).await
    }

    /// After a call completed: checkpoint it (a failure stops the batch), then emit its item.
    async fn checkpoint_and_emit(&mut self, batch: &mut Batch, index: usize) {
        if self.checkpoints_each_step()
            && let Some(exit) = Box::pin(self.batch_checkpoint(batch)).await
        {
            batch.stop_with(exit);
        }
        if let Some(result) = batch.results[index].clone() {
            self.emit_result(result);
        }
    }

    /// Answers every call of a response that will not run (limits, refusal, provider stop).
    pub(super) fn answer_not_run(&mut self, calls: Calls) {
        if calls.is_empty() {
            return;
        }
        let batch = Batch::new(calls, &ResolvedTools::default());
        let exit = self.close_batch(batch);
        debug_assert!(exit.is_none());
    }

    /// Answers what did not finish, records call states, and either appends the results
    /// message or, on a suspension, builds the suspension state.
    fn close_batch(&mut self, mut batch: Batch) -> Option<Exit> {
        let suspended = !batch.suspended.is_empty() && batch.stop.is_none();
        if !suspended {
            // A turn that ends for another reason cannot wait: a suspending call's effect is
            // unknown.
            for (i, _) in std::mem::take(&mut batch.suspended) {
                batch.results[i] = None;
                batch.slots[i].state = ToolCallState::Unknown;
            }
        }
        for i in 0..batch.calls.len() {
            if batch.results[i].is_some() || (suspended && batch.slots[i].state == ToolCallState::NotStarted)
            {
                continue;
            }
            let call = &batch.calls[i];
            let (text, kind) = match batch.slots[i].state {
                ToolCallState::Unknown => (TOOL_CALL_UNKNOWN_TEXT, ToolCallErrorKind::Unknown),
                _ => (TOOL_CALL_NOT_RUN_TEXT, ToolCallErrorKind::NotRun),
            };
            if !batch.slots[i].announced {
                self.announce(call, None);
            }
            let result =
                ToolCallResult::new(call, ToolOutput::error(text)).with_error(ToolCallError::new(kind, text));
            batch.results[i] = Some(self.complete_answered(result));
        }
        let records = batch.records();
        self.upsert_records(records);
        self.next_call_reminders.append(&mut batch.reminders.model_only);
        // What the calls themselves spent on models (subagents) counts in the turn's usage.
        for usage in batch.results.iter().flatten().filter_map(|r| r.usage.as_deref()) {
            self.usage += usage;
        }
        if suspended {
            let pending = batch
                .suspended
                .iter()
                .map(|(i, request)| pending_call(&batch.calls[*i], request, batch.slots[*i].halts))
                .collect();
            let completed = batch
                .results
                .iter()
                .zip(&batch.slots)
                .filter(|(_, s)| s.state == ToolCallState::Completed)
                .filter_map(|(r, _)| r.as_ref())
                .map(|r| {
                    CompletedToolCall::new(
                        r.id.clone(),
                        r.name.clone(),
                        serde_json::Value::clone(&r.input),
                        r.output.clone().unwrap_or_default(),
                    )
                })
                .collect();
            let mut state = SuspensionState::default();
            state.turn_id.clone_from(&self.turn_id);
            state.pending = pending;
            state.completed = completed;
            self.pending_reminders.append(&mut batch.reminders.recorded);
            return Some(Exit::Suspended(Box::new(state)));
        }
        let mut results = Vec::with_capacity(batch.results.len());
        results.extend(batch.results.into_iter().flatten());
        let message = tool_results_message(&results, std::mem::take(&mut batch.reminders.recorded));
        self.push_output(message);
        batch.stop.map(|exit| *exit)
    }
}

fn pending_call(call: &ToolUse, request: &SuspendRequest, halts_batch: bool) -> PendingToolCall {
    let mut pending = PendingToolCall::new(
        call.id.clone(),
        call.name.clone(),
        serde_json::Value::clone(&call.input),
        request.prompt.clone(),
    );
    pending.reason = request.reason;
    pending.metadata.clone_from(&request.metadata);
    pending.halts_batch = halts_batch;
    pending
}

fn end_span(meta: CallMeta) {
    meta.span.end();
}
