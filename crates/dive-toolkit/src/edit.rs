//! [`EditTool`] (`Edit`): exact string replacement, unique unless `replace_all`, with a short
//! diff in the result.

use dive_core::{ToolAnnotations, ToolContext, ToolError, ToolPreview, ToolResult, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::diff::short_diff;
use crate::util::{blocking, into_result};
use crate::workspace::{Access, Workspace};

/// Largest file Edit changes.
pub const MAX_EDIT_BYTES: u64 = 10 * 1024 * 1024;
/// Largest file whose diff a preview shows with the file's own line numbers (previews run on
/// the caller's thread, so they read small files only).
pub const MAX_PREVIEW_BYTES: u64 = 1024 * 1024;

/// Input of [`EditTool`] (Claude Code's `Edit`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct EditInput {
    /// The path of the file to change.
    pub file_path: String,
    /// The exact text to replace (must occur once unless `replace_all`).
    pub old_string: String,
    /// The replacement (must differ from `old_string`).
    pub new_string: String,
    /// Replace every occurrence.
    #[serde(default)]
    pub replace_all: bool,
}

/// Replaces exact text in a file.
#[derive(Debug, Clone)]
pub struct EditTool {
    workspace: Workspace,
}

impl EditTool {
    /// An `Edit` tool confined to `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

/// Applies an exact replacement to `text`; the error is for the model.
pub(crate) fn replace(text: &str, old: &str, new: &str, all: bool) -> Result<(String, usize), String> {
    if old.is_empty() {
        return Err("old_string is empty; give the exact text to replace (use Write to create a file)".into());
    }
    if old == new {
        return Err("old_string and new_string are the same; nothing to change".into());
    }
    let count = text.matches(old).count();
    match (count, all) {
        (0, _) => Err("old_string was not found in the file; read the file and copy the text exactly, \
                       including whitespace"
            .into()),
        (1, _) | (_, true) => Ok((text.replace(old, new), count)),
        (n, false) => Err(format!(
            "old_string occurs {n} times; include more surrounding text to make it unique, or set replace_all"
        )),
    }
}

fn edit(ws: &Workspace, input: &EditInput) -> Result<ToolResult, String> {
    let path = ws.resolve(&input.file_path, Access::Write).map_err(|e| e.to_string())?;
    let shown = ws.display(&path);
    let mut file = ws.open_read(&path).map_err(|e| {
        if e.is_not_found() {
            format!("{shown} does not exist; use Write to create it")
        } else {
            e.to_string()
        }
    })?;
    let len = file.metadata().map_err(|e| format!("{shown}: {e}"))?.len();
    if len > MAX_EDIT_BYTES {
        return Err(format!("{shown} is {len} bytes; Edit handles files up to {MAX_EDIT_BYTES} bytes"));
    }
    let mut before = String::new();
    std::io::Read::read_to_string(&mut file, &mut before).map_err(|e| format!("{shown}: {e}"))?;
    let (after, count) = replace(&before, &input.old_string, &input.new_string, input.replace_all)?;
    ws.write_atomic(&path, after.as_bytes()).map_err(|e| e.to_string())?;
    let diff = short_diff(&shown, &before, &after);
    let noun = if count == 1 { "occurrence" } else { "occurrences" };
    Ok(ToolResult::text(format!("Edited {shown}: replaced {count} {noun}\n{diff}")))
}

/// The edit's diff against the file itself, so its hunk headers carry the file's line
/// numbers; `None` when the file is missing, too large for a preview, or the edit would fail
/// (the snippet diff is shown instead).
fn file_diff(ws: &Workspace, input: &EditInput) -> Option<String> {
    let path = ws.resolve(&input.file_path, Access::Write).ok()?;
    let mut file = ws.open_read(&path).ok()?;
    if file.metadata().ok()?.len() > MAX_PREVIEW_BYTES {
        return None;
    }
    let mut before = String::new();
    std::io::Read::read_to_string(&mut file, &mut before).ok()?;
    let (after, _) = replace(&before, &input.old_string, &input.new_string, input.replace_all).ok()?;
    Some(short_diff(&ws.display(&path), &before, &after))
}

impl TypedTool for EditTool {
    type Input = EditInput;

    fn name(&self) -> &str {
        "Edit"
    }

    fn description(&self) -> &str {
        "Replaces exact text in a file. old_string must match the file exactly (whitespace included) and \
         occur once, unless replace_all is set. Returns a short diff."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::edit().with_title("Edit file").with_destructive(true).with_open_world(false)
    }

    fn preview(&self, input: &EditInput) -> Option<ToolPreview> {
        let diff = file_diff(&self.workspace, input)
            .unwrap_or_else(|| short_diff(&input.file_path, &input.old_string, &input.new_string));
        Some(ToolPreview::new(format!("Edit {}", input.file_path)).with_details(diff))
    }

    async fn call(&self, input: EditInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let ws = self.workspace.clone();
        blocking(move || into_result(edit(&ws, &input))).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_rules() {
        assert_eq!(replace("a b a", "b", "c", false).unwrap(), ("a c a".into(), 1));
        assert!(replace("a b a", "a", "c", false).unwrap_err().contains("2 times"));
        assert_eq!(replace("a b a", "a", "c", true).unwrap(), ("c b c".into(), 2));
        assert!(replace("a", "z", "c", false).unwrap_err().contains("not found"));
        assert!(replace("a", "", "c", false).is_err());
        assert!(replace("a", "a", "a", false).is_err());
    }

    #[test]
    fn the_preview_diff_has_the_files_line_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.path().join("f.txt"), text).unwrap();
        let tool = EditTool::new(Workspace::new(dir.path()).unwrap());
        let input = EditInput {
            file_path: "f.txt".into(),
            old_string: "line 20\n".into(),
            new_string: "line twenty\n".into(),
            replace_all: false,
        };
        let details = tool.preview(&input).unwrap().details.unwrap();
        assert!(details.contains("@@ -18,5 +18,5 @@"), "{details}");
        assert!(details.contains("-line 20\n+line twenty"), "{details}");
        let missing = EditInput { file_path: "none.txt".into(), ..input };
        let details = tool.preview(&missing).unwrap().details.unwrap();
        assert!(details.contains("+line twenty"), "a missing file falls back to the snippet: {details}");
    }
}
