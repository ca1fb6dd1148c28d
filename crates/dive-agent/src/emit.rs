//! The [`Emitter`]: where every [`ResponseItem`] of a run goes (the response, the event
//! callback and the item stream), and the tool event sink built on it.

use std::sync::{Arc, Mutex, PoisonError};

use dive_core::{BoxError, ResponseItem, ToolEventSink, ToolProgress};
use tokio::sync::mpsc::UnboundedSender;

use crate::options::EventCallback;

#[derive(Default)]
struct Inner {
    items: Mutex<Vec<ResponseItem>>,
    callback: Option<EventCallback>,
    stream: Option<UnboundedSender<ResponseItem>>,
    callback_error: Mutex<Option<BoxError>>,
}

/// Fans items out to the response, the callback and the stream. Cheap to clone.
#[derive(Clone, Default)]
pub(crate) struct Emitter(Arc<Inner>);

impl Emitter {
    pub(crate) fn new(
        callback: Option<EventCallback>,
        stream: Option<UnboundedSender<ResponseItem>>,
    ) -> Self {
        Self(Arc::new(Inner { callback, stream, ..Inner::default() }))
    }

    /// Whether anyone outside the response wants raw model events.
    pub(crate) fn wants_events(&self) -> bool {
        self.0.callback.is_some() || self.0.stream.is_some()
    }

    /// Emits one item. Raw model events, tool output deltas, progress and the terminal
    /// `turn_ended` item go to the callback and the stream only, not into `Response::items`.
    pub(crate) fn emit(&self, item: ResponseItem) {
        if let Some(callback) = &self.0.callback
            && let Err(e) = callback(&item)
        {
            let mut slot = self.0.callback_error.lock().unwrap_or_else(PoisonError::into_inner);
            if slot.is_none() {
                *slot = Some(e);
            }
        }
        let kept = !matches!(
            item,
            ResponseItem::ModelEvent { .. }
                | ResponseItem::ToolStream { .. }
                | ResponseItem::ToolProgress { .. }
                | ResponseItem::TurnEnded { .. }
        );
        match (&self.0.stream, kept) {
            (Some(tx), true) => {
                self.0.items.lock().unwrap_or_else(PoisonError::into_inner).push(item.clone());
                let _ = tx.send(item);
            }
            (Some(tx), false) => {
                let _ = tx.send(item);
            }
            (None, true) => self.0.items.lock().unwrap_or_else(PoisonError::into_inner).push(item),
            (None, false) => {}
        }
    }

    /// Emits the terminal item; a callback error on it is only logged.
    pub(crate) fn emit_terminal(&self, item: ResponseItem) {
        if let Some(callback) = &self.0.callback
            && let Err(e) = callback(&item)
        {
            tracing::warn!(error = %e, "event callback failed on the turn_ended item");
        }
        if let Some(tx) = &self.0.stream {
            let _ = tx.send(item);
        }
    }

    /// The first callback error seen, if any.
    pub(crate) fn take_callback_error(&self) -> Option<BoxError> {
        // Only a callback fails: a run without one skips the lock at every step boundary.
        self.0.callback.as_ref()?;
        self.0.callback_error.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// The items kept for the response so far.
    pub(crate) fn take_items(&self) -> Vec<ResponseItem> {
        std::mem::take(&mut *self.0.items.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl ToolEventSink for Emitter {
    fn stream_output(&self, call_id: &str, text: &str) {
        self.emit(ResponseItem::ToolStream { tool_call_id: call_id.to_owned(), text: text.to_owned() });
    }

    fn report_progress(&self, call_id: &str, progress: ToolProgress) {
        self.emit(ResponseItem::ToolProgress { tool_call_id: call_id.to_owned(), progress });
    }
}
