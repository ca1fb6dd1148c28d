//! [`Discovery`]: agent files in the project (only when the workspace is trusted), then in
//! the user's home; the built-ins (when asked for) win over both, and project definitions
//! over user ones.

use std::fs;
use std::path::{Path, PathBuf};

use crate::catalog::Catalog;
use crate::definition::{Definition, Source};
use crate::diagnostic::{Diagnostic, Problem, Severity};

/// The agent directories searched in each scope, in order (earlier wins on a name clash).
pub const SEARCH_DIRS: [&str; 2] = [".dive/agents", ".claude/agents"];

/// Where to look for agent files.
///
/// ```
/// use dive_subagent::Discovery;
/// # let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir_all(dir.path().join(".claude/agents")).unwrap();
/// std::fs::write(
///     dir.path().join(".claude/agents/reviewer.md"),
///     "---\ndescription: Reviews diffs.\ntools: Read, Grep\n---\nReview the diff.\n",
/// ).unwrap();
/// let catalog = Discovery::new().project(dir.path(), true).discover();
/// assert_eq!(catalog.get("reviewer").map(|d| d.prompt.as_str()), Some("Review the diff.\n"));
/// assert!(Discovery::new().project(dir.path(), false).discover().get("reviewer").is_none());
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct Discovery {
    project: Option<PathBuf>,
    trusted: bool,
    home: Option<PathBuf>,
    builtins: bool,
}

/// The largest agent file read.
const MAX_FILE_BYTES: u64 = 1 << 20;

impl Discovery {
    /// Nothing to search, no built-ins.
    pub fn new() -> Self {
        Self::default()
    }

    /// The user's home directory from the environment (`HOME`, or `USERPROFILE` on Windows).
    pub fn from_env() -> Self {
        Self { home: dive_skill::home_from_env(), ..Self::new() }
    }

    /// The project root; its agent files load only when `trusted`.
    pub fn project(mut self, root: impl Into<PathBuf>, trusted: bool) -> Self {
        self.project = Some(root.into());
        self.trusted = trusted;
        self
    }

    /// The user's home directory.
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    /// Starts the catalog with `general-purpose`, `Explore` and `Plan` (which files then
    /// cannot replace).
    pub fn with_builtins(mut self) -> Self {
        self.builtins = true;
        self
    }

    /// The directories searched, in order, with their source.
    #[must_use]
    pub fn search_dirs(&self) -> Vec<(Source, PathBuf)> {
        let scopes = [(Source::Project, self.project.as_ref()), (Source::User, self.home.as_ref())];
        scopes
            .into_iter()
            .filter_map(|(source, root)| Some((source, root?)))
            .flat_map(|(source, root)| SEARCH_DIRS.iter().map(move |dir| (source, root.join(dir))))
            .collect()
    }

    /// Reads every `*.md` file of every directory; blocking file-system work (run it with
    /// `spawn_blocking` from async code).
    #[must_use]
    pub fn discover(&self) -> Catalog {
        let mut catalog = if self.builtins { Catalog::with_builtins() } else { Catalog::new() };
        let mut untrusted_reported = false;
        for (source, dir) in self.search_dirs() {
            if !dir.is_dir() {
                continue;
            }
            if source == Source::Project && !self.trusted {
                if !untrusted_reported {
                    catalog.push_diagnostic(Diagnostic::new(
                        Severity::Warning,
                        &dir,
                        None,
                        Problem::Untrusted,
                    ));
                    untrusted_reported = true;
                }
                continue;
            }
            load_dir(&mut catalog, &dir, source);
        }
        catalog
    }
}

fn load_dir(catalog: &mut Catalog, dir: &Path, source: Source) {
    let mut files: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(Result::ok).map(|e| e.path()).collect(),
        Err(e) => {
            let problem = Problem::Io(e.to_string());
            return catalog.push_diagnostic(Diagnostic::new(Severity::Warning, dir, None, problem));
        }
    };
    files.sort();
    for file in files {
        let markdown = file.extension().is_some_and(|e| e.eq_ignore_ascii_case("md"));
        if !markdown || !file.is_file() {
            continue;
        }
        let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
        let text = match read_limited(&file) {
            Ok(text) => text,
            Err(problem) => {
                catalog.push_diagnostic(Diagnostic::new(Severity::Error, &file, None, problem));
                continue;
            }
        };
        let (def, diagnostics) = Definition::parse(&text, &file, &stem);
        for d in diagnostics {
            catalog.push_diagnostic(d);
        }
        if let Some(mut def) = def {
            def.source = source;
            catalog.insert(def);
        }
    }
}

fn read_limited(file: &Path) -> Result<String, Problem> {
    let size = fs::metadata(file).map_err(|e| Problem::Io(e.to_string()))?.len();
    if size > MAX_FILE_BYTES {
        return Err(Problem::TooLarge { size, max: MAX_FILE_BYTES });
    }
    fs::read_to_string(file).map_err(|e| Problem::Io(e.to_string()))
}
