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
        Some(ToolPreview::new(format!("Write {} ({} bytes)", input.file_path, input.content.len())))
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
