//! [`WriteTool`] (`Write`): creates or replaces a file atomically.

use dive_core::{ToolAnnotations, ToolContext, ToolError, ToolPreview, ToolResult, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::util::{blocking, into_result};
use crate::workspace::{Access, Workspace};

/// Input of [`WriteTool`] (Claude Code's `Write`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct WriteInput {
    /// The path of the file to write (absolute, or relative to the workspace).
    pub file_path: String,
    /// The full new content of the file.
    pub content: String,
}

/// Writes a whole file (temp file + rename, so readers never see half a file).
#[derive(Debug, Clone)]
pub struct WriteTool {
    workspace: Workspace,
}

impl WriteTool {
    /// A `Write` tool confined to `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

/// Lines of the new content a preview shows.
pub const MAX_PREVIEW_LINES: usize = 40;

/// The first [`MAX_PREVIEW_LINES`] lines of the content to be written, then how many more.
fn content_preview(content: &str) -> String {
    let total = content.lines().count();
    let mut out: String = content.lines().take(MAX_PREVIEW_LINES).map(|l| format!("{l}\n")).collect();
    if total > MAX_PREVIEW_LINES {
        out.push_str(&format!("… {} more lines\n", total - MAX_PREVIEW_LINES));
    }
    if content.is_empty() {
        out.push_str("(empty file)\n");
    }
    out
}

impl TypedTool for WriteTool {
    type Input = WriteInput;

    fn name(&self) -> &str {
        "Write"
    }

    fn description(&self) -> &str {
        "Writes a file in the workspace, replacing it if it exists and creating missing directories. \
         Prefer Edit for changing part of an existing file."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::edit()
            .with_title("Write file")
            .with_destructive(true)
            .with_idempotent(true)
            .with_open_world(false)
    }

    fn preview(&self, input: &WriteInput) -> Option<ToolPreview> {
        let summary = format!("Write {} ({} bytes)", input.file_path, input.content.len());
        Some(ToolPreview::new(summary).with_details(content_preview(&input.content)))
    }

    async fn call(&self, input: WriteInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let ws = self.workspace.clone();
        blocking(move || {
            into_result((|| {
                let path = ws.resolve(&input.file_path, Access::Write).map_err(|e| e.to_string())?;
                if path.is_dir() {
                    return Err(format!("{} is a directory", ws.display(&path)));
                }
                let existed = path.exists();
                ws.write_atomic(&path, input.content.as_bytes()).map_err(|e| e.to_string())?;
                let verb = if existed { "Updated" } else { "Created" };
                Ok(ToolResult::text(format!(
                    "{verb} {} ({} lines)",
                    ws.display(&path),
                    input.content.lines().count()
                )))
            })())
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preview_shows_the_content_to_be_written() {
        let dir = tempfile::tempdir().unwrap();
        let tool = WriteTool::new(Workspace::new(dir.path()).unwrap());
        let content: String = (1..=45).map(|i| format!("row {i}\n")).collect();
        let preview = tool.preview(&WriteInput { file_path: "a.txt".into(), content }).unwrap();
        let details = preview.details.unwrap();
        assert!(details.starts_with("row 1\nrow 2\n"), "{details}");
        assert!(details.contains("row 40\n") && !details.contains("row 41\n"), "{details}");
        assert!(details.ends_with("… 5 more lines\n"), "{details}");
        assert_eq!(preview.summary, "Write a.txt (306 bytes)");
    }
}
