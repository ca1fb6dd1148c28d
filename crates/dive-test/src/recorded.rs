//! [`RecordedRequests`]: what a test model was sent, with assertion helpers.

use std::sync::{Arc, Mutex, PoisonError};

use dive_core::{ModelRequest, Role};

/// The requests a test model received, shared with the model (clone it freely).
///
/// Assertions panic with a message naming what differed; they return `&Self` to chain.
#[derive(Debug, Clone, Default)]
pub struct RecordedRequests(Arc<Mutex<Vec<ModelRequest>>>);

impl RecordedRequests {
    /// Keeps a snapshot of the request's history, not the caller's shared one: a kept
    /// reference would make the engine copy its history on its next change (copy-on-write),
    /// and pin the live history for as long as the recording lives.
    pub(crate) fn push(&self, mut request: ModelRequest) {
        request.messages = Arc::new(Vec::clone(&request.messages));
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push(request);
    }

    /// A copy of every request, in order.
    #[must_use]
    pub fn all(&self) -> Vec<ModelRequest> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Number of requests.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether no request arrived.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The last request.
    #[must_use]
    pub fn last(&self) -> Option<ModelRequest> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).last().cloned()
    }

    /// Asserts the number of requests.
    ///
    /// # Panics
    /// When the count differs.
    #[track_caller]
    pub fn assert_count(&self, expected: usize) -> &Self {
        let n = self.len();
        assert!(n == expected, "expected {expected} model requests, got {n}");
        self
    }

    /// Asserts the last request's last user message has this text.
    ///
    /// # Panics
    /// When there is no request, no user message, or the text differs.
    #[track_caller]
    pub fn assert_last_user_text(&self, expected: &str) -> &Self {
        let last = self.last();
        let Some(request) = last else { panic!("no model request was recorded") };
        let user = request.messages.iter().rev().find(|m| m.role == Role::User);
        let Some(user) = user else { panic!("the last request has no user message") };
        assert_eq!(user.text(), expected, "last user message text");
        self
    }

    /// Asserts the last request offered exactly these tool names (in order).
    ///
    /// # Panics
    /// When the names differ.
    #[track_caller]
    pub fn assert_tools(&self, expected: &[&str]) -> &Self {
        let request = self.last().unwrap_or_default();
        let names: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, expected, "tools offered in the last request");
        self
    }

    /// Asserts the last request's system prompt.
    ///
    /// # Panics
    /// When it differs.
    #[track_caller]
    pub fn assert_system(&self, expected: &str) -> &Self {
        let request = self.last().unwrap_or_default();
        assert_eq!(request.system.as_deref(), Some(expected), "system prompt of the last request");
        self
    }

    /// Asserts every tool call in every request's history has a result in the next message
    /// (what providers require).
    ///
    /// # Panics
    /// When a call is unanswered.
    #[track_caller]
    pub fn assert_tool_calls_answered(&self) -> &Self {
        for (i, request) in self.all().iter().enumerate() {
            for (j, m) in request.messages.iter().enumerate() {
                for call in m.tool_uses() {
                    let answered = request
                        .messages
                        .get(j + 1)
                        .is_some_and(|n| n.tool_results_iter().any(|r| r.tool_use_id == call.id));
                    assert!(answered, "request {i}: tool call {} ({}) has no result", call.id, call.name);
                }
            }
        }
        self
    }
}
