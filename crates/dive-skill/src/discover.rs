//! [`Discovery`]: finding skills on disk, in the project's directories (only when the
//! workspace is trusted) and then the user's, with a bounded scan that symlink loops cannot
//! hang.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Problem};
use crate::set::SkillSet;
use crate::skill::{Kind, Layout, Scope, Skill};

/// The skill directories searched in each scope, in order (earlier wins on a name clash), and
/// how their markdown files are read.
pub const SEARCH_DIRS: [(&str, Kind); 4] = [
    (".dive/skills", Kind::Skill),
    (".agents/skills", Kind::Skill),
    (".claude/skills", Kind::Skill),
    (".claude/commands", Kind::Command),
];

/// Directory names never entered.
const SKIPPED: [&str; 2] = [".git", "node_modules"];

/// Where to look for skills, and how far.
///
/// ```
/// use dive_skill::Discovery;
/// # let dir = tempfile::tempdir().unwrap();
/// std::fs::create_dir_all(dir.path().join(".claude/skills/review")).unwrap();
/// std::fs::write(
///     dir.path().join(".claude/skills/review/SKILL.md"),
///     "---\nname: review\ndescription: Reviews a change. Use for code review.\n---\nRun the tests.\n",
/// ).unwrap();
/// let skills = Discovery::new().project(dir.path(), true).discover();
/// assert_eq!(skills.get("review").map(|s| s.body.as_str()), Some("Run the tests.\n"));
/// let untrusted = Discovery::new().project(dir.path(), false).discover();
/// assert!(untrusted.is_empty());
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Discovery {
    project: Option<PathBuf>,
    trusted: bool,
    home: Option<PathBuf>,
    max_depth: usize,
    max_directories: usize,
    max_file_bytes: u64,
}

impl Default for Discovery {
    fn default() -> Self {
        Self::new()
    }
}

/// The user's home directory from the environment: `HOME`, or `USERPROFILE` on Windows; `None`
/// when neither is set or it is empty. The one place this crate (and dive-subagent, for its user
/// scope) reads the environment.
///
/// ```
/// let home = dive_skill::home_from_env();
/// assert!(home.is_none_or(|h| !h.as_os_str().is_empty()));
/// ```
#[must_use]
#[allow(clippy::disallowed_methods)] // a from_env-style reader: the one place the home is read
pub fn home_from_env() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .or_else(|| std::env::var_os("USERPROFILE"))
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

impl Discovery {
    /// Nothing to search yet; depth 5, at most 2,000 directories, files up to 1 MiB.
    pub fn new() -> Self {
        Self {
            project: None,
            trusted: false,
            home: None,
            max_depth: 5,
            max_directories: 2_000,
            max_file_bytes: 1 << 20,
        }
    }

    /// The user's home directory from the environment ([`home_from_env`]).
    pub fn from_env() -> Self {
        Self { home: home_from_env(), ..Self::new() }
    }

    /// The project root; its skills load only when `trusted` (a repository can hold skills
    /// its user never read).
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

    /// How many directory levels below a skills directory are searched.
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// How many directories are entered in all.
    pub fn max_directories(mut self, count: usize) -> Self {
        self.max_directories = count;
        self
    }

    /// The directories searched, in order, with their scope and how files there are read.
    #[must_use]
    pub fn search_dirs(&self) -> Vec<(Scope, PathBuf, Kind)> {
        let scopes = [(Scope::Project, self.project.as_ref()), (Scope::User, self.home.as_ref())];
        scopes
            .into_iter()
            .filter_map(|(scope, root)| Some((scope, root?)))
            .flat_map(|(scope, root)| {
                SEARCH_DIRS.iter().map(move |(dir, kind)| (scope, root.join(dir), *kind))
            })
            .collect()
    }

    /// Searches every directory, first found wins; blocking file-system work (run it with
    /// `spawn_blocking` from async code).
    #[must_use]
    pub fn discover(&self) -> SkillSet {
        let mut scan = Scan {
            set: SkillSet::new(),
            visited: HashSet::new(),
            directories: 0,
            limited: false,
            options: self,
        };
        let mut roots = HashSet::new();
        for (scope, dir, kind) in self.search_dirs() {
            let Ok(real) = dir.canonicalize() else { continue };
            if !roots.insert(real.clone()) {
                continue;
            }
            if scope == Scope::Project && !self.trusted {
                scan.set.push_diagnostic(Diagnostic::warning(&dir, None, Problem::Untrusted));
                continue;
            }
            scan.visited.insert(real);
            scan.dir(&dir, 0, scope, kind);
        }
        scan.set
    }
}

struct Scan<'a> {
    set: SkillSet,
    visited: HashSet<PathBuf>,
    directories: usize,
    limited: bool,
    options: &'a Discovery,
}

impl Scan<'_> {
    fn dir(&mut self, dir: &Path, depth: usize, scope: Scope, kind: Kind) {
        let mut entries: Vec<PathBuf> = match fs::read_dir(dir) {
            Ok(entries) => entries.filter_map(Result::ok).map(|e| e.path()).collect(),
            Err(e) => {
                return self.set.push_diagnostic(Diagnostic::warning(dir, None, Problem::Io(e.to_string())));
            }
        };
        entries.sort();
        for path in entries {
            let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else { continue };
            if SKIPPED.contains(&name.as_str()) || name.starts_with('.') {
                continue;
            }
            // Follows symlinks: a linked skill directory is common; loops are cut by `visited`.
            let Ok(meta) = fs::metadata(&path) else { continue };
            if meta.is_dir() {
                self.subdir(&path, depth, scope, kind);
            } else if is_markdown(&path)
                && !name.eq_ignore_ascii_case("readme.md")
                && (depth == 0 || kind == Kind::Command)
            {
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
                self.load(&path, &stem, scope, kind, Layout::File(path.clone()));
            }
        }
    }

    fn subdir(&mut self, path: &Path, depth: usize, scope: Scope, kind: Kind) {
        if self.limited {
            return;
        }
        let Ok(real) = path.canonicalize() else { return };
        if !self.visited.insert(real) {
            return;
        }
        self.directories += 1;
        if self.directories > self.options.max_directories {
            self.limited = true;
            let problem = Problem::ScanLimit { limit: self.options.max_directories, what: "directories" };
            return self.set.push_diagnostic(Diagnostic::warning(path, None, problem));
        }
        let skill_file = path.join("SKILL.md");
        if skill_file.is_file() {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            return self.load(&skill_file, &name, scope, Kind::Skill, Layout::Directory(path.to_owned()));
        }
        if depth + 1 >= self.options.max_depth {
            let problem = Problem::ScanLimit { limit: self.options.max_depth, what: "levels" };
            return self.set.push_diagnostic(Diagnostic::warning(path, None, problem));
        }
        self.dir(path, depth + 1, scope, kind);
    }

    fn load(&mut self, file: &Path, fallback: &str, scope: Scope, kind: Kind, layout: Layout) {
        let text = match read_limited(file, self.options.max_file_bytes) {
            Ok(text) => text,
            Err(problem) => return self.set.push_diagnostic(Diagnostic::error(file, None, problem)),
        };
        let (skill, diagnostics) = Skill::parse(&text, file, fallback, kind);
        for d in diagnostics {
            self.set.push_diagnostic(d);
        }
        if let Some(mut skill) = skill {
            skill.scope = scope;
            skill.layout = layout;
            self.set.insert_if_absent(skill);
        }
    }
}

fn is_markdown(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

fn read_limited(file: &Path, max: u64) -> Result<String, Problem> {
    let size = fs::metadata(file).map_err(|e| Problem::Io(e.to_string()))?.len();
    if size > max {
        return Err(Problem::TooLarge { size, max });
    }
    fs::read_to_string(file).map_err(|e| Problem::Io(e.to_string()))
}
