//! [`GrepTool`] (`Grep`): regex search over files on ripgrep's own crates (`ignore` for the
//! gitignore-aware parallel walk, `grep-regex` + `grep-searcher` for matching). No `rg` binary.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use dive_core::{ToolAnnotations, ToolContext, ToolError, ToolPreview, ToolResult, TypedTool};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use ignore::{WalkBuilder, WalkState};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::util::{blocking, into_result, truncate_chars};
use crate::workspace::{Access, Workspace};

/// Result entries (lines, files or counts) returned when no `head_limit` is given.
pub const DEFAULT_HEAD_LIMIT: usize = 1000;
/// Output lines collected before the search stops and says it is incomplete.
pub const MAX_COLLECTED_LINES: usize = 20_000;
/// Longest output line, in characters.
const MAX_GREP_LINE_CHARS: usize = 500;

/// What Grep returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OutputMode {
    /// Matching lines (with context).
    Content,
    /// Paths of files that match.
    #[default]
    FilesWithMatches,
    /// Match counts per file.
    Count,
}

/// Input of [`GrepTool`] (Claude Code's `Grep`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct GrepInput {
    /// The regular expression (Rust regex syntax, like ripgrep).
    pub pattern: String,
    /// File or directory to search (default: the workspace root).
    #[serde(default)]
    pub path: Option<String>,
    /// Only files matching this glob, e.g. `*.rs` or `*.{ts,tsx}`.
    #[serde(default)]
    pub glob: Option<String>,
    /// Only files of this type (ripgrep type names: `rust`, `py`, `js`, …).
    #[serde(default, rename = "type")]
    pub file_type: Option<String>,
    /// `content`, `files_with_matches` (default) or `count`.
    #[serde(default)]
    pub output_mode: OutputMode,
    /// Case-insensitive.
    #[serde(default, rename = "-i")]
    pub case_insensitive: bool,
    /// Show line numbers (content mode; default true).
    #[serde(default, rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Lines of context after each match (content mode).
    #[serde(default, rename = "-A")]
    pub after: Option<usize>,
    /// Lines of context before each match (content mode).
    #[serde(default, rename = "-B")]
    pub before: Option<usize>,
    /// Lines of context around each match (content mode).
    #[serde(default, rename = "-C")]
    pub context: Option<usize>,
    /// Let `.` match newlines and patterns span lines.
    #[serde(default)]
    pub multiline: bool,
    /// Return at most this many entries (default 1000).
    #[serde(default)]
    pub head_limit: Option<usize>,
    /// Skip this many entries first (paging).
    #[serde(default)]
    pub offset: Option<usize>,
}

/// What a search found, before paging.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GrepResults {
    /// One entry per output line / file / count, sorted by path.
    pub entries: Vec<String>,
    /// The search stopped early (too much output); entries are a subset.
    pub incomplete: bool,
}

/// Searches file contents with a regex.
#[derive(Debug, Clone)]
pub struct GrepTool {
    workspace: Workspace,
}

impl GrepTool {
    /// A `Grep` tool confined to `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

/// Runs a search (blocking). Paths in entries are shown through `show`.
///
/// # Errors
/// A message for the model (bad regex, glob or type).
pub fn grep_search(
    root: &Path,
    input: &GrepInput,
    show: &(dyn Fn(&Path) -> String + Sync),
) -> Result<GrepResults, String> {
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(input.case_insensitive)
        .multi_line(input.multiline)
        .dot_matches_new_line(input.multiline)
        .line_terminator(if input.multiline { None } else { Some(b'\n') })
        .build(&input.pattern)
        .map_err(|e| {
            let hint =
                if input.multiline { "" } else { " (set multiline: true for patterns that span lines)" };
            format!("invalid regex {:?}: {e}{hint}", input.pattern)
        })?;
    let content = input.output_mode == OutputMode::Content;
    let (before, after) = if content {
        (input.before.or(input.context).unwrap_or(0), input.after.or(input.context).unwrap_or(0))
    } else {
        (0, 0)
    };
    let mut searcher = SearcherBuilder::new();
    searcher
        .line_number(true)
        .before_context(before)
        .after_context(after)
        .multi_line(input.multiline)
        .binary_detection(BinaryDetection::quit(b'\x00'));

    let mut walk = WalkBuilder::new(root);
    walk.threads(std::thread::available_parallelism().map_or(2, usize::from));
    if let Some(glob) = &input.glob {
        let mut ov = OverrideBuilder::new(root);
        for part in split_globs(glob) {
            ov.add(&part).map_err(|e| format!("invalid glob {part:?}: {e}"))?;
        }
        walk.overrides(ov.build().map_err(|e| e.to_string())?);
    }
    if let Some(kind) = &input.file_type {
        let mut types = TypesBuilder::new();
        types.add_defaults();
        types.select(kind);
        walk.types(types.build().map_err(|e| format!("unknown file type {kind:?}: {e}"))?);
    }

    let shared = Shared {
        matcher,
        mode: input.output_mode,
        numbers: input.line_numbers.unwrap_or(true),
        show,
        results: Mutex::new(Vec::new()),
        collected: AtomicUsize::new(0),
        stopped: AtomicBool::new(false),
    };
    walk.build_parallel().run(|| {
        let shared = &shared;
        let mut searcher = searcher.build();
        Box::new(move |entry| {
            let Ok(entry) = entry else { return WalkState::Continue };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            shared.search_file(&mut searcher, entry.path())
        })
    });
    let mut files = shared.results.into_inner().map_err(|_| "grep worker panicked".to_string())?;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let entries = files.into_iter().flat_map(|(_, lines)| lines).collect();
    Ok(GrepResults { entries, incomplete: shared.stopped.into_inner() })
}

/// `*.{ts,tsx}` stays one glob; `*.rs *.toml` or `*.rs,*.toml` (outside braces) are several.
fn split_globs(glob: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in glob.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' | ' ' if depth == 0 => {
                if !cur.is_empty() {
                    parts.push(std::mem::take(&mut cur));
                }
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
}

struct Shared<'a> {
    matcher: RegexMatcher,
    mode: OutputMode,
    numbers: bool,
    show: &'a (dyn Fn(&Path) -> String + Sync),
    results: Mutex<Vec<(PathBuf, Vec<String>)>>,
    collected: AtomicUsize,
    stopped: AtomicBool,
}

impl Shared<'_> {
    fn search_file(&self, searcher: &mut Searcher, path: &Path) -> WalkState {
        if self.stopped.load(Ordering::Relaxed) {
            return WalkState::Quit;
        }
        let mut sink =
            FileSink { shared: self, shown: (self.show)(path), lines: Vec::new(), count: 0, last: None };
        if searcher.search_path(&self.matcher, path, &mut sink).is_err() {
            return WalkState::Continue;
        }
        let lines = match self.mode {
            OutputMode::Content => sink.lines,
            OutputMode::FilesWithMatches if sink.count > 0 => vec![sink.shown],
            OutputMode::Count if sink.count > 0 => vec![format!("{}:{}", sink.shown, sink.count)],
            _ => Vec::new(),
        };
        if lines.is_empty() {
            return WalkState::Continue;
        }
        let total = self.collected.fetch_add(lines.len(), Ordering::Relaxed) + lines.len();
        if let Ok(mut results) = self.results.lock() {
            results.push((path.to_path_buf(), lines));
        }
        if total >= MAX_COLLECTED_LINES {
            self.stopped.store(true, Ordering::Relaxed);
            return WalkState::Quit;
        }
        WalkState::Continue
    }
}

struct FileSink<'a, 'b> {
    shared: &'a Shared<'b>,
    shown: String,
    lines: Vec<String>,
    count: usize,
    last: Option<u64>,
}

impl FileSink<'_, '_> {
    fn push(&mut self, number: Option<u64>, bytes: &[u8], sep: char) {
        let text = String::from_utf8_lossy(bytes);
        for (i, line) in text.lines().enumerate() {
            let n = number.map(|n| n + i as u64);
            if let (Some(last), Some(n)) = (self.last, n)
                && n > last + 1
            {
                self.lines.push("--".into());
            }
            self.last = n.or(self.last);
            let mut line = line.to_string();
            if truncate_chars(&mut line, MAX_GREP_LINE_CHARS) {
                line.push('…');
            }
            self.lines.push(match (self.shared.numbers, n) {
                (true, Some(n)) => format!("{}{sep}{n}{sep}{line}", self.shown),
                _ => format!("{}{sep}{line}", self.shown),
            });
        }
    }
}

impl Sink for FileSink<'_, '_> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.count += 1;
        match self.shared.mode {
            OutputMode::FilesWithMatches => return Ok(false),
            OutputMode::Count => return Ok(true),
            OutputMode::Content => self.push(mat.line_number(), mat.bytes(), ':'),
        }
        Ok(self.lines.len() < MAX_COLLECTED_LINES)
    }

    fn context(&mut self, _searcher: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, Self::Error> {
        self.push(ctx.line_number(), ctx.bytes(), '-');
        Ok(true)
    }
}

impl TypedTool for GrepTool {
    type Input = GrepInput;

    fn name(&self) -> &str {
        "Grep"
    }

    fn description(&self) -> &str {
        "Searches file contents with a regular expression (ripgrep syntax), respecting .gitignore. \
         output_mode: files_with_matches (default), content (matching lines; -n, -A, -B, -C apply) or \
         count. Filter with glob (e.g. `*.rs`) or type (e.g. `rust`); -i for case-insensitive; \
         multiline lets patterns span lines. Page with head_limit and offset."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only().with_title("Search files").with_idempotent(true).with_open_world(false)
    }

    fn preview(&self, input: &GrepInput) -> Option<ToolPreview> {
        Some(ToolPreview::new(format!(
            "Grep {:?} in {}",
            input.pattern,
            input.path.as_deref().unwrap_or(".")
        )))
    }

    async fn call(&self, input: GrepInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let ws = self.workspace.clone();
        blocking(move || {
            into_result((|| {
                let root = ws
                    .resolve(input.path.as_deref().unwrap_or("."), Access::Read)
                    .map_err(|e| e.to_string())?;
                let found = grep_search(&root, &input, &|p: &Path| ws.display(p))?;
                Ok(ToolResult::text(page(found, input.offset.unwrap_or(0), input.head_limit)))
            })())
        })
        .await
    }
}

/// Applies offset/head_limit paging and says what was left out.
fn page(found: GrepResults, offset: usize, head_limit: Option<usize>) -> String {
    let total = found.entries.len();
    if total == 0 {
        return if found.incomplete {
            "No matches (search incomplete)".into()
        } else {
            "No matches found".into()
        };
    }
    let limit = head_limit.filter(|l| *l > 0).unwrap_or(DEFAULT_HEAD_LIMIT);
    let end = offset.saturating_add(limit).min(total);
    let mut out: String =
        found.entries.get(offset..end).unwrap_or_default().iter().map(|l| format!("{l}\n")).collect();
    if end < total {
        out.push_str(&format!("[showing {}-{end} of {total}; use offset={end} for more]\n", offset + 1));
    }
    if found.incomplete {
        out.push_str(
            "[incomplete: the search stopped early at its output cap; narrow the pattern, path or glob]\n",
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_globs_outside_braces() {
        assert_eq!(split_globs("*.{ts,tsx}"), vec!["*.{ts,tsx}"]);
        assert_eq!(split_globs("*.rs,*.toml"), vec!["*.rs", "*.toml"]);
    }

    #[test]
    fn pages_and_flags() {
        let found = GrepResults { entries: (0..5).map(|i| i.to_string()).collect(), incomplete: true };
        let out = page(found, 1, Some(2));
        assert_eq!(out.lines().take(2).collect::<Vec<_>>(), vec!["1", "2"]);
        assert!(out.contains("use offset=3") && out.contains("incomplete"));
    }
}
