//! [`ReadTool`] (`Read`): a file with line numbers, paging, size caps; images as image
//! blocks and PDFs as document blocks.

use std::io::Read as _;
use std::path::Path;

use base64::Engine as _;
use dive_core::{
    Content, MediaSource, ToolAnnotations, ToolContext, ToolError, ToolOutput, ToolPreview, ToolResult,
    TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::util::{blocking, into_result};
use crate::workspace::{Access, Workspace};

/// Lines returned when no limit is given.
pub const DEFAULT_LINE_LIMIT: usize = 2000;
/// Longest line kept, in characters; longer lines are cut.
pub const MAX_LINE_CHARS: usize = 2000;
/// Largest text file read whole when no offset/limit is given.
pub const DEFAULT_MAX_TEXT_BYTES: u64 = 256 * 1024;
/// Largest image or PDF returned.
pub const DEFAULT_MAX_MEDIA_BYTES: u64 = 5 * 1024 * 1024;

/// Input of [`ReadTool`] (Claude Code's `Read`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ReadInput {
    /// The path of the file to read (absolute, or relative to the workspace).
    pub file_path: String,
    /// The 1-based line to start from. Only give it for files too large to read at once.
    #[serde(default)]
    pub offset: Option<usize>,
    /// How many lines to read. Only give it for files too large to read at once.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Reads a file from the workspace.
#[derive(Debug, Clone)]
pub struct ReadTool {
    workspace: Workspace,
    max_text_bytes: u64,
    max_media_bytes: u64,
}

impl ReadTool {
    /// A `Read` tool confined to `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace, max_text_bytes: DEFAULT_MAX_TEXT_BYTES, max_media_bytes: DEFAULT_MAX_MEDIA_BYTES }
    }

    /// Sets the largest text file read without paging.
    #[must_use]
    pub fn with_max_text_bytes(mut self, bytes: u64) -> Self {
        self.max_text_bytes = bytes;
        self
    }
}

/// The media type of images and PDFs the tool returns as blocks.
fn media_type(path: &Path) -> Option<&'static str> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        _ => return None,
    })
}

/// Numbers lines `cat -n` style, starting at `offset` (1-based), at most `limit` lines.
/// Returns the text and the number of lines in the file.
pub(crate) fn number_lines(text: &str, offset: usize, limit: usize) -> (String, usize) {
    let mut out = String::new();
    let mut total = 0;
    for (index, line) in text.lines().enumerate() {
        total = index + 1;
        if total < offset || total >= offset.saturating_add(limit) {
            continue;
        }
        let mut line = line.to_string();
        if crate::util::truncate_chars(&mut line, MAX_LINE_CHARS) {
            line.push_str("… [line truncated]");
        }
        out.push_str(&format!("{total:>6}\t{line}\n"));
    }
    (out, total)
}

fn read(tool: &ReadTool, input: &ReadInput) -> Result<ToolResult, String> {
    let ws = &tool.workspace;
    let path = ws.resolve(&input.file_path, Access::Read).map_err(|e| e.to_string())?;
    let shown = ws.display(&path);
    let mut file = ws.open_read(&path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| format!("{shown}: {e}"))?;
    if meta.is_dir() {
        return Err(format!("{shown} is a directory; use ListDirectory or Glob to list it"));
    }
    if let Some(mime) = media_type(&path) {
        if meta.len() > tool.max_media_bytes {
            return Err(format!(
                "{shown} is {} bytes; the limit for images and PDFs is {}",
                meta.len(),
                tool.max_media_bytes
            ));
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| format!("{shown}: {e}"))?;
        let source = MediaSource::base64(mime, base64::engine::general_purpose::STANDARD.encode(&bytes));
        let block =
            if mime == "application/pdf" { Content::document(source) } else { Content::image(source) };
        return Ok(ToolOutput::new(vec![block]).with_display(format!("Read {shown} ({mime})")).into());
    }
    let paging = input.offset.is_some() || input.limit.is_some();
    if !paging && meta.len() > tool.max_text_bytes {
        return Err(format!(
            "{shown} is {} bytes, more than the {} bytes read at once; read it in parts with offset and limit",
            meta.len(),
            tool.max_text_bytes
        ));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(|e| format!("{shown}: {e}"))?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err(format!("{shown} looks binary; it cannot be shown as text"));
    }
    let text = String::from_utf8_lossy(&bytes);
    if text.is_empty() {
        return Ok(ToolResult::text(format!(
            "<system-reminder>{shown} exists but is empty</system-reminder>"
        )));
    }
    let offset = input.offset.unwrap_or(1).max(1);
    let limit = input.limit.unwrap_or(DEFAULT_LINE_LIMIT).max(1);
    let (mut out, total) = number_lines(&text, offset, limit);
    if offset > total {
        return Err(format!("{shown} has {total} lines; offset {offset} is past the end"));
    }
    let last = (offset + limit - 1).min(total);
    if offset > 1 || last < total {
        out.push_str(&format!("\n[lines {offset}-{last} of {total}; use offset and limit to read more]\n"));
    }
    Ok(ToolResult::text(out))
}

impl TypedTool for ReadTool {
    type Input = ReadInput;

    fn name(&self) -> &str {
        "Read"
    }

    fn description(&self) -> &str {
        "Reads a file from the workspace. Text comes back with line numbers (cat -n style); by default \
         up to 2000 lines from the start, use offset and limit for long files. Images (png, jpg, gif, \
         webp) come back as images and PDFs as documents."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only().with_title("Read file").with_idempotent(true).with_open_world(false)
    }

    fn preview(&self, input: &ReadInput) -> Option<ToolPreview> {
        Some(ToolPreview::new(format!("Read {}", input.file_path)))
    }

    async fn call(&self, input: ReadInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let tool = self.clone();
        blocking(move || into_result(read(&tool, &input))).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_pages_lines() {
        let (out, total) = number_lines("a\nb\nc\n", 2, 1);
        assert_eq!(out, "     2\tb\n");
        assert_eq!(total, 3);
    }
}
