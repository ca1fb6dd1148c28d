//! [`ListDirectoryTool`] (`ListDirectory`): the entries of one directory.

use dive_core::{ToolAnnotations, ToolContext, ToolError, ToolPreview, ToolResult, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::util::{blocking, into_result};
use crate::workspace::{Access, Workspace};

/// Entries listed when no limit is given.
pub const DEFAULT_LIST_LIMIT: usize = 100;

/// Input of [`ListDirectoryTool`].
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ListDirectoryInput {
    /// The directory (default: the workspace root).
    #[serde(default)]
    pub path: Option<String>,
    /// Most entries to list (default 100).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Lists a directory: directories first with a trailing `/`, then files with their size.
#[derive(Debug, Clone)]
pub struct ListDirectoryTool {
    workspace: Workspace,
}

impl ListDirectoryTool {
    /// A `ListDirectory` tool confined to `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

fn list(ws: &Workspace, input: &ListDirectoryInput) -> Result<ToolResult, String> {
    let path = ws.resolve(input.path.as_deref().unwrap_or("."), Access::Read).map_err(|e| e.to_string())?;
    let shown = ws.display(&path);
    let limit = input.limit.unwrap_or(DEFAULT_LIST_LIMIT).max(1);
    let mut entries: Vec<(bool, String, u64)> = std::fs::read_dir(&path)
        .map_err(|e| format!("{shown}: {e}"))?
        .filter_map(Result::ok)
        .map(|e| {
            let meta = e.metadata().ok();
            let dir = meta.as_ref().is_some_and(std::fs::Metadata::is_dir);
            (!dir, e.file_name().to_string_lossy().into_owned(), meta.map_or(0, |m| m.len()))
        })
        .collect();
    entries.sort();
    let total = entries.len();
    let mut out = format!("{shown}/\n");
    for (is_file, name, size) in entries.iter().take(limit) {
        if *is_file {
            out.push_str(&format!("  {name} ({size} bytes)\n"));
        } else {
            out.push_str(&format!("  {name}/\n"));
        }
    }
    if total > limit {
        out.push_str(&format!("[{} more entries not shown; raise limit or use Glob]\n", total - limit));
    }
    Ok(ToolResult::text(out))
}

impl TypedTool for ListDirectoryTool {
    type Input = ListDirectoryInput;

    fn name(&self) -> &str {
        "ListDirectory"
    }

    fn description(&self) -> &str {
        "Lists the entries of a directory in the workspace (directories first), up to 100 by default."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only().with_title("List directory").with_idempotent(true).with_open_world(false)
    }

    fn preview(&self, input: &ListDirectoryInput) -> Option<ToolPreview> {
        Some(ToolPreview::new(format!("List {}", input.path.as_deref().unwrap_or("."))))
    }

    async fn call(&self, input: ListDirectoryInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let ws = self.workspace.clone();
        blocking(move || into_result(list(&ws, &input))).await
    }
}
