//! [`PermissionMode`]: how calls that no rule decides are handled.

use serde::{Deserialize, Serialize};

/// How calls that no rule decides are handled (Claude Code's modes and spellings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum PermissionMode {
    /// Rules first; read-only tools run; everything else asks the dialog.
    #[default]
    Default,
    /// Planning: only read-only tools run; everything else is denied, whatever the allow rules.
    Plan,
    /// Like default, and edit tools (edit hint, or Edit/Write/…) run without asking.
    AcceptEdits,
    /// Everything runs except what a deny rule names (deny is absolute).
    BypassPermissions,
    /// Nothing asks: what is not allowed by a rule or grant is denied.
    DontAsk,
}

impl PermissionMode {
    /// The settings-file spelling (`acceptEdits`, …).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Plan => "plan",
            Self::AcceptEdits => "acceptEdits",
            Self::BypassPermissions => "bypassPermissions",
            Self::DontAsk => "dontAsk",
        }
    }
}

impl std::fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
