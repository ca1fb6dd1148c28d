//! Diagnostics: every problem found reading agent files, naming the file and the line.

pub use dive_skill::Severity;

/// What is wrong with an agent file, in its author's words, with what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    /// The frontmatter could not be read, or was read leniently (the reader's own problem).
    #[error("{0}")]
    Frontmatter(dive_skill::Problem),
    /// An agent file without a frontmatter block.
    #[error("no frontmatter: start the file with a `---` line, then `name:` and `description:`, then `---`")]
    MissingFrontmatter,
    /// No description: the model could not know when to delegate to it.
    #[error("`description` is missing: add one saying what the subagent does and when to use it")]
    MissingDescription,
    /// A field whose value has the wrong shape; its default is used.
    #[error("`{key}` should be {expected}: the value is ignored")]
    InvalidField {
        /// The key.
        key: String,
        /// What it should be.
        expected: &'static str,
    },
    /// A field this version reads but does not act on.
    #[error("`{key}` is not supported yet and is ignored")]
    Unsupported {
        /// The key.
        key: String,
    },
    /// Another definition of the same name takes precedence.
    #[error("the subagent `{name}` is shadowed by {by}: only that one is used")]
    Shadowed {
        /// The name.
        name: String,
        /// Where the winning definition comes from.
        by: String,
    },
    /// Project agent files exist but the workspace is not trusted.
    #[error("project subagents are not loaded because the workspace is not trusted: trust it to use them")]
    Untrusted,
    /// A file too large to be an agent definition.
    #[error("the file is {size} bytes, more than the {max} an agent file may be")]
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

/// One problem in an agent file, where it is and how bad (an error means the definition was
/// not loaded): dive-skill's diagnostic over this crate's [`Problem`].
///
/// ```
/// use dive_subagent::{Diagnostic, Problem, Severity};
/// let d = Diagnostic::new(Severity::Error, ".dive/agents/x.md", Some(2), Problem::MissingDescription);
/// assert!(d.to_string().starts_with(".dive/agents/x.md:2: error: `description` is missing"));
/// assert!(d.is_error());
/// ```
pub type Diagnostic = dive_skill::Diagnostic<Problem>;
