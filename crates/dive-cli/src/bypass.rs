//! The warning banner of bypass mode: every call runs without asking, and Bash is not
//! confined to the workspace.

use dive::permission::PermissionMode;

/// The banner text.
pub const WARNING: &str = "WARNING: bypass-permissions mode: every tool call runs without asking \
(deny rules still apply). Bash commands are not confined to the workspace: they can read, change \
and delete anything your user can, and reach the network. Use it only in a sandbox or a throwaway \
container.";

/// Prints the banner on stderr when `mode` is bypass.
pub fn warn(mode: PermissionMode) {
    if mode == PermissionMode::BypassPermissions {
        crate::guard::say_err(WARNING);
    }
}
