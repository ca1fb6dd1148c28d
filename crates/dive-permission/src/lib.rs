//! Permissions for Dive for Rust agents: modes, `Tool(specifier)` rules in allow / ask /
//! deny lists, shell-aware Bash matching, path globs on resolved paths, domain matching on
//! the real host, session grants, dialogs, auditing and settings files — wired into the
//! engine as a PreToolUse hook ([`PermissionHook`]).
//!
//! **Invariant:** a deny rule wins in every mode, bypass included, and fails closed when the
//! call's specifier cannot be read; an allow rule never allows a shell command with command
//! substitution, with any segment it does not match, or with an output redirection into a
//! file that is not allowed as a `Write` inside the project root.
//!
//! ```
//! use std::sync::Arc;
//! use dive_permission::{AutoApprove, Outcome, PermissionConfig, PermissionHook, PermissionManager, PermissionMode, Rules};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let rules = Rules::parse(&["Bash(cargo test:*)"], &[], &["Bash(rm:*)", "Read(.env)"])?;
//! let manager = Arc::new(PermissionManager::new(PermissionConfig::new(rules).with_mode(PermissionMode::BypassPermissions)));
//! let hook = PermissionHook::new(manager).with_dialog(Arc::new(AutoApprove));
//! let none = dive_core::ToolAnnotations::default();
//! let out = hook.decide("c1", "Bash", &serde_json::json!({"command": "ls && rm -rf /"}), &none, None).await;
//! assert!(matches!(out, Outcome::Denied { .. }), "deny beats bypass");
//! # Ok(()) }
//! ```

// Library code reads no environment variables outside `from_env`-style constructors.
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]
#![deny(missing_docs)]

mod audit;
mod dialog;
mod error;
mod hook;
mod manager;
mod matcher;
mod mode;
mod redirect;
mod rule;
mod settings;
mod shell;

pub use audit::{AuditEntry, AuditHook, AuditOutcome, AuditSink, MemoryAudit};
pub use dialog::{
    AutoApprove, DenyAll, DialogAnswer, FnDialog, PermissionDialog, PermissionRequest, TerminalDialog,
    parse_answer, render_request,
};
pub use error::{RuleError, SettingsError};
pub use hook::{Outcome, PermissionHook};
pub use manager::{
    Decision, DecisionSource, EDIT_TOOLS, Evaluation, PermissionConfig, PermissionManager, READ_ONLY_TOOLS,
    ToolCall,
};
pub use matcher::SpecifierKind;
pub use mode::PermissionMode;
pub use redirect::{WriteTarget, output_redirections};
pub use rule::{Rule, Rules};
pub use settings::{PERMISSION_KEYS, PermissionSettings, Settings, SettingsFile, deep_merge};
pub use shell::{ShellCommand, effective_commands, split_command};
