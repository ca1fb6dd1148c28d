//! The one exit of a turn: build the outcome, close an incomplete turn
//! (every call answered, the outcome reminder last), run the end-of-turn hooks, save with a
//! bounded write that ignores cancellation, emit `turn_ended`, and return by the contract.

use dive_core::{
    Content, IncompleteTurnContext, OutcomeReason, Persistence, PostGenerationContext, ResponseItem,
    SessionError, SuspendContext, SuspensionState, TOOL_CALL_UNKNOWN_TEXT, ToolCallState, ToolResultContent,
    Turn, TurnOutcome, TurnStatus, answer_unanswered_tool_calls_with,
};

use super::hooks::log_unless_abort;
use super::messages::{append_user_blocks, reminder_blocks};
use super::{Exit, Finished, Run};
use crate::error::{AgentError, TurnError, TurnFailure};
use crate::texts::{TOOL_CALL_NOT_RUN_TEXT, incomplete_turn_reminder};

impl Run {
    pub(super) async fn finish(&mut self, exit: Exit) -> Finished {
        // What runs only with hooks, an incomplete turn or a session has its future boxed when
        // it runs, so the turn's future has no room for it.
        let hooks = &self.agent.inner.hooks;
        let exit = if hooks.on_suspend.is_empty() && hooks.post_generation.is_empty() {
            exit
        } else {
            Box::pin(self.end_of_turn_hooks(exit)).await
        };
        // Taken apart by a call, so this future keeps no room for the exit after it.
        let (reason, detail, failure, hook, suspension) = exit.into_parts();
        // The run ends here: its call records and input move into the outcome and the turn.
        let mut outcome = TurnOutcome::new(reason.clone(), std::mem::take(&mut self.tool_records));
        if let Some(detail) = detail.or_else(|| failure.as_ref().map(ToString::to_string)) {
            outcome = outcome.with_error(detail);
        }
        if let Some(hook) = hook {
            outcome = outcome.with_hook(hook);
        }
        if reason == OutcomeReason::IterationLimit {
            outcome = outcome.with_last_text(self.last_assistant_text());
        }
        outcome.context = self.context_size();
        if reason != OutcomeReason::Suspended {
            self.observe_response(&reason);
        }
        // `discard_incomplete_turns`: an error exit is neither closed nor saved.
        let mut discard = failure.is_some() && self.agent.inner.discard_incomplete;
        if outcome.status() == TurnStatus::Incomplete && !discard {
            discard = Box::pin(self.close_incomplete(&mut outcome)).await;
        }

        let mut turn = self.final_turn_record(&outcome);
        turn.close_at(outcome, self.agent.inner.seams.now());
        if let Some(mut state) = suspension {
            state.turn_messages.clone_from(&turn.messages);
            state.input_count = turn.input_count;
            state.usage = turn.usage.clone();
            turn.suspension = Some(state);
        }
        let save_error =
            if discard || self.session.is_none() { None } else { Box::pin(self.save(&mut turn)).await };
        if save_error.is_none() && !discard {
            self.record_compaction(&turn).await;
        }
        let failure = match (failure, self.claim.take()) {
            (failure, Some(claim)) => {
                let loss = claim.take_loss();
                Box::pin(claim.release(self.agent.inner.save_timeout)).await;
                match (failure, loss) {
                    (Some(TurnFailure::ClaimLost(_)), Some(e)) => Some(TurnFailure::ClaimLost(e)),
                    (failure, _) => failure,
                }
            }
            (failure, None) => failure,
        };

        // Built in its box, the response is not copied on its way out of the run.
        let id = std::mem::take(&mut self.response_id);
        let mut response = Box::new(self.response_skeleton(id));
        response.items = self.emitter.take_items();
        response.output_messages = super::messages::take_from(&mut self.output, self.output_start);
        response.usage = std::mem::take(&mut self.usage);
        response.finished_at = self.agent.inner.seams.now();
        response.status = turn.status;
        response.suspension = turn.suspension.clone();
        response.background_tasks = std::mem::take(&mut self.background);
        if let Some((call, details)) = self.last_stop.take() {
            response.stop_reason =
                self.model_calls.get(call).map(|r| r.stop_reason.clone()).unwrap_or_default();
            response.stop_details = details;
        }
        response.model_calls = std::mem::take(&mut self.model_calls);
        let ended =
            self.emitter.wants_events().then(|| ResponseItem::TurnEnded { turn: Box::new(turn.clone()) });
        response.turn = Some(turn);
        if let Some(mut span) = self.span.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).take()
        {
            span.set_usage(&response.usage);
            span.set_outcome(response.status.as_str(), Some(reason.as_str()));
            if let Some(f) = &failure {
                span.set_error(&f.to_string());
            }
            span.end();
        }
        if let Some(item) = ended {
            self.emitter.emit_terminal(item);
        }

        let cause = match (failure, save_error) {
            (Some(cause), save) => {
                if let Some(e) = save {
                    tracing::error!(error = %e, "saving the turn failed after it ended early");
                }
                cause
            }
            (None, Some(save)) => save,
            (None, None) => return Ok(response),
        };
        Err(AgentError::Turn(Box::new(TurnError { response: *response, reason, cause })))
    }

    /// OnSuspend and PostGeneration hooks; an abort from either turns the exit into an
    /// incomplete `hook_abort` (a suspension it cancels is abandoned: its calls are unknown).
    async fn end_of_turn_hooks(&mut self, exit: Exit) -> Exit {
        let agent = self.agent.clone();
        let hooks = &agent.inner.hooks;
        let mut exit = exit;
        if let Exit::Suspended(state) = &exit {
            for hook in &hooks.on_suspend {
                let ctx = SuspendContext::new(self.info.clone(), (**state).clone());
                if let Err(e) = hook.on_suspend(ctx).await {
                    let e = if e.hook.is_some() { e } else { e.with_hook(hook.name()) };
                    if let Err(abort) = log_unless_abort(e, "on_suspend") {
                        let state = state.clone();
                        self.abandon_suspension(&state);
                        exit = Exit::hook(abort);
                        break;
                    }
                }
            }
        }
        if matches!(exit, Exit::Completed | Exit::Suspended(_)) {
            for hook in &hooks.post_generation {
                let mut snapshot = self.response_skeleton(self.response_id.clone());
                snapshot.output_messages.clone_from(&self.output);
                snapshot.usage = self.usage.clone();
                let ctx = PostGenerationContext::new(self.info.clone(), snapshot);
                if let Err(e) = hook.post_generation(ctx).await {
                    let e = if e.hook.is_some() { e } else { e.with_hook(hook.name()) };
                    if let Err(abort) = log_unless_abort(e, "post_generation") {
                        if let Exit::Suspended(state) = &exit {
                            let state = state.clone();
                            self.abandon_suspension(&state);
                        }
                        exit = Exit::hook(abort);
                        break;
                    }
                }
            }
        }
        exit
    }

    /// Answers a suspension that will not be resumed: finished calls keep their results,
    /// waiting calls get "unknown result".
    pub(super) fn abandon_suspension(&mut self, state: &SuspensionState) {
        let mut blocks: Vec<Content> = state
            .completed
            .iter()
            .map(|c| {
                let mut block = ToolResultContent::new(c.id.clone(), c.output.content.clone());
                block.is_error = c.output.is_error;
                Content::ToolResult(block)
            })
            .collect();
        blocks.extend(
            state
                .pending
                .iter()
                .map(|p| Content::ToolResult(ToolResultContent::error(p.id.clone(), TOOL_CALL_UNKNOWN_TEXT))),
        );
        for record in &mut self.tool_records {
            if record.state == ToolCallState::Waiting {
                record.state = ToolCallState::Unknown;
            }
        }
        self.push_output(dive_core::Message::new(dive_core::Role::User, blocks));
    }

    /// Closes an incomplete turn: unanswered calls answered "not run", OnIncompleteTurn hooks,
    /// then the outcome reminder. Returns whether a hook asked to discard the turn.
    async fn close_incomplete(&mut self, outcome: &mut TurnOutcome) -> bool {
        let answered = answer_unanswered_tool_calls_with(&self.output, TOOL_CALL_NOT_RUN_TEXT).into_owned();
        self.output = answered;
        let mut discard = false;
        let mut recorded = Vec::new();
        let agent = self.agent.clone();
        for hook in &agent.inner.hooks.on_incomplete_turn {
            let mut turn =
                Turn::new_at(self.turn_id.clone(), self.input.clone(), self.agent.inner.seams.now());
            turn.messages.extend(self.output.iter().cloned());
            turn.close_at(outcome.clone(), self.agent.inner.seams.now());
            let ctx =
                IncompleteTurnContext::new(self.info.clone(), turn, self.output.clone(), self.usage.clone());
            match hook.on_incomplete_turn(ctx).await {
                Ok(decision) => {
                    discard |= decision.discard;
                    if let Some(messages) = decision.output_messages {
                        self.output = messages;
                    }
                    if let Some(error) = decision.error {
                        outcome.error = Some(error);
                    }
                    recorded.extend(decision.reminders.into_iter().map(|r| r.reminder));
                }
                Err(e) => tracing::warn!(hook = hook.name(), error = %e, "on-incomplete-turn hook failed"),
            }
        }
        let mut blocks = reminder_blocks(recorded);
        blocks.push(Content::Reminder(incomplete_turn_reminder(outcome)));
        append_user_blocks(&mut self.output, blocks);
        discard
    }

    /// Saves the closed turn (the run has a session and keeps the turn) with a bounded write
    /// that ignores the run's cancellation. Returns the failure to report, if any.
    async fn save(&mut self, turn: &mut Turn) -> Option<TurnFailure> {
        let timeout = self.agent.inner.save_timeout;
        match tokio::time::timeout(timeout, self.write_turn(turn)).await {
            Ok(Ok(revision)) => {
                turn.revision = revision;
                turn.persistence = Persistence::Saved;
                None
            }
            Ok(Err(error)) => {
                turn.persistence = match error {
                    SessionError::Rejected(_)
                    | SessionError::RevisionConflict { .. }
                    | SessionError::InvalidId { .. } => Persistence::Failed,
                    _ => Persistence::Unknown,
                };
                Some(TurnFailure::Save(error))
            }
            Err(_) => {
                turn.persistence = Persistence::Unknown;
                Some(TurnFailure::SaveTimeout)
            }
        }
    }
}
