//! [`ToolContext`]: what a running tool knows about its call, and how it reports progress.

use std::sync::Arc;

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
/// `turn_id` + `call_id` form an idempotency key for tools with external effects.
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
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("tool_name", &self.tool_name)
            .field("run", &self.run)
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// A context for a call.
    #[must_use]
    pub fn new(call_id: impl Into<Arc<str>>, tool_name: impl Into<Arc<str>>, run: RunInfo) -> Self {
        Self {
            call_id: call_id.into(),
            tool_name: tool_name.into(),
            run,
            cancel: SoftCancel::new(),
            sink: None,
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
