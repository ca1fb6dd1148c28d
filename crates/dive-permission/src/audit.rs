//! Auditing: every permission decision (and, with [`AuditHook`], every tool call) recorded
//! to an [`AuditSink`].

use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use dive_core::{BoxFuture, HookError, PreToolUseDecision, PreToolUseHook, ToolUseContext};

/// The outcome an audit entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuditOutcome {
    /// The call was allowed.
    Allowed,
    /// The call was refused.
    Denied,
    /// The call was seen (by [`AuditHook`], which decides nothing).
    Observed,
}

/// One audited call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AuditEntry {
    /// When.
    pub at: SystemTime,
    /// The tool.
    pub tool: String,
    /// The call id.
    pub call_id: String,
    /// The input.
    pub input: serde_json::Value,
    /// The outcome.
    pub outcome: AuditOutcome,
    /// What decided (rule, grant, mode or dialog).
    pub source: String,
}

impl AuditEntry {
    /// An entry stamped now.
    #[must_use]
    pub fn new(
        tool: impl Into<String>,
        call_id: impl Into<String>,
        input: serde_json::Value,
        outcome: AuditOutcome,
        source: impl Into<String>,
    ) -> Self {
        Self {
            at: SystemTime::now(),
            tool: tool.into(),
            call_id: call_id.into(),
            input,
            outcome,
            source: source.into(),
        }
    }
}

/// Receives audit entries.
pub trait AuditSink: Send + Sync {
    /// Records an entry.
    fn record(&self, entry: AuditEntry);
}

/// Keeps entries in memory.
#[derive(Debug, Default)]
pub struct MemoryAudit {
    entries: Mutex<Vec<AuditEntry>>,
}

impl MemoryAudit {
    /// An empty log.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The entries so far.
    #[must_use]
    pub fn entries(&self) -> Vec<AuditEntry> {
        self.entries.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

impl AuditSink for MemoryAudit {
    fn record(&self, entry: AuditEntry) {
        if let Ok(mut e) = self.entries.lock() {
            e.push(entry);
        }
    }
}

/// A PreToolUse hook that records every call it sees and always allows (put it after the
/// permission hook, or use [`PermissionHook::with_audit`](crate::PermissionHook::with_audit)
/// to record decisions).
#[derive(Clone)]
pub struct AuditHook {
    sink: Arc<dyn AuditSink>,
}

impl std::fmt::Debug for AuditHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AuditHook")
    }
}

impl AuditHook {
    /// A hook recording to `sink`.
    #[must_use]
    pub fn new(sink: Arc<dyn AuditSink>) -> Self {
        Self { sink }
    }
}

impl PreToolUseHook for AuditHook {
    fn name(&self) -> &str {
        "audit"
    }

    fn pre_tool_use(&self, ctx: ToolUseContext) -> BoxFuture<'_, Result<PreToolUseDecision, HookError>> {
        self.sink.record(AuditEntry::new(
            ctx.call.name.clone(),
            ctx.call.id.clone(),
            (*ctx.call.input).clone(),
            AuditOutcome::Observed,
            "audit hook",
        ));
        dive_core::future::ready(Ok(PreToolUseDecision::allow()))
    }
}
