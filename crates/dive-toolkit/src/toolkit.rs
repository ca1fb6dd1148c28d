//! [`Toolkit`]: the standard set of workspace tools in one call, as a list or a `Toolset`.

use std::sync::Arc;

use dive_core::{BoxFuture, IntoTool, RunInfo, Tool, ToolError, Toolset};

use crate::{
    BashTool, EditTool, GlobTool, GrepTool, ListDirectoryTool, ReadTool, TextEditorTool, Workspace, WriteTool,
};

/// The coding tools for one workspace: Read, Write, Edit, ListDirectory, Glob, Grep and
/// Bash (TextEditor on request). Network and question tools need configuration (a fetch
/// policy, a search key, a dialog), so they are added with [`with_tool`](Self::with_tool).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let toolkit = dive_toolkit::Toolkit::new(dive_toolkit::Workspace::new(dir.path())?);
/// let names: Vec<String> = toolkit.tools().iter().map(|t| t.name().to_string()).collect();
/// assert_eq!(names, ["Read", "Write", "Edit", "ListDirectory", "Glob", "Grep", "Bash"]);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Toolkit {
    tools: Vec<Arc<dyn Tool>>,
}

impl std::fmt::Debug for Toolkit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.tools.iter().map(|t| t.name()).collect();
        f.debug_struct("Toolkit").field("tools", &names).finish()
    }
}

impl Toolkit {
    /// The standard tools confined to `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        let tools = vec![
            ReadTool::new(workspace.clone()).into_tool(),
            WriteTool::new(workspace.clone()).into_tool(),
            EditTool::new(workspace.clone()).into_tool(),
            ListDirectoryTool::new(workspace.clone()).into_tool(),
            GlobTool::new(workspace.clone()).into_tool(),
            GrepTool::new(workspace.clone()).into_tool(),
            BashTool::new(workspace).into_tool(),
        ];
        Self { tools }
    }

    /// Read-only tools only (Read, ListDirectory, Glob, Grep), for reviewers and planners.
    #[must_use]
    pub fn read_only(workspace: Workspace) -> Self {
        let tools = vec![
            ReadTool::new(workspace.clone()).into_tool(),
            ListDirectoryTool::new(workspace.clone()).into_tool(),
            GlobTool::new(workspace.clone()).into_tool(),
            GrepTool::new(workspace).into_tool(),
        ];
        Self { tools }
    }

    /// Adds the Anthropic-shaped text editor over the same workspace.
    #[must_use]
    pub fn with_text_editor(self, workspace: Workspace) -> Self {
        self.with_tool(TextEditorTool::new(workspace).into_tool())
    }

    /// Adds any tool.
    #[must_use]
    pub fn with_tool(mut self, tool: Arc<dyn Tool>) -> Self {
        self.tools.push(tool);
        self
    }

    /// The tools.
    #[must_use]
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools.clone()
    }
}

impl Toolset for Toolkit {
    fn name(&self) -> &str {
        "toolkit"
    }

    fn tools<'a>(&'a self, _run: &'a RunInfo) -> BoxFuture<'a, Result<Vec<Arc<dyn Tool>>, ToolError>> {
        let tools = self.tools.clone();
        Box::pin(async move { Ok(tools) })
    }
}
