//! [`TextEditorTool`]: Anthropic's `text_editor` tool shape (view, create, str_replace,
//! insert) over the same confined workspace.

use dive_core::{ToolAnnotations, ToolContext, ToolError, ToolPreview, ToolResult, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::edit::replace;
use crate::read::number_lines;
use crate::util::{blocking, into_result};
use crate::workspace::{Access, Workspace};

/// Largest file the editor handles.
pub const MAX_EDITOR_BYTES: u64 = 1024 * 1024;
/// Lines of context around a change in the returned snippet.
pub const SNIPPET_CONTEXT: usize = 5;

/// The editor command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EditorCommand {
    /// Show a file (numbered) or list a directory.
    View,
    /// Create or replace a file with `file_text`.
    Create,
    /// Replace the unique occurrence of `old_str` with `new_str`.
    StrReplace,
    /// Insert `new_str` after line `insert_line` (0 = top).
    Insert,
}

/// Input of [`TextEditorTool`] (Anthropic's `text_editor` shape).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct TextEditorInput {
    /// The command.
    pub command: EditorCommand,
    /// The file or directory.
    pub path: String,
    /// `create`: the file content.
    #[serde(default)]
    pub file_text: Option<String>,
    /// `view`: `[start, end]` lines, 1-based, `end` -1 for the end of the file.
    #[serde(default)]
    pub view_range: Option<Vec<i64>>,
    /// `str_replace`: the exact text to replace.
    #[serde(default)]
    pub old_str: Option<String>,
    /// `str_replace` / `insert`: the new text.
    #[serde(default, alias = "insert_text")]
    pub new_str: Option<String>,
    /// `insert`: the line after which to insert (0 = before the first line).
    #[serde(default)]
    pub insert_line: Option<usize>,
}

/// A text editor in Anthropic's `text_editor` shape. The name is configurable (the default
/// is Anthropic's `str_replace_based_edit_tool`).
#[derive(Debug, Clone)]
pub struct TextEditorTool {
    workspace: Workspace,
    name: String,
}

impl TextEditorTool {
    /// An editor confined to `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace, name: "str_replace_based_edit_tool".into() }
    }

    /// Renames the tool.
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

fn snippet(text: &str, changed_line: usize, changed_count: usize) -> String {
    let start = changed_line.saturating_sub(SNIPPET_CONTEXT).max(1);
    let limit = changed_count + 2 * SNIPPET_CONTEXT + 1;
    number_lines(text, start, limit).0
}

fn read_capped(ws: &Workspace, path: &std::path::Path) -> Result<String, String> {
    let mut file = ws.open_read(path).map_err(|e| e.to_string())?;
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    if len > MAX_EDITOR_BYTES {
        return Err(format!(
            "{} is {len} bytes; the editor handles up to {MAX_EDITOR_BYTES}",
            ws.display(path)
        ));
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut file, &mut text).map_err(|e| e.to_string())?;
    Ok(text)
}

fn run(ws: &Workspace, input: TextEditorInput) -> Result<ToolResult, String> {
    let access = if input.command == EditorCommand::View { Access::Read } else { Access::Write };
    let path = ws.resolve(&input.path, access).map_err(|e| e.to_string())?;
    let shown = ws.display(&path);
    match input.command {
        EditorCommand::View if path.is_dir() => {
            let mut names: Vec<String> = std::fs::read_dir(&path)
                .map_err(|e| e.to_string())?
                .filter_map(Result::ok)
                .map(|e| {
                    let dir = e.file_type().is_ok_and(|t| t.is_dir());
                    format!("{}{}", e.file_name().to_string_lossy(), if dir { "/" } else { "" })
                })
                .collect();
            names.sort();
            Ok(ToolResult::text(format!("{shown}/\n{}", names.join("\n"))))
        }
        EditorCommand::View => {
            let text = read_capped(ws, &path)?;
            let (start, end) = match input.view_range.as_deref() {
                None => (1, usize::MAX),
                Some([start, end]) if *start >= 1 && (*end == -1 || end >= start) => {
                    let start = usize::try_from(*start).unwrap_or(1);
                    (start, if *end == -1 { usize::MAX } else { usize::try_from(*end).unwrap_or(usize::MAX) })
                }
                Some(_) => {
                    return Err("view_range must be [start, end] with 1 <= start <= end, or end = -1".into());
                }
            };
            Ok(ToolResult::text(number_lines(&text, start, end.saturating_sub(start).saturating_add(1)).0))
        }
        EditorCommand::Create => {
            let text = input.file_text.ok_or("create needs file_text")?;
            ws.write_atomic(&path, text.as_bytes()).map_err(|e| e.to_string())?;
            Ok(ToolResult::text(format!("Created {shown}")))
        }
        EditorCommand::StrReplace => {
            let old = input.old_str.ok_or("str_replace needs old_str")?;
            let new = input.new_str.unwrap_or_default();
            let text = read_capped(ws, &path)?;
            let at = text.find(&old).map(|i| text[..i].lines().count().max(1));
            let (after, _) = replace(&text, &old, &new, false)?;
            ws.write_atomic(&path, after.as_bytes()).map_err(|e| e.to_string())?;
            let line = at.unwrap_or(1);
            Ok(ToolResult::text(format!(
                "Edited {shown}. Snippet:\n{}",
                snippet(&after, line, new.lines().count())
            )))
        }
        EditorCommand::Insert => {
            let line = input.insert_line.ok_or("insert needs insert_line")?;
            let new = input.new_str.ok_or("insert needs new_str")?;
            let text = read_capped(ws, &path)?;
            let lines: Vec<&str> = text.lines().collect();
            if line > lines.len() {
                return Err(format!("insert_line {line} is past the end ({} lines)", lines.len()));
            }
            let mut out: Vec<&str> = lines[..line].to_vec();
            out.extend(new.lines());
            out.extend(&lines[line..]);
            let mut after = out.join("\n");
            if text.ends_with('\n') || text.is_empty() {
                after.push('\n');
            }
            ws.write_atomic(&path, after.as_bytes()).map_err(|e| e.to_string())?;
            Ok(ToolResult::text(format!(
                "Inserted into {shown}. Snippet:\n{}",
                snippet(&after, line + 1, new.lines().count())
            )))
        }
    }
}

impl TypedTool for TextEditorTool {
    type Input = TextEditorInput;

    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        "A text editor: view a file or directory, create a file, replace a unique string, or insert \
         text after a line."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::edit().with_title("Text editor").with_destructive(true).with_open_world(false)
    }

    fn preview(&self, input: &TextEditorInput) -> Option<ToolPreview> {
        Some(ToolPreview::new(format!("{:?} {}", input.command, input.path)))
    }

    async fn call(&self, input: TextEditorInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let ws = self.workspace.clone();
        blocking(move || into_result(run(&ws, input))).await
    }
}
