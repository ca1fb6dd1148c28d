//! [`MemoryTool`]: a memory directory the agent edits itself, in the shape of Anthropic's
//! `memory` tool (`view`, `create`, `str_replace`, `insert`, `delete`, `rename` over
//! `/memories`), as a normal tool with a JSON schema, so any provider's model can use it.

use std::fmt::Write as _;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use dive_core::{BoxFuture, Tool, ToolContext, ToolError, ToolResult};
use serde::Deserialize;
use serde_json::{Value, json};

/// The virtual directory the model sees.
pub const MEMORY_ROOT: &str = "/memories";

const DESCRIPTION: &str = "Your memory directory, /memories, kept across conversations. At the start of a \
task, view /memories to see what you recorded earlier. Record progress, decisions and facts worth keeping as \
you work, in files under /memories (create, str_replace, insert, delete, rename). Keep files small and \
organised; update stale notes rather than adding duplicates.";

/// The tool's input, one variant per command.
#[derive(Debug, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
enum Command {
    View { path: String, view_range: Option<[i64; 2]> },
    Create { path: String, file_text: String },
    StrReplace { path: String, old_str: String, new_str: String },
    Insert { path: String, insert_line: usize, insert_text: String },
    Delete { path: String },
    Rename { old_path: String, new_path: String },
}

/// A memory directory on the real file system, seen by the model as `/memories`. Every
/// path must lie under `/memories`; `..`, other roots and symbolic links leading out are
/// refused with an error the model reads.
///
/// ```
/// use dive_agent::Agent;
/// use dive_core::ModelResponse;
/// use dive_memory::MemoryTool;
/// use dive_test::ScriptedModel;
/// let dir = tempfile::tempdir().unwrap();
/// let agent = Agent::builder()
///     .model(ScriptedModel::new([ModelResponse::text("ok")]))
///     .tool(MemoryTool::new(dir.path()).unwrap())
///     .build()
///     .unwrap();
/// # let _ = agent;
/// ```
#[derive(Debug, Clone)]
pub struct MemoryTool {
    root: Arc<PathBuf>,
    schema: Arc<Value>,
}

/// A path the tool refuses or a command that cannot be done; the text reaches the model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryToolError {
    /// The path is not under `/memories`, or climbs out of it.
    #[error("the path {0} is outside /memories: every memory path starts with /memories/ and has no `..`")]
    OutsideRoot(String),
    /// No such file or directory.
    #[error("the path {0} does not exist")]
    NotFound(String),
    /// Something is already there.
    #[error("the path {0} already exists")]
    Exists(String),
    /// `str_replace` found the text zero or several times.
    #[error("{0}")]
    Replace(String),
    /// A line number beyond the file.
    #[error("{0}")]
    Line(String),
    /// The file system failed.
    #[error("{path}: {source}")]
    Io {
        /// The virtual path.
        path: String,
        /// The cause.
        #[source]
        source: io::Error,
    },
}

impl MemoryTool {
    /// A memory directory at `root` (created if missing).
    ///
    /// # Errors
    /// The I/O error when `root` cannot be created or resolved.
    pub fn new(root: impl AsRef<Path>) -> io::Result<Self> {
        std::fs::create_dir_all(root.as_ref())?;
        let root = root.as_ref().canonicalize()?;
        Ok(Self { root: Arc::new(root), schema: Arc::new(schema()) })
    }

    /// The directory on disk.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Runs one command (the tool's input) and returns the text the model reads.
    ///
    /// # Errors
    /// [`MemoryToolError`] for refused paths and impossible commands.
    pub fn run(&self, input: &Value) -> Result<String, MemoryToolError> {
        let command: Command = serde_json::from_value(input.clone())
            .map_err(|e| MemoryToolError::Replace(format!("invalid input: {e}")))?;
        match command {
            Command::View { path, view_range } => self.view(&path, view_range),
            Command::Create { path, file_text } => {
                let real = self.resolve(&path)?;
                if real.exists() {
                    return Err(MemoryToolError::Exists(path));
                }
                if let Some(parent) = real.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| io_err(&path, e))?;
                }
                std::fs::write(&real, file_text).map_err(|e| io_err(&path, e))?;
                Ok(format!("File created successfully at {path}"))
            }
            Command::StrReplace { path, old_str, new_str } => {
                let (real, text) = self.read_file(&path)?;
                match text.matches(&old_str).count() {
                    1 => {}
                    0 => {
                        return Err(MemoryToolError::Replace(format!(
                            "the text to replace was not found in {path}"
                        )));
                    }
                    n => {
                        return Err(MemoryToolError::Replace(format!(
                            "the text to replace appears {n} times in {path}; include more context so it is unique"
                        )));
                    }
                }
                std::fs::write(&real, text.replacen(&old_str, &new_str, 1)).map_err(|e| io_err(&path, e))?;
                Ok(format!("The memory file {path} has been edited"))
            }
            Command::Insert { path, insert_line, insert_text } => {
                let (real, text) = self.read_file(&path)?;
                let mut lines: Vec<&str> = text.lines().collect();
                if insert_line > lines.len() {
                    return Err(MemoryToolError::Line(format!(
                        "insert_line {insert_line} is past the end of {path} ({} lines)",
                        lines.len()
                    )));
                }
                let insert = insert_text.strip_suffix('\n').unwrap_or(&insert_text);
                lines.insert(insert_line, insert);
                let mut out = lines.join("\n");
                out.push('\n');
                std::fs::write(&real, out).map_err(|e| io_err(&path, e))?;
                Ok(format!("Text inserted at line {insert_line} of {path}"))
            }
            Command::Delete { path } => {
                let real = self.resolve(&path)?;
                if real == *self.root {
                    return Err(MemoryToolError::OutsideRoot(path));
                }
                let meta =
                    std::fs::symlink_metadata(&real).map_err(|_| MemoryToolError::NotFound(path.clone()))?;
                if meta.is_dir() {
                    std::fs::remove_dir_all(&real).map_err(|e| io_err(&path, e))?;
                } else {
                    std::fs::remove_file(&real).map_err(|e| io_err(&path, e))?;
                }
                Ok(format!("Deleted {path}"))
            }
            Command::Rename { old_path, new_path } => {
                let from = self.resolve(&old_path)?;
                let to = self.resolve(&new_path)?;
                if from == *self.root {
                    return Err(MemoryToolError::OutsideRoot(old_path));
                }
                if !from.exists() {
                    return Err(MemoryToolError::NotFound(old_path));
                }
                if to.exists() {
                    return Err(MemoryToolError::Exists(new_path));
                }
                if let Some(parent) = to.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| io_err(&new_path, e))?;
                }
                std::fs::rename(&from, &to).map_err(|e| io_err(&old_path, e))?;
                Ok(format!("Renamed {old_path} to {new_path}"))
            }
        }
    }

    /// The real path of a virtual one, refusing anything that leaves the root (lexically, or
    /// through a symbolic link in an existing ancestor).
    fn resolve(&self, path: &str) -> Result<PathBuf, MemoryToolError> {
        let outside = || MemoryToolError::OutsideRoot(path.to_owned());
        let rest = path.strip_prefix(MEMORY_ROOT).ok_or_else(outside)?;
        if !(rest.is_empty() || rest.starts_with('/')) || rest.contains('\\') || rest.contains('\0') {
            return Err(outside());
        }
        let mut real = PathBuf::from(&*self.root);
        for component in Path::new(rest.trim_start_matches('/')).components() {
            match component {
                Component::Normal(part) => real.push(part),
                Component::CurDir => {}
                _ => return Err(outside()),
            }
        }
        // The deepest existing ancestor must resolve inside the root (no symlink escapes).
        let mut probe = real.as_path();
        loop {
            if let Ok(canonical) = probe.canonicalize() {
                if !canonical.starts_with(&*self.root) {
                    return Err(outside());
                }
                break;
            }
            match probe.parent() {
                Some(parent) => probe = parent,
                None => return Err(outside()),
            }
        }
        Ok(real)
    }

    fn read_file(&self, path: &str) -> Result<(PathBuf, String), MemoryToolError> {
        let real = self.resolve(path)?;
        if !real.is_file() {
            return Err(MemoryToolError::NotFound(path.to_owned()));
        }
        let text = std::fs::read_to_string(&real).map_err(|e| io_err(path, e))?;
        Ok((real, text))
    }

    fn view(&self, path: &str, range: Option<[i64; 2]>) -> Result<String, MemoryToolError> {
        let real = self.resolve(path)?;
        if real.is_dir() {
            let mut entries = Vec::new();
            list(&real, &self.root, 0, &mut entries).map_err(|e| io_err(path, e))?;
            entries.sort();
            let mut out = format!("Here are the files and directories in {path}:\n");
            for (virtual_path, size) in entries {
                let _ = writeln!(out, "{size}\t{virtual_path}");
            }
            return Ok(out);
        }
        let (_, text) = self.read_file(path)?;
        let lines: Vec<&str> = text.lines().collect();
        let (from, to) = match range {
            None => (1, lines.len()),
            Some([from, to]) => {
                let from = usize::try_from(from.max(1)).unwrap_or(1);
                let to = if to < 0 { lines.len() } else { usize::try_from(to).unwrap_or(0).min(lines.len()) };
                if from > lines.len().max(1) || to < from {
                    return Err(MemoryToolError::Line(format!(
                        "view_range [{from}, {to}] is outside {path} ({} lines)",
                        lines.len()
                    )));
                }
                (from, to)
            }
        };
        let mut out = format!("Here's the content of {path} with line numbers:\n");
        for (i, line) in lines.iter().enumerate().take(to).skip(from - 1) {
            let _ = writeln!(out, "{:>6}\t{line}", i + 1);
        }
        Ok(out)
    }
}

/// Files and directories up to two levels below `dir`, with sizes, as virtual paths.
fn list(dir: &Path, root: &Path, depth: usize, out: &mut Vec<(String, String)>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        let meta = entry.metadata()?;
        if meta.is_dir() {
            out.push((format!("{MEMORY_ROOT}/{rel}/"), "-".into()));
            if depth < 1 {
                list(&path, root, depth + 1, out)?;
            }
        } else {
            out.push((format!("{MEMORY_ROOT}/{rel}"), format!("{}B", meta.len())));
        }
    }
    Ok(())
}

fn io_err(path: &str, source: io::Error) -> MemoryToolError {
    if source.kind() == io::ErrorKind::NotFound {
        return MemoryToolError::NotFound(path.to_owned());
    }
    MemoryToolError::Io { path: path.to_owned(), source }
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert", "delete", "rename"],
                        "description": "What to do."},
            "path": {"type": "string", "description": "A path under /memories (view, create, str_replace, insert, delete)."},
            "view_range": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                           "description": "view: first and last line (1-based; -1 for the end)."},
            "file_text": {"type": "string", "description": "create: the file's content."},
            "old_str": {"type": "string", "description": "str_replace: the exact text to replace (must appear once)."},
            "new_str": {"type": "string", "description": "str_replace: the replacement."},
            "insert_line": {"type": "integer", "minimum": 0, "description": "insert: the line after which to insert (0 for the top)."},
            "insert_text": {"type": "string", "description": "insert: the text to insert."},
            "old_path": {"type": "string", "description": "rename: the current path."},
            "new_path": {"type": "string", "description": "rename: the new path."}
        },
        "required": ["command"]
    })
}

impl Tool for MemoryTool {
    fn name(&self) -> &str {
        "memory"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn call(&self, input: Value, _ctx: ToolContext) -> BoxFuture<'_, Result<ToolResult, ToolError>> {
        let tool = self.clone();
        Box::pin(async move {
            let result =
                tokio::task::spawn_blocking(move || tool.run(&input)).await.map_err(ToolError::from_error)?;
            Ok(match result {
                Ok(text) => ToolResult::text(text),
                Err(e) => ToolResult::error(format!("Error: {e}")),
            })
        })
    }
}
