//! Diagnostics: every problem found while reading or discovering skills, naming the file and
//! the line, with whether the skill was still loaded.

use std::fmt;
use std::path::{Path, PathBuf};

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Severity {
    /// The skill was loaded anyway (a lenient reading, a shadowed copy, a skipped directory).
    Warning,
    /// The skill was not loaded.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Warning => "warning",
            Self::Error => "error",
        })
    }
}

/// What is wrong, in the skill author's words, with what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// A `SKILL.md` without a frontmatter block.
    #[error("no frontmatter: start the file with a `---` line, then `name:` and `description:`, then `---`")]
    MissingFrontmatter,
    /// The frontmatter block never ends.
    #[error("the frontmatter opened on line 1 is never closed: end it with a line holding only `---`")]
    UnclosedFrontmatter,
    /// The frontmatter cannot be read even leniently.
    #[error("cannot read the frontmatter: {0}")]
    Syntax(String),
    /// A skill without a description (the model could not know when to use it).
    #[error("`description` is missing: add one saying what the skill does and when to use it")]
    MissingDescription,
    /// A plain value holding `: `, which strict YAML refuses; it was read as text.
    #[error("the value of `{key}` holds an unquoted `: ` (read as text): put the value in quotes")]
    UnquotedColon {
        /// The key.
        key: String,
    },
    /// A key given twice; the last value is used.
    #[error("`{key}` is given more than once: the last value is used")]
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// `name` differs from the directory (or file) the skill lives in.
    #[error("`name` is {name:?} but the skill lives in {dir:?}: rename one so they agree")]
    NameMismatch {
        /// The frontmatter name.
        name: String,
        /// The directory or file name.
        dir: String,
    },
    /// A name outside the agentskills.io rules.
    #[error("the name {name:?} {reason}")]
    InvalidName {
        /// The name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A field whose value has the wrong shape; its default is used.
    #[error("`{key}` should be {expected}: the value is ignored")]
    InvalidField {
        /// The key.
        key: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A value longer than the specification allows.
    #[error("`{key}` is {len} characters, more than the {max} allowed: shorten it")]
    TooLong {
        /// The key.
        key: String,
        /// Its length in characters.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// Another skill of the same name takes precedence over this one.
    #[error("the skill `{name}` is shadowed by {by}: only that one is used")]
    Shadowed {
        /// The skill name.
        name: String,
        /// Where the skill that wins comes from.
        by: String,
    },
    /// Project skills exist but the workspace is not trusted.
    #[error("project skills are not loaded because the workspace is not trusted: trust it to use them")]
    Untrusted,
    /// The scan stopped at its limit.
    #[error("the scan stopped after {limit} {what}: move skills nearer the top or raise the limit")]
    ScanLimit {
        /// The limit reached.
        limit: usize,
        /// `directories` or `levels`.
        what: &'static str,
    },
    /// A file too large to be a skill.
    #[error("the file is {size} bytes, more than the {max} a skill may be: split it into bundled files")]
    TooLarge {
        /// Its size.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// The file or directory could not be read.
    #[error("cannot read it: {0}")]
    Io(String),
}

/// One problem, where it is and how bad. Generic over the problem so that crates reading
/// other markdown files with this frontmatter (subagent definitions) report the same way;
/// skills use [`Problem`].
///
/// ```
/// use dive_skill::{Diagnostic, Problem, Severity};
/// let d = Diagnostic::new(Severity::Error, "skills/x/SKILL.md", Some(3), Problem::MissingDescription);
/// assert!(d.to_string().starts_with("skills/x/SKILL.md:3: error: `description` is missing"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic<P = Problem> {
    /// How bad: an error means the file was not loaded.
    pub severity: Severity,
    /// The file (or, for a skill from code, the label it was given).
    pub file: PathBuf,
    /// The 1-based line, when the problem has one.
    pub line: Option<usize>,
    /// What is wrong.
    pub problem: P,
}

impl<P> Diagnostic<P> {
    /// A diagnostic.
    #[must_use]
    pub fn new(severity: Severity, file: impl Into<PathBuf>, line: Option<usize>, problem: P) -> Self {
        Self { severity, file: file.into(), line, problem }
    }

    /// Whether the file was not loaded.
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl Diagnostic {
    pub(crate) fn warning(file: &Path, line: Option<usize>, problem: Problem) -> Self {
        Self::new(Severity::Warning, file, line, problem)
    }

    pub(crate) fn error(file: &Path, line: Option<usize>, problem: Problem) -> Self {
        Self::new(Severity::Error, file, line, problem)
    }
}

impl<P: fmt::Display> fmt::Display for Diagnostic<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}: {}", self.severity, self.problem)
    }
}

/// A skill that could not be loaded, with every diagnostic found reading it.
///
/// ```
/// use dive_skill::Skill;
/// let error = Skill::embedded("skills/bad/SKILL.md", "---\nname: bad\n---\n").unwrap_err();
/// assert_eq!(error.to_string(), "skills/bad/SKILL.md:1: error: `description` is missing: add one saying what the skill does and when to use it");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
#[non_exhaustive]
pub struct InvalidSkill {
    /// What was found, errors and warnings, in order.
    pub diagnostics: Vec<Diagnostic>,
}
