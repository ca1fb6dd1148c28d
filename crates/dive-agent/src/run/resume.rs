//! Resuming a suspended turn: supplied results go through the Post hooks;
//! a partial resume saves the shrunken suspension before emitting its items; a full resume
//! answers the suspended batch (running calls that never started) and continues the loop.

use dive_core::{
    OutcomeReason, PendingToolCall, Persistence, Response, ResponseItem, Role, SuspensionState,
    ToolCallRecord, ToolCallResult, ToolCallState, ToolOutput, ToolUse, TurnOutcome,
};

use super::call::BatchReminders;
use super::calls::Calls;
use super::messages::tool_results_message;
use super::{Exit, Finished, Run};

/// What a resume brings: the suspension and the results accepted for it.
#[derive(Debug)]
pub(super) struct ResumeWork {
    pub(super) state: SuspensionState,
    pub(super) accepted: Vec<(PendingToolCall, ToolOutput)>,
}

impl Run {
    /// Runs Post hooks on supplied results; returns them and any abort.
    async fn accept(
        &mut self,
        accepted: Vec<(PendingToolCall, ToolOutput)>,
    ) -> (Vec<ToolCallResult>, Option<Exit>) {
        let mut reminders = BatchReminders::default();
        let mut results = Vec::new();
        let mut exit = None;
        let calls = self.suspended_calls();
        for (pending, output) in accepted {
            let call = batch_call(&calls, &pending.id, &pending.name, &pending.input);
            let mut result = ToolCallResult::new(&call, output);
            let failed = result.is_error();
            if let Err(abort) = self.post_hooks(&mut result, failed, &mut reminders).await
                && exit.is_none()
            {
                exit = Some(Exit::hook(abort));
            }
            results.push(result);
        }
        for r in reminders.recorded {
            self.pending_reminders.push(r);
        }
        self.next_call_reminders.extend(reminders.model_only);
        self.upsert_records(
            results
                .iter()
                .map(|r| ToolCallRecord::new(r.id.clone(), r.name.clone(), ToolCallState::Completed))
                .collect(),
        );
        (results, exit)
    }

    /// A full resume: answer the suspended batch, then the loop continues.
    pub(super) async fn resume_batch(&mut self) -> Option<Exit> {
        let work = self.resume.take()?;
        let calls = self.suspended_calls();
        let mut prefilled: Vec<ToolCallResult> = work
            .state
            .completed
            .iter()
            .map(|c| ToolCallResult::new(&batch_call(&calls, &c.id, &c.name, &c.input), c.output.clone()))
            .collect();
        let (supplied, abort) = self.accept(work.accepted).await;
        prefilled.extend(supplied.iter().cloned());
        let ordered: Vec<ToolCallResult> =
            calls.iter().filter_map(|c| prefilled.iter().find(|r| r.id == c.id).cloned()).collect();
        if let Some(exit) = self.checkpoint(Some(tool_results_message(&ordered, Vec::new()))).await {
            return Some(exit);
        }
        for result in supplied {
            self.emit_result(result);
        }
        if let Some(exit) = abort {
            self.answer_prefilled(&calls, prefilled);
            return Some(exit);
        }
        let tools = match self.resolve_tools().await {
            Ok(tools) => tools,
            Err(exit) => {
                self.answer_prefilled(&calls, prefilled);
                return Some(exit);
            }
        };
        self.run_batch(calls, prefilled, &tools, 0).await
    }

    /// The calls of the suspended batch, as the model made them (each with its toolset name).
    fn suspended_calls(&self) -> Calls {
        self.output
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant && m.has_tool_uses())
            .map(|m| Calls::of(m.content.clone()))
            .unwrap_or_default()
    }

    /// Appends the results known for a batch that will not run (the rest are answered when the
    /// turn closes).
    fn answer_prefilled(&mut self, calls: &Calls, prefilled: Vec<ToolCallResult>) {
        let ordered: Vec<ToolCallResult> =
            calls.iter().filter_map(|c| prefilled.iter().find(|r| r.id == c.id).cloned()).collect();
        self.push_output(tool_results_message(&ordered, Vec::new()));
    }

    /// Closes a suspended turn as cancelled without calling the model: finished calls keep
    /// their results, pending calls are unknown; OnIncompleteTurn runs; no error is returned.
    pub(super) async fn finish_cancelled_suspension(&mut self) -> Finished {
        self.open_span();
        if let Some(work) = self.resume.take() {
            self.abandon_suspension(&work.state);
        }
        let exit = Exit::Stopped {
            reason: OutcomeReason::Canceled,
            detail: Some("the suspended turn was cancelled".into()),
        };
        self.finish(exit).await
    }

    /// A partial resume: the accepted results are saved into the suspension (still waiting
    /// for the rest) before their items are emitted. A failed save changes nothing.
    pub(super) async fn finish_partial_resume(&mut self) -> Finished {
        let Some(work) = self.resume.take() else { return self.execute().await };
        let mut state = work.state;
        let (results, _abort) = self.accept(work.accepted).await;
        for r in &results {
            state.pending.retain(|p| p.id != r.id);
            state.completed.push(dive_core::CompletedToolCall::new(
                r.id.clone(),
                r.name.clone(),
                serde_json::Value::clone(&r.input),
                r.output.clone().unwrap_or_default(),
            ));
        }
        let mut turn = self.turn_record(None);
        turn.close_at(
            TurnOutcome::new(OutcomeReason::Suspended, self.tool_records.clone()),
            self.agent.inner.seams.now(),
        );
        state.turn_messages.clone_from(&turn.messages);
        state.input_count = turn.input_count;
        state.usage = turn.usage.clone();
        turn.suspension = Some(Box::new(state.clone()));
        if self.session.is_some() {
            self.write_turn(&turn).await?;
            turn.persistence = Persistence::Saved;
        }
        for result in results {
            self.emit_result(result);
        }
        let seams = &self.agent.inner.seams;
        let mut response = Box::new(Response::new_at(seams.new_id("resp"), seams.now()));
        response.model = self.model.model().to_owned();
        response.items = self.emitter.take_items();
        response.status = turn.status;
        response.suspension = Some(Box::new(state));
        response.usage = self.usage.clone();
        response.finished_at = self.agent.inner.seams.now();
        if self.emitter.wants_events() {
            self.emitter.emit_terminal(ResponseItem::TurnEnded { turn: Box::new(turn.clone()) });
        }
        response.turn = Some(turn);
        if let Some(claim) = self.claim.take() {
            claim.release(self.agent.inner.save_timeout).await;
        }
        Ok(response)
    }
}

/// The call a saved result answers: its id, name and input as saved, and the toolset name of the
/// model's call of that id (a provider-defined toolset's result must echo it).
fn batch_call(calls: &Calls, id: &str, name: &str, input: &serde_json::Value) -> ToolUse {
    let mut call = ToolUse::new(id, name, input.clone());
    call.toolset_name = calls.iter().find(|c| c.id == id).and_then(|c| c.toolset_name.clone());
    call
}
