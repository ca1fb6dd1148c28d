//! [`PermissionDialog`]: asks a person about a call. Terminal, auto-approve, deny-all and
//! closure dialogs.

use std::io::{BufRead as _, Write as _};

use dive_core::{BoxFuture, ToolPreview};
use serde_json::Value;

use crate::rule::Rule;

/// What the dialog is asked.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PermissionRequest {
    /// The tool.
    pub tool: String,
    /// The input.
    pub input: Value,
    /// The tool's preview of the call, if it gives one.
    pub preview: Option<ToolPreview>,
    /// Why the call needs asking (the rule or mode).
    pub reason: String,
    /// What "allow for this session" would grant.
    pub grant: Option<Rule>,
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DialogAnswer {
    /// Run this call.
    AllowOnce,
    /// Run this call and grant its exact specifier for the rest of the session.
    AllowForSession,
    /// Refuse, optionally saying why (the model reads it).
    Deny(Option<String>),
}

/// Asks a person whether a call may run.
pub trait PermissionDialog: Send + Sync {
    /// Asks.
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, DialogAnswer>;
}

/// Approves everything (tests, trusted automation).
#[derive(Debug, Clone, Copy, Default)]
pub struct AutoApprove;

impl PermissionDialog for AutoApprove {
    fn ask<'a>(&'a self, _request: &'a PermissionRequest) -> BoxFuture<'a, DialogAnswer> {
        dive_core::future::ready(DialogAnswer::AllowOnce)
    }
}

/// Denies everything that needs asking (headless runs).
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

impl PermissionDialog for DenyAll {
    fn ask<'a>(&'a self, _request: &'a PermissionRequest) -> BoxFuture<'a, DialogAnswer> {
        dive_core::future::ready(DialogAnswer::Deny(Some("no one is available to approve this call".into())))
    }
}

/// A dialog from a closure.
pub struct FnDialog<F>(pub F);

impl<F> std::fmt::Debug for FnDialog<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FnDialog")
    }
}

impl<F> PermissionDialog for FnDialog<F>
where
    F: Fn(&PermissionRequest) -> DialogAnswer + Send + Sync,
{
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, DialogAnswer> {
        dive_core::future::ready((self.0)(request))
    }
}

/// Asks on the terminal: prints the request to stderr and reads `y` (once), `a` (for the
/// session) or anything else (deny) from stdin, on a blocking thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct TerminalDialog;

/// Renders a request as the terminal dialog shows it.
#[must_use]
pub fn render_request(request: &PermissionRequest) -> String {
    let mut text = format!("\nPermission needed: {} ({})\n", request.tool, request.reason);
    match &request.preview {
        Some(p) => {
            text.push_str(&format!("  {}\n", p.summary));
            if let Some(d) = &p.details {
                text.push_str(&format!("{d}\n"));
            }
        }
        None => text.push_str(&format!("  input: {}\n", request.input)),
    }
    let session =
        request.grant.as_ref().map_or_else(String::new, |g| format!(", [a]lways allow {g} this session"));
    text.push_str(&format!("Allow? [y]es{session}, [N]o: "));
    text
}

/// Reads an answer line.
#[must_use]
pub fn parse_answer(line: &str) -> DialogAnswer {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => DialogAnswer::AllowOnce,
        "a" | "always" => DialogAnswer::AllowForSession,
        _ => DialogAnswer::Deny(Some("the user refused this call".into())),
    }
}

impl PermissionDialog for TerminalDialog {
    fn ask<'a>(&'a self, request: &'a PermissionRequest) -> BoxFuture<'a, DialogAnswer> {
        let prompt = render_request(request);
        Box::pin(async move {
            let answer = tokio::task::spawn_blocking(move || {
                let mut err = std::io::stderr().lock();
                let _ = err.write_all(prompt.as_bytes());
                let _ = err.flush();
                let mut line = String::new();
                match std::io::stdin().lock().read_line(&mut line) {
                    Ok(0) | Err(_) => DialogAnswer::Deny(Some("no answer on the terminal".into())),
                    Ok(_) => parse_answer(&line),
                }
            })
            .await;
            answer.unwrap_or(DialogAnswer::Deny(Some("the terminal dialog failed".into())))
        })
    }
}
