//! Everything before the turn boundary: claims, the session load, the plan (fresh, resume,
//! continue), SessionStart hooks. An error here changes nothing.

use std::sync::Arc;

use dive_core::{
    ContextSize, Message, Reminder, ResponseItem, RunInfo, Session, SessionSnapshot, SessionStartContext,
    Turn, TurnOrigin, Usage,
};
use tokio::sync::mpsc::UnboundedSender;
use tokio::time::Instant;

use super::durability::ClaimGuard;
use super::plan::{self, OpenTurn, Plan};
use super::resume::ResumeWork;
use super::{Interrupts, Run, hooks, session_cache_key};
use crate::agent::{Agent, AgentInner};
use crate::emit::Emitter;
use crate::error::{AgentError, Rejection};
use crate::input::RunInput;
use crate::options::RunOptions;
use crate::texts::CONTINUE_TEXT;

/// The name of the reminder a continuation adds (model-only, or recorded when the history
/// ends with an assistant message so roles keep alternating).
pub const TURN_CONTINUE_REMINDER: &str = "turn-continue";

impl Run {
    pub(super) async fn prepare(
        agent: Agent,
        mut options: RunOptions,
        session: Option<Arc<dyn Session>>,
        stream: Option<UnboundedSender<ResponseItem>>,
    ) -> Result<Box<Self>, AgentError> {
        let inner = &agent.inner;
        if let Some(s) = &session
            && inner.checkpoint_steps
            && s.as_turn_store().is_none()
        {
            return Err(Rejection::Unsupported {
                session: s.id().to_owned(),
                needs: "record step checkpoints (it is not a TurnStore)",
            }
            .into());
        }
        // What only a session or a hook needs is awaited through a box made when it runs:
        // a turn without them has no room for it in its future.
        let claim = match (&session, &inner.claim) {
            (Some(s), Some(options)) => {
                Some(Box::new(Box::pin(ClaimGuard::acquire(Arc::clone(s), options)).await?))
            }
            _ => None,
        };
        let model = agent.model();
        let system_prompt = agent.effective_system_prompt();
        let mut info = RunInfo::sharing(Arc::clone(&inner.name), options.values.clone())
            .with_agent_id(Arc::clone(&inner.id));
        let snapshot = match &session {
            Some(s) => {
                info = info.with_session(s.id());
                Some(s.load().await?)
            }
            None => None,
        };
        let cancel_suspended = matches!(options.input, RunInput::CancelSuspended { .. });
        let continuing = matches!(options.input, RunInput::Continue { .. });
        let run_input = std::mem::take(&mut options.input);
        let has_background = !options.background_results.is_empty();
        // The snapshot and the plan are handed on whole and the plan taken apart by a call,
        // so this future keeps no room for either across the SessionStart hooks' await.
        let (mut revision, previous_context, plan) =
            decide(inner, run_input, has_background, session.as_deref(), snapshot)?;
        let Opened {
            turn_id,
            mut input,
            mut prior,
            resume,
            call_reminders,
            mut history,
            partial_resume,
            fresh,
        } = Opened::from_plan(
            plan,
            inner.seams.new_id("turn"),
            options.model_only_reminders.clone(),
            cancel_suspended,
        );
        if fresh && history.is_empty() && !inner.hooks.session_start.is_empty() {
            history = Box::pin(session_start(&agent, &info, session.as_deref(), &mut revision)).await?;
        }
        if continuing {
            // Roles must alternate: after an assistant message, record the continuation.
            let last = prior.as_ref().and_then(|p| p.output.last()).or(history.last()).or(input.last());
            if last.is_some_and(|m| m.role == dive_core::Role::Assistant)
                && let Ok(r) = Reminder::new(TURN_CONTINUE_REMINDER, CONTINUE_TEXT)
            {
                match &mut prior {
                    Some(open) => open.output.push(r.into_message()),
                    None => input.push(r.into_message()),
                }
            }
        }
        info = info.with_turn(turn_id.as_str());
        let prompt_cache_key = options.prompt_cache_key.clone().unwrap_or_else(|| match &session {
            Some(s) => session_cache_key(s.id()),
            None => inner.cache_key.clone(),
        });
        let interrupts = Interrupts {
            cancel: options.cancel.clone(),
            soft: options.soft_cancel.clone().unwrap_or_default(),
            deadline: inner.response_timeout.map(|t| Instant::now() + t),
            claim_lost: claim.as_ref().map(|c| c.lost.clone()),
        };
        let (response_id, created_at) = (inner.seams.new_id("resp"), inner.seams.now());
        let (output, prior_usage, records) = match prior {
            Some(open) => (open.output, open.usage, open.records),
            None => (Vec::new(), Usage::default(), Vec::new()),
        };
        let compaction = super::compact::CompactionState::resumed(previous_context, history.len());
        let working: Vec<Message> =
            history.drain(..).chain(input.iter().cloned()).chain(output.iter().cloned()).collect();
        let origin = (input.is_empty() && !options.background_results.is_empty()).then(|| {
            let from = options.background_results.iter().find_map(|h| h.turn_id.clone()).unwrap_or_default();
            TurnOrigin::Background { from_turn_id: from }
        });
        Ok(Box::new(Self {
            emitter: Emitter::new(options.on_event.clone(), stream),
            hard_stop: None,
            tool_sink: None,
            model,
            system_prompt,
            info,
            interrupts,
            revision,
            session,
            prompt_cache_key,
            call_reminders,
            response_id,
            created_at,
            turn_id,
            input,
            output_start: output.len(),
            output,
            working: Arc::new(working),
            usage: Usage::default(),
            prior_usage,
            iterations: 0,
            tool_records: records,
            // Room for the usual turn's calls (a tool call and the answer) from the start: the
            // records are large, and growing the list would allocate twice its size.
            model_calls: Vec::with_capacity(2),
            next_call_reminders: Vec::new(),
            pending_reminders: Vec::new(),
            last_stop: None,
            stream: None,
            background: options.background_results,
            origin,
            resume,
            partial_resume,
            cancel_suspended,
            claim,
            span: std::sync::Mutex::new(None),
            compaction,
            agent,
        }))
    }
}

/// The loaded session's revision and last context size, and the plan.
fn decide(
    inner: &AgentInner,
    input: RunInput,
    has_background: bool,
    session: Option<&dyn Session>,
    snapshot: Option<SessionSnapshot>,
) -> Result<(u64, Option<ContextSize>, Plan), AgentError> {
    let revision = snapshot.as_ref().map_or(0, |s| s.revision);
    let previous_context = snapshot.as_ref().and_then(|s| s.latest_outcome.as_ref()).and_then(|o| o.context);
    let plan = plan::decide(inner, input, has_background, session, snapshot)?;
    Ok((revision, previous_context, plan))
}

/// What a plan opens: the turn's id, input and earlier part, and the history before it.
struct Opened {
    turn_id: String,
    input: Vec<Message>,
    /// The open turn this invocation resumes or continues.
    prior: Option<OpenTurn>,
    resume: Option<Box<ResumeWork>>,
    call_reminders: Vec<Reminder>,
    history: Vec<Message>,
    /// A resume that answers only some of the pending calls.
    partial_resume: bool,
    /// A fresh turn (not a resume or a continuation).
    fresh: bool,
}

impl Opened {
    /// Opens `plan`: a fresh turn under `turn_id`, or the open turn it resumes or continues.
    fn from_plan(plan: Plan, turn_id: String, call_reminders: Vec<Reminder>, cancelling: bool) -> Self {
        let partial_resume = plan.is_partial_resume(cancelling);
        let mut opened = Self {
            turn_id,
            input: Vec::new(),
            prior: None,
            resume: None,
            call_reminders,
            history: Vec::new(),
            partial_resume,
            fresh: matches!(plan, Plan::Fresh { .. }),
        };
        opened.history = match plan {
            Plan::Fresh { history, input } => {
                opened.input = input;
                history
            }
            Plan::Resume { history, turn, state, accepted } => {
                let mut turn = *turn;
                opened.turn_id.clone_from(&turn.id);
                opened.input = std::mem::take(&mut turn.input);
                opened.prior = Some(turn);
                opened.resume = Some(Box::new(ResumeWork { state, accepted }));
                history
            }
            Plan::Continue { history, fold } => {
                match fold {
                    Some(mut open) => {
                        opened.turn_id.clone_from(&open.id);
                        opened.input = std::mem::take(&mut open.input);
                        opened.prior = Some(open);
                    }
                    None => {
                        if let Ok(r) = Reminder::new(TURN_CONTINUE_REMINDER, CONTINUE_TEXT) {
                            opened.call_reminders.push(r);
                        }
                    }
                }
                history
            }
        };
        opened
    }
}

/// SessionStart hooks of a turn with no history: the messages they seed, the persisted ones
/// first (and saved as a turn of their own when there is a session).
async fn session_start(
    agent: &Agent,
    info: &RunInfo,
    session: Option<&dyn Session>,
    revision: &mut u64,
) -> Result<Vec<Message>, AgentError> {
    let inner = &agent.inner;
    let seeded = hooks::session_start(&inner.hooks, SessionStartContext::new(info.clone())).await?;
    if !seeded.persisted.is_empty()
        && let Some(session) = session
    {
        let mut turn =
            Turn::completed_at(inner.seams.new_id("turn"), seeded.persisted.clone(), inner.seams.now());
        turn.origin = Some(TurnOrigin::SessionStart);
        super::durability::write_record(session, revision, &turn).await?;
    }
    let mut history = seeded.persisted;
    history.extend(seeded.transient);
    Ok(history)
}
