//! One model call: resolving tools, building the request, calling (streaming when the model
//! supports it), racing hard interrupts, and recording the call.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dive_core::{
    BoxFuture, ChatSpan, ChatStart, EventStream, Llm, LlmError, LlmErrorKind, ModelCallRecord, ModelRequest,
    ModelResponse, OutcomeReason, Reminder, ResponseItem, Tool, ToolChoice, ToolDeclaration, ToolDefinition,
};
use futures_util::StreamExt;

use super::messages::{Appended, append_user_blocks, reminder_blocks};
use super::observe::{ThinkingWatch, observe_thinking_block};
use super::{Exit, Interrupt, Run};
use crate::error::TurnFailure;
use crate::texts::TOOL_LIMIT_TEXT;

/// Tools by name, with their definitions in declaration order.
#[derive(Default)]
pub(crate) struct ToolIndex {
    by_name: HashMap<String, Arc<dyn Tool>>,
    /// The definitions of the tools indexed by [`new`](Self::new), built once and shared by
    /// every request that has no toolset tools.
    shared: Arc<[ToolDefinition]>,
    /// The definitions of tools added one by one (a call's toolset tools).
    definitions: Vec<ToolDefinition>,
}

impl ToolIndex {
    /// Indexes tools; the first of two with one name wins.
    pub(crate) fn new(tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        let mut index = Self::default();
        for tool in tools {
            index.add(tool);
        }
        index.shared = std::mem::take(&mut index.definitions).into();
        index
    }

    fn definitions(&self) -> impl Iterator<Item = &ToolDefinition> {
        self.shared.iter().chain(&self.definitions)
    }

    fn add(&mut self, tool: Arc<dyn Tool>) {
        self.insert(tool, true);
    }

    /// Indexes a tool; its definition is sent only when `declared_to_model` (a member of a
    /// provider-defined toolset is not: the provider sends the toolset's own entry).
    fn insert(&mut self, tool: Arc<dyn Tool>, declared_to_model: bool) {
        if self.by_name.contains_key(tool.name()) {
            tracing::warn!(tool = tool.name(), "a toolset tool shadows an existing tool name; ignored");
            return;
        }
        if declared_to_model {
            self.definitions.push(tool.definition());
        }
        self.by_name.insert(tool.name().to_owned(), tool);
    }
}

/// The tools of one model call: the agent's static tools (indexed once, at build), then
/// toolset tools (a static tool wins a name clash).
#[derive(Default)]
pub(crate) struct ResolvedTools {
    base: Arc<ToolIndex>,
    /// Toolset tools, indexed when a toolset has any (a call without them builds no index;
    /// boxed, so the loop's future holds a pointer for them).
    extra: Option<Box<ToolIndex>>,
    /// The provider-defined toolsets of this call, sent in place of their members.
    declared: Vec<Arc<ToolDeclaration>>,
    /// The names of those toolsets' member tools.
    members: Vec<String>,
}

impl ResolvedTools {
    /// The agent's static tools and nothing else yet (no allocation).
    pub(super) fn over(base: Arc<ToolIndex>) -> Self {
        Self { base, extra: None, declared: Vec::new(), members: Vec::new() }
    }

    fn add(&mut self, tool: Arc<dyn Tool>) {
        self.add_as(tool, true);
    }

    fn add_as(&mut self, tool: Arc<dyn Tool>, declared_to_model: bool) {
        if self.base.by_name.contains_key(tool.name()) {
            tracing::warn!(tool = tool.name(), "a toolset tool shadows a static tool name; ignored");
            return;
        }
        self.extra.get_or_insert_with(Box::default).insert(tool, declared_to_model);
    }

    /// A tool declarer's tools: its declared members are routed by name but left out of the
    /// definitions; any other tool of it is an ordinary tool.
    fn add_declared(&mut self, declaration: Arc<ToolDeclaration>, tools: Vec<Arc<dyn Tool>>) {
        for tool in tools {
            let member = declaration.has_member(tool.name());
            if member {
                self.members.push(tool.name().to_owned());
            }
            self.add_as(tool, !member);
        }
        self.declared.push(declaration);
    }

    /// Whether `name` is a member of a provider-defined toolset of this call.
    pub(crate) fn is_member(&self, name: &str) -> bool {
        self.members.iter().any(|m| m == name)
    }

    /// The tool of this name.
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.base.by_name.get(name).or_else(|| self.extra.as_ref()?.by_name.get(name))
    }

    /// Every tool name.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        let extra = self.extra.iter().flat_map(|index| index.by_name.keys());
        self.base.by_name.keys().chain(extra).map(String::as_str)
    }

    /// The definitions of a call: the agent's shared list as is, unless toolsets add tools.
    pub(super) fn definitions(&self) -> Arc<[ToolDefinition]> {
        match &self.extra {
            Some(extra) if extra.definitions().next().is_some() => {
                self.base.definitions().chain(extra.definitions()).cloned().collect()
            }
            _ => Arc::clone(&self.base.shared),
        }
    }

    fn is_empty(&self) -> bool {
        self.base.definitions().next().is_none()
            && self.extra.as_ref().is_none_or(|extra| extra.definitions().next().is_none())
            && self.declared.is_empty()
    }
}

/// A call handed to its provider and not yet awaited.
enum PendingCall<'m> {
    /// A whole response being generated.
    Generate(BoxFuture<'m, Result<ModelResponse, LlmError>>),
    /// A stream being opened.
    Stream(BoxFuture<'m, Result<EventStream, LlmError>>),
}

enum Failure {
    Interrupted(Interrupt),
    Llm(LlmError),
}

impl From<LlmError> for Failure {
    fn from(e: LlmError) -> Self {
        Self::Llm(e)
    }
}

impl Run {
    /// Static tools plus every toolset's current tools.
    pub(super) async fn resolve_tools(&self) -> Result<ResolvedTools, Exit> {
        let mut resolved = ResolvedTools::over(Arc::clone(&self.agent.inner.tool_index));
        for toolset in &self.agent.inner.toolsets {
            match toolset.tools(&self.info).await {
                Ok(tools) => match toolset.declaration() {
                    Some(declaration) => resolved.add_declared(declaration, tools),
                    None => tools.into_iter().for_each(|t| resolved.add(t)),
                },
                Err(source) => {
                    return Err(Exit::Failed {
                        reason: OutcomeReason::Error,
                        cause: TurnFailure::Toolset { toolset: toolset.name().to_owned(), source },
                        hook: None,
                    });
                }
            }
        }
        Ok(resolved)
    }

    /// The request of one call. It shares the working history rather than copying it: this
    /// call's reminder blocks are appended to the history itself (in place while no one else
    /// holds it) and the returned [`Appended`] takes them back after the call.
    fn build_request(&mut self, tools: &ResolvedTools, last_call: bool) -> (ModelRequest, Appended) {
        let mut tail: Vec<Reminder> = self.call_reminders.clone();
        tail.append(&mut self.next_call_reminders);
        let limit_applies = last_call && !tools.is_empty();
        if limit_applies && let Ok(r) = Reminder::operator("tool-limit", TOOL_LIMIT_TEXT) {
            tail.push(r);
        }
        let blocks = reminder_blocks(tail);
        let appended = if blocks.is_empty() {
            Appended::Nothing
        } else {
            append_user_blocks(Arc::make_mut(&mut self.working), blocks)
        };
        let system = crate::texts::system_prompt_for(&self.system_prompt, &self.working).into_owned();
        let mut request = ModelRequest::new(Arc::clone(&self.working)).with_tools(tools.definitions());
        request.declared_toolsets.clone_from(&tools.declared);
        if !system.is_empty() {
            request = request.with_system(system);
        }
        request.prompt_cache_key = Some(self.prompt_cache_key.clone());
        if limit_applies {
            request.tool_choice = Some(ToolChoice::None);
        }
        self.agent.inner.settings.apply_to(&mut request);
        (request, appended)
    }

    /// Calls the model once. On failure the kept part of a streamed response is recorded and
    /// the exit says why.
    ///
    /// The request goes into the provider's own future before the first await, and the call's
    /// record is made after the last: this future, alive for the whole call, holds neither.
    pub(super) async fn call_model(
        &mut self,
        tools: &ResolvedTools,
        iteration: u32,
        last_call: bool,
    ) -> Result<Box<ModelResponse>, Exit> {
        let model = Arc::clone(&self.model);
        let streaming = self.agent.inner.settings.streams(model.supports_streaming());
        let (pending, appended, requested, mut span) = self.start_call(&*model, tools, last_call, streaming);
        let started = Instant::now();
        let mut first_event: Option<Duration> = None;
        let mut stop = self.hard_stop();
        let result = tokio::select! {
            biased;
            why = stop.wait() => Err(Failure::Interrupted(why)),
            r = self.await_model(pending, iteration, started, &mut first_event) => r,
        };
        self.put_back(stop);
        // The call is over (finished, failed or cancelled) and its request dropped with it:
        // take this call's reminders back out of the history, in place unless the provider
        // kept the request.
        appended.undo(&mut self.working);
        let mut record = ModelCallRecord::new(iteration, model.provider(), requested);
        record.streamed = streaming;
        record.latency_ms = millis(started.elapsed());
        record.time_to_first_event_ms = first_event.map(millis);
        if let Some(ttfe) = first_event {
            span.set_time_to_first_event(ttfe);
        }
        match result {
            Ok(response) => {
                self.stream = None;
                record.served_model = if response.model.is_empty() {
                    record.requested_model.clone()
                } else {
                    response.model.clone()
                };
                record.response_id.clone_from(&response.id);
                record.stop_reason.clone_from(&response.stop_reason);
                record.stop_kind = response.stop_kind();
                record.usage = response.usage.clone();
                span.set_response(&response);
                span.end();
                self.usage += &response.usage;
                self.last_stop = Some((self.model_calls.len(), response.stop_details.clone()));
                self.model_calls.push(record);
                Ok(response)
            }
            Err(failure) => Err(self.call_failed(failure, record, span)),
        }
    }

    /// Starts a call: builds its request, names the model asked for (so tracers and records
    /// see it from the start), opens the chat span, and hands the request to `model`.
    fn start_call<'m>(
        &mut self,
        model: &'m dyn Llm,
        tools: &ResolvedTools,
        last_call: bool,
        streaming: bool,
    ) -> (PendingCall<'m>, Appended, String, Box<dyn ChatSpan>) {
        let (mut request, appended) = self.build_request(tools, last_call);
        let requested = request.model.get_or_insert_with(|| model.model().to_owned()).clone();
        let chat = ChatStart::new(model.provider(), &request)
            .with_endpoint(model.endpoint())
            .with_streaming(streaming);
        let span = self.agent.inner.tracer.start_chat(&self.info, &chat);
        let pending = if streaming {
            PendingCall::Stream(model.stream(request))
        } else {
            PendingCall::Generate(model.generate(request))
        };
        (pending, appended, requested, span)
    }

    /// A failed call: what can be kept of its stream is recorded, and so is the call.
    #[cold]
    #[inline(never)]
    fn call_failed(
        &mut self,
        failure: Failure,
        mut record: ModelCallRecord,
        mut span: Box<dyn ChatSpan>,
    ) -> Exit {
        let stream_started = self.keep_partial();
        let exit = match failure {
            Failure::Interrupted(why) => {
                record.error = Some(why.failure().to_string());
                Exit::interrupted(why)
            }
            Failure::Llm(error) => {
                record.error = Some(error.to_string());
                let reason = match error.kind {
                    LlmErrorKind::Cancelled => OutcomeReason::Canceled,
                    LlmErrorKind::StreamInterrupted => OutcomeReason::StreamInterrupted,
                    _ if stream_started => OutcomeReason::StreamInterrupted,
                    _ => OutcomeReason::ProviderError,
                };
                Exit::Failed { reason, cause: TurnFailure::Model(error), hook: None }
            }
        };
        span.set_error(record.error.as_deref().unwrap_or_default());
        span.end();
        self.model_calls.push(record);
        exit
    }

    /// Awaits the provider: its response, or its stream read to the end (each event sent on
    /// to observers and the event callback as it arrives).
    async fn await_model(
        &mut self,
        pending: PendingCall<'_>,
        iteration: u32,
        started: Instant,
        first_event: &mut Option<Duration>,
    ) -> Result<Box<ModelResponse>, Failure> {
        let opening = match pending {
            PendingCall::Generate(call) => {
                let response = Box::new(call.await?);
                self.observe_thinking(iteration, &response);
                return Ok(response);
            }
            PendingCall::Stream(opening) => opening,
        };
        let wants_events = self.emitter.wants_events();
        // Only with an observer: thinking blocks reported as each one completes.
        let mut thinking = (!self.agent.inner.hooks.observers.is_empty()).then(ThinkingWatch::default);
        // Held by the run, not this future: a hard interrupt drops the future mid-stream and
        // `keep_partial` still reads what the stream produced.
        let events = self.stream.insert(Box::new(opening.await?));
        while let Some(event) = events.next().await {
            // The stream checks itself: an inconsistent event or an end without the final
            // event arrives here as an error.
            let event = event?;
            if first_event.is_none() {
                *first_event = Some(started.elapsed());
            }
            if let Some(block) = thinking.as_mut().and_then(|w| w.see(&event)) {
                observe_thinking_block(&self.agent.inner.hooks.observers, &self.info, iteration, &block);
            }
            if wants_events {
                self.emitter.emit(ResponseItem::ModelEvent { event });
            }
        }
        let events = self.stream.take().ok_or_else(|| {
            LlmError::new(LlmErrorKind::StreamInterrupted, "the model stream was lost while it was read")
        })?;
        Ok(Box::new(events.into_response()))
    }

    /// Records what can be kept of an interrupted stream (its finished blocks, and
    /// its partial text when the agent keeps partial text); returns whether the stream had started.
    fn keep_partial(&mut self) -> bool {
        let Some(events) = self.stream.take() else { return false };
        let started = events.has_started();
        let partial = events.into_partial_response(!self.agent.inner.drop_partial_text);
        self.usage += &partial.usage;
        if !partial.content.is_empty() {
            self.push_output(partial.into_message());
        }
        started
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
