//! [`PermissionHook`]: the permission manager and a dialog as a PreToolUse hook.

use std::sync::Arc;

use dive_core::{
    BoxFuture, HookError, PreToolUseDecision, PreToolUseHook, ToolAnnotations, ToolPreview, ToolUseContext,
};
use serde_json::Value;

use crate::audit::{AuditEntry, AuditOutcome, AuditSink};
use crate::dialog::{DenyAll, DialogAnswer, PermissionDialog, PermissionRequest};
use crate::manager::{Decision, PermissionManager, ToolCall};

/// The final answer for one call, after the dialog if one was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Run it.
    Allowed {
        /// What allowed it.
        source: String,
    },
    /// Refuse it.
    Denied {
        /// Why, for the model.
        reason: String,
        /// What refused it.
        source: String,
    },
}

/// Decides every tool call before it runs: rules and mode first, the dialog when they say
/// "ask"; dialog approvals "for the session" become session grants. Without a dialog,
/// calls that need asking are denied (fail closed).
///
/// Add it to an agent with `Hooks::new().on_pre_tool_use(hook)`.
#[derive(Clone)]
pub struct PermissionHook {
    manager: Arc<PermissionManager>,
    dialog: Arc<dyn PermissionDialog>,
    audit: Option<Arc<dyn AuditSink>>,
}

impl std::fmt::Debug for PermissionHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PermissionHook").field("manager", &self.manager).finish_non_exhaustive()
    }
}

impl PermissionHook {
    /// A hook over `manager` that denies whatever needs asking.
    #[must_use]
    pub fn new(manager: Arc<PermissionManager>) -> Self {
        Self { manager, dialog: Arc::new(DenyAll), audit: None }
    }

    /// Sets the dialog.
    #[must_use]
    pub fn with_dialog(mut self, dialog: Arc<dyn PermissionDialog>) -> Self {
        self.dialog = dialog;
        self
    }

    /// Records every decision to `sink`.
    #[must_use]
    pub fn with_audit(mut self, sink: Arc<dyn AuditSink>) -> Self {
        self.audit = Some(sink);
        self
    }

    /// The manager.
    #[must_use]
    pub fn manager(&self) -> &Arc<PermissionManager> {
        &self.manager
    }

    /// Decides one call (what the hook does, callable directly).
    pub async fn decide(
        &self,
        call_id: &str,
        tool: &str,
        input: &Value,
        annotations: &ToolAnnotations,
        preview: Option<ToolPreview>,
    ) -> Outcome {
        let eval = self.manager.evaluate(ToolCall::new(tool, input, annotations));
        let source = eval.source.to_string();
        let outcome = match eval.decision {
            Decision::Allow => Outcome::Allowed { source },
            Decision::Deny => Outcome::Denied {
                reason: format!("Permission to use {tool} was denied by {source}."),
                source,
            },
            Decision::Ask => {
                let request = PermissionRequest {
                    tool: tool.to_string(),
                    input: input.clone(),
                    preview,
                    reason: source.clone(),
                    grant: eval.grant.clone(),
                };
                match self.dialog.ask(&request).await {
                    DialogAnswer::AllowOnce => Outcome::Allowed { source: "dialog".into() },
                    DialogAnswer::AllowForSession => {
                        if let Some(rule) = eval.grant {
                            self.manager.grant_for_session(rule);
                        }
                        Outcome::Allowed { source: "dialog (session grant)".into() }
                    }
                    DialogAnswer::Deny(reason) => Outcome::Denied {
                        reason: reason.map_or_else(
                            || format!("The user denied permission to use {tool}."),
                            |r| format!("Permission to use {tool} was denied: {r}."),
                        ),
                        source: "dialog".into(),
                    },
                }
            }
        };
        if let Some(audit) = &self.audit {
            let (kind, source) = match &outcome {
                Outcome::Allowed { source } => (AuditOutcome::Allowed, source.clone()),
                Outcome::Denied { source, .. } => (AuditOutcome::Denied, source.clone()),
            };
            audit.record(AuditEntry::new(tool, call_id, input.clone(), kind, source));
        }
        outcome
    }
}

impl PreToolUseHook for PermissionHook {
    fn name(&self) -> &str {
        "permission"
    }

    fn pre_tool_use(&self, ctx: ToolUseContext) -> BoxFuture<'_, Result<PreToolUseDecision, HookError>> {
        Box::pin(async move {
            let outcome = self
                .decide(&ctx.call.id, &ctx.call.name, &ctx.call.input, &ctx.annotations, ctx.preview.clone())
                .await;
            Ok(match outcome {
                Outcome::Allowed { .. } => PreToolUseDecision::allow(),
                Outcome::Denied { reason, .. } => PreToolUseDecision::deny(reason),
            })
        })
    }
}
