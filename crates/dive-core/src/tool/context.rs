//! [`ToolContext`]: what a running tool knows about its call, and how it reports progress.

use std::sync::{Arc, OnceLock};

use super::result::ToolProgress;
use crate::cancel::SoftCancel;
use crate::run::RunInfo;

/// Receives a running tool's streamed output and progress (the engine turns them into
/// `tool_stream` and `tool_progress` response items).
pub trait ToolEventSink: Send + Sync {
    /// Text output as it is produced.
    fn stream_output(&self, call_id: &str, text: &str);
    /// A progress snapshot.
    fn report_progress(&self, call_id: &str, progress: ToolProgress);
}

/// Context for one tool call. Cheap to clone.
///
/// [`effect_id`](Self::effect_id) is the call's stable idempotency key for tools with external
/// effects: the engine sets it from the session, the turn and the call id, so a run resumed
/// by another process hands the same call the same id.
#[derive(Clone)]
#[non_exhaustive]
pub struct ToolContext {
    /// The call id (the model's `tool_use` id).
    pub call_id: Arc<str>,
    /// The tool name.
    pub tool_name: Arc<str>,
    /// The run this call belongs to.
    pub run: RunInfo,
    /// Set when the caller asked the turn to stop at the next step boundary.
    pub cancel: SoftCancel,
    sink: Option<Arc<dyn ToolEventSink>>,
    effect_id: EffectId,
}

/// Where a context's effect id comes from.
#[derive(Clone)]
enum EffectId {
    /// None set: the call id (a call made outside the engine).
    CallId,
    /// The stable id of the run and the call, worked out the first time a tool asks.
    Stable(OnceLock<Box<str>>),
    /// Set by the caller.
    Given(Arc<str>),
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("tool_name", &self.tool_name)
            .field("run", &self.run)
            .field("effect_id", &self.effect_id())
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// A context for a call.
    #[must_use]
    pub fn new(call_id: impl Into<Arc<str>>, tool_name: impl Into<Arc<str>>, run: RunInfo) -> Self {
        let mut ctx = Self::in_run(call_id, tool_name, run, SoftCancel::new());
        ctx.effect_id = EffectId::CallId;
        ctx
    }

    /// A context for a call of `run` whose soft-cancel flag is `cancel` (the engine passes a
    /// child of the turn's flag) and whose effect id is the run's stable one
    /// ([`stable_effect_id`](Self::stable_effect_id)), worked out only when a tool asks for it.
    ///
    /// ```
    /// use dive_core::{RunInfo, SoftCancel, ToolContext};
    /// let run = RunInfo::new("agent").with_session("chat").with_turn("turn-1");
    /// let turn = SoftCancel::new();
    /// let ctx = ToolContext::in_run("call-1", "charge", run, turn.child());
    /// assert_eq!(ctx.effect_id(), "chat/turn-1/call-1");
    /// turn.cancel();
    /// assert!(ctx.is_soft_cancelled());
    /// ```
    #[must_use]
    pub fn in_run(
        call_id: impl Into<Arc<str>>,
        tool_name: impl Into<Arc<str>>,
        run: RunInfo,
        cancel: SoftCancel,
    ) -> Self {
        Self {
            call_id: call_id.into(),
            tool_name: tool_name.into(),
            run,
            cancel,
            sink: None,
            effect_id: EffectId::Stable(OnceLock::new()),
        }
    }

    /// The stable effect id of a call: `session/turn/call`, leaving out what `run` lacks.
    ///
    /// ```
    /// use dive_core::{RunInfo, ToolContext};
    /// let mut run = RunInfo::new("agent");
    /// run.session_id = Some("chat".into());
    /// run.turn_id = Some("turn-1".into());
    /// assert_eq!(ToolContext::stable_effect_id(&run, "call-1"), "chat/turn-1/call-1");
    /// ```
    #[must_use]
    pub fn stable_effect_id(run: &RunInfo, call_id: &str) -> String {
        let parts = [run.session_id.as_deref(), run.turn_id.as_deref(), Some(call_id)];
        let mut id = String::with_capacity(parts.iter().flatten().map(|p| p.len() + 1).sum());
        for (i, part) in parts.into_iter().flatten().enumerate() {
            if i > 0 {
                id.push('/');
            }
            id.push_str(part);
        }
        id
    }

    /// Sets the effect id (the engine does, from [`stable_effect_id`](Self::stable_effect_id)).
    #[must_use]
    pub fn with_effect_id(mut self, effect_id: impl Into<Arc<str>>) -> Self {
        self.effect_id = EffectId::Given(effect_id.into());
        self
    }

    /// The call's stable effect id, to record an intent under and to pass downstream as an
    /// idempotency key. Without one set (a call made outside the engine), the call id.
    #[must_use]
    pub fn effect_id(&self) -> &str {
        match &self.effect_id {
            EffectId::CallId => &self.call_id,
            EffectId::Stable(id) => {
                id.get_or_init(|| Self::stable_effect_id(&self.run, &self.call_id).into())
            }
            EffectId::Given(id) => id,
        }
    }

    /// A context for calling a tool outside an agent (tests, scripts).
    #[must_use]
    pub fn detached(tool_name: &str) -> Self {
        Self::new(crate::id::new_id("call"), tool_name, RunInfo::detached())
    }

    /// Sets the soft-cancel flag.
    #[must_use]
    pub fn with_cancel(mut self, cancel: SoftCancel) -> Self {
        self.cancel = cancel;
        self
    }

    /// Sets the event sink.
    #[must_use]
    pub fn with_sink(mut self, sink: Arc<dyn ToolEventSink>) -> Self {
        self.sink = Some(sink);
        self
    }

    /// The turn id, when the call runs in a turn.
    #[must_use]
    pub fn turn_id(&self) -> Option<&str> {
        self.run.turn_id.as_deref()
    }

    /// Whether the turn was asked to stop.
    #[must_use]
    pub fn is_soft_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Streams text output (a `tool_stream` item).
    pub fn stream_output(&self, text: &str) {
        if let Some(sink) = &self.sink {
            sink.stream_output(&self.call_id, text);
        }
    }

    /// Reports progress (a `tool_progress` item).
    pub fn report_progress(&self, progress: ToolProgress) {
        if let Some(sink) = &self.sink {
            sink.report_progress(&self.call_id, progress);
        }
    }
}
