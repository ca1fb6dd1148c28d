//! [`GlobTool`] (`Glob`): files matching a glob pattern, newest first, gitignore-aware, on
//! ripgrep's own walker (`ignore`) and matcher (`globset`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use dive_core::{ToolAnnotations, ToolContext, ToolError, ToolPreview, ToolResult, TypedTool};
use globset::{GlobBuilder, GlobMatcher};
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::util::{blocking, into_result};
use crate::workspace::{Access, Workspace};

/// Files returned when no limit is set.
pub const DEFAULT_GLOB_LIMIT: usize = 500;

/// Directories and files Glob skips even when no `.gitignore` says so.
pub const DEFAULT_EXCLUDES: &[&str] =
    &["node_modules", ".git", "vendor", "__pycache__", ".venv", "dist", "build", "*.min.*"];

/// Input of [`GlobTool`] (Claude Code's `Glob`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GlobInput {
    /// The glob, e.g. `**/*.rs` or `src/**/*.{ts,tsx}`, matched against paths relative to `path`.
    pub pattern: String,
    /// The directory to search (default: the workspace root).
    #[serde(default)]
    pub path: Option<String>,
}

/// The files a glob found.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GlobMatches {
    /// Matching files, newest first (absolute paths).
    pub files: Vec<PathBuf>,
    /// How many files matched in all.
    pub total: usize,
    /// More files matched than were kept.
    pub incomplete: bool,
}

/// Finds files by glob pattern.
#[derive(Debug, Clone)]
pub struct GlobTool {
    workspace: Workspace,
    limit: usize,
    excludes: Vec<String>,
}

impl GlobTool {
    /// A `Glob` tool confined to `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self {
            workspace,
            limit: DEFAULT_GLOB_LIMIT,
            excludes: DEFAULT_EXCLUDES.iter().map(|s| (*s).to_string()).collect(),
        }
    }

    /// Sets the most files returned.
    #[must_use]
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit.max(1);
        self
    }

    /// Replaces the default excludes (names or globs matched on each path component).
    #[must_use]
    pub fn with_excludes(mut self, excludes: Vec<String>) -> Self {
        self.excludes = excludes;
        self
    }

    /// Runs a glob under `dir` (blocking), keeping the newest `limit` files.
    ///
    /// # Errors
    /// A message for the model: bad pattern or path.
    pub fn find(&self, pattern: &str, dir: &Path) -> Result<GlobMatches, String> {
        let matcher = GlobBuilder::new(pattern.trim_start_matches("./"))
            .literal_separator(true)
            .build()
            .map_err(|e| format!("invalid glob pattern {pattern:?}: {e}"))?
            .compile_matcher();
        let excludes = exclude_matcher(&self.excludes)?;
        find(dir, &matcher, excludes, self.limit)
    }
}

fn exclude_matcher(excludes: &[String]) -> Result<globset::GlobSet, String> {
    let mut set = globset::GlobSetBuilder::new();
    for ex in excludes {
        set.add(globset::Glob::new(ex).map_err(|e| format!("invalid exclude {ex:?}: {e}"))?);
    }
    set.build().map_err(|e| e.to_string())
}

/// A min-heap on modification time (the oldest kept file on top, to be evicted first).
type NewestHeap = BinaryHeap<Reverse<(SystemTime, PathBuf)>>;

fn find(
    dir: &Path,
    matcher: &GlobMatcher,
    excludes: globset::GlobSet,
    limit: usize,
) -> Result<GlobMatches, String> {
    // A bounded min-heap on mtime: memory stays O(limit) however many files match.
    let kept: Mutex<(NewestHeap, usize)> = Mutex::new((BinaryHeap::new(), 0));
    let excludes = std::sync::Arc::new(excludes);
    let filter_excludes = excludes.clone();
    WalkBuilder::new(dir)
        .threads(std::thread::available_parallelism().map_or(2, usize::from))
        .filter_entry(move |e| !filter_excludes.is_match(e.file_name()))
        .build_parallel()
        .run(|| {
            let kept = &kept;
            Box::new(move |entry| {
                let Ok(entry) = entry else { return WalkState::Continue };
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    return WalkState::Continue;
                }
                let rel = entry.path().strip_prefix(dir).unwrap_or(entry.path());
                if !matcher.is_match(rel) {
                    return WalkState::Continue;
                }
                let mtime =
                    entry.metadata().ok().and_then(|m| m.modified().ok()).unwrap_or(SystemTime::UNIX_EPOCH);
                if let Ok(mut guard) = kept.lock() {
                    let (heap, total) = &mut *guard;
                    *total += 1;
                    heap.push(Reverse((mtime, entry.into_path())));
                    if heap.len() > limit {
                        heap.pop();
                    }
                }
                WalkState::Continue
            })
        });
    let (heap, total) = kept.into_inner().map_err(|_| "glob worker panicked".to_string())?;
    let mut files: Vec<(SystemTime, PathBuf)> = heap.into_iter().map(|Reverse(x)| x).collect();
    files.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(GlobMatches {
        incomplete: total > files.len(),
        total,
        files: files.into_iter().map(|(_, p)| p).collect(),
    })
}

impl TypedTool for GlobTool {
    type Input = GlobInput;

    fn name(&self) -> &str {
        "Glob"
    }

    fn description(&self) -> &str {
        "Finds files by glob pattern (e.g. `**/*.rs`), newest first. Respects .gitignore and skips \
         node_modules, .git, vendor, build output and similar. Returns at most 500 paths and says when \
         more matched."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only().with_title("Find files").with_idempotent(true).with_open_world(false)
    }

    fn preview(&self, input: &GlobInput) -> Option<ToolPreview> {
        Some(ToolPreview::new(format!("Glob {} in {}", input.pattern, input.path.as_deref().unwrap_or("."))))
    }

    async fn call(&self, input: GlobInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let tool = self.clone();
        blocking(move || {
            into_result((|| {
                let ws = &tool.workspace;
                let dir = ws
                    .resolve(input.path.as_deref().unwrap_or("."), Access::Read)
                    .map_err(|e| e.to_string())?;
                if !dir.is_dir() {
                    return Err(format!("{} is not a directory", ws.display(&dir)));
                }
                let found = tool.find(&input.pattern, &dir)?;
                if found.files.is_empty() {
                    return Ok(ToolResult::text("No files found"));
                }
                let mut out: String = found.files.iter().map(|p| format!("{}\n", ws.display(p))).collect();
                if found.incomplete {
                    out.push_str(&format!(
                        "[incomplete: {} files matched, showing the {} newest; narrow the pattern or path]\n",
                        found.total,
                        found.files.len()
                    ));
                }
                Ok(ToolResult::text(out))
            })())
        })
        .await
    }
}
