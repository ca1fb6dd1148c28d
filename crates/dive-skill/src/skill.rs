//! [`Skill`]: one skill's instructions and frontmatter fields (agentskills.io's and Claude
//! Code's), where it came from, and how a file becomes one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, InvalidSkill, Problem};
use crate::frontmatter::{self, Document, Value};

/// The longest `description` the specification allows, in characters.
pub const MAX_DESCRIPTION: usize = 1024;
/// The longest `compatibility` the specification allows, in characters.
pub const MAX_COMPATIBILITY: usize = 500;
/// The longest `name` the specification allows, in characters.
pub const MAX_NAME: usize = 64;

/// Where a skill comes from; earlier scopes win over later ones on a name clash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Scope {
    /// Registered from code (or embedded in the binary).
    Code,
    /// The project's directories (`.dive/skills`, …), loaded only in a trusted workspace.
    Project,
    /// The user's home directories (`~/.dive/skills`, …).
    User,
}

/// How a skill is laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Layout {
    /// A directory holding `SKILL.md` and optional bundled files (`scripts/`, `references/`,
    /// `assets/`, …), listed to the model but never read up front.
    Directory(PathBuf),
    /// A single markdown file (a skill file or a `.claude/commands` command).
    File(PathBuf),
    /// No file system: registered from code or embedded in the binary.
    Embedded,
}

/// Where the skill runs when activated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExecutionContext {
    /// In the conversation that activated it (the default).
    Inline,
    /// In a subagent (`context: fork`), optionally of the type `agent` names.
    Fork {
        /// The subagent type (`agent:`), if given.
        agent: Option<String>,
    },
}

/// A skill: instructions the model loads on demand, with its frontmatter fields.
///
/// ```
/// use dive_skill::Skill;
/// let skill = Skill::new("release-notes", "Writes release notes from merged changes. Use when asked for a changelog.")
///     .with_body("Read the merged changes, then write one line per change.\n")
///     .with_allowed_tools(["Read", "Grep"]);
/// assert!(skill.model_invocable());
/// assert_eq!(skill.allowed_tools, ["Read", "Grep"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skill {
    /// The name the model and users call it by.
    pub name: String,
    /// What it does and when to use it (shown in the catalog).
    pub description: String,
    /// The instructions (the markdown after the frontmatter).
    pub body: String,
    /// `license`.
    pub license: Option<String>,
    /// `compatibility`: environment requirements.
    pub compatibility: Option<String>,
    /// `metadata`: free key-value pairs.
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`: while the skill is active, only these tools run (`Read`, `Bash(git *)`,
    /// `mcp__*`); empty means no restriction.
    pub allowed_tools: Vec<String>,
    /// `when_to_use`: more on when to use it, shown in the catalog after the description.
    pub when_to_use: Option<String>,
    /// `argument-hint`, e.g. `[issue-number]`.
    pub argument_hint: Option<String>,
    /// `arguments`: names of positional arguments, usable as `$name` in the body.
    pub arguments: Vec<String>,
    /// `disable-model-invocation`: only a user may invoke it; hidden from the model.
    pub disable_model_invocation: bool,
    /// `user-invocable` (default true): whether a user may invoke it as a slash command.
    pub user_invocable: bool,
    /// `model`: the model to use while the skill runs.
    pub model: Option<String>,
    /// `effort`: the reasoning effort to use while the skill runs.
    pub effort: Option<String>,
    /// `context` (+ `agent`): inline or in a subagent.
    pub context: ExecutionContext,
    /// `paths`: globs of files the skill is about (activation hints).
    pub paths: Vec<String>,
    /// `shell`: the interpreter for `` !`command` `` dynamic context.
    pub shell: Option<String>,
    /// Where it was found.
    pub scope: Scope,
    /// How it is laid out on disk, if at all.
    pub layout: Layout,
}

impl Skill {
    /// A skill from code, with no body yet.
    #[must_use]
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            body: String::new(),
            license: None,
            compatibility: None,
            metadata: BTreeMap::new(),
            allowed_tools: Vec::new(),
            when_to_use: None,
            argument_hint: None,
            arguments: Vec::new(),
            disable_model_invocation: false,
            user_invocable: true,
            model: None,
            effort: None,
            context: ExecutionContext::Inline,
            paths: Vec::new(),
            shell: None,
            scope: Scope::Code,
            layout: Layout::Embedded,
        }
    }

    /// Sets the instructions.
    #[must_use]
    pub fn with_body(mut self, body: impl Into<String>) -> Self {
        self.body = body.into();
        self
    }

    /// Sets `allowed-tools`.
    #[must_use]
    pub fn with_allowed_tools(mut self, tools: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.allowed_tools = tools.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the named positional arguments.
    #[must_use]
    pub fn with_arguments(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.arguments = names.into_iter().map(Into::into).collect();
        self
    }

    /// Sets `when_to_use`.
    #[must_use]
    pub fn with_when_to_use(mut self, text: impl Into<String>) -> Self {
        self.when_to_use = Some(text.into());
        self
    }

    /// Makes it user-only (`disable-model-invocation: true`).
    #[must_use]
    pub fn user_only(mut self) -> Self {
        self.disable_model_invocation = true;
        self
    }

    /// A skill embedded in the binary, read from its `SKILL.md` text (for example
    /// `include_str!("skills/review/SKILL.md")`); `label` names it in diagnostics.
    ///
    /// ```
    /// use dive_skill::Skill;
    /// let text = "---\nname: review\ndescription: Reviews a change. Use for code review.\n---\nCheck the tests first.\n";
    /// let skill = Skill::embedded("skills/review/SKILL.md", text).unwrap();
    /// assert_eq!(skill.name, "review");
    /// assert_eq!(skill.body, "Check the tests first.\n");
    /// let broken = Skill::embedded("skills/bad/SKILL.md", "---\nname: bad\n---\n").unwrap_err();
    /// assert!(broken.diagnostics.iter().any(|d| d.is_error()));
    /// ```
    ///
    /// # Errors
    /// [`InvalidSkill`] with every diagnostic, when any of them keeps the skill from loading;
    /// a skill that loads with warnings is returned (see them with [`parse`](Self::parse)).
    pub fn embedded(label: impl AsRef<Path>, text: &str) -> Result<Self, InvalidSkill> {
        let label = label.as_ref();
        let fallback = fallback_name(label);
        let (skill, diagnostics) = Self::parse(text, label, &fallback, Kind::Skill);
        match skill {
            Some(mut skill) if !diagnostics.iter().any(Diagnostic::is_error) => {
                skill.scope = Scope::Code;
                skill.layout = Layout::Embedded;
                Ok(skill)
            }
            _ => Err(InvalidSkill { diagnostics }),
        }
    }

    /// Reads a skill file leniently: `file` names it in diagnostics, `fallback_name` is the
    /// name when the frontmatter has none (the directory or file stem), and `kind` says
    /// whether a missing description is an error (a skill) or makes a user-only command.
    /// The skill is `None` when an error keeps it from loading.
    #[must_use]
    pub fn parse(
        text: &str,
        file: &Path,
        fallback_name: &str,
        kind: Kind,
    ) -> (Option<Self>, Vec<Diagnostic>) {
        let doc = match frontmatter::parse(text) {
            Ok(doc) => doc,
            Err((line, problem)) => return (None, vec![Diagnostic::error(file, Some(line), problem)]),
        };
        let mut out: Vec<Diagnostic> =
            doc.warnings.iter().map(|(line, p)| Diagnostic::warning(file, Some(*line), p.clone())).collect();
        if doc.entries.is_none() && kind == Kind::Skill {
            out.push(Diagnostic::error(file, Some(1), Problem::MissingFrontmatter));
            return (None, out);
        }
        let mut fields = Fields { doc: &doc, file, out: &mut out };
        let skill = fields.skill(fallback_name, kind);
        (skill, out)
    }

    /// Whether the model may invoke it (it has a description and is not user-only).
    #[must_use]
    pub fn model_invocable(&self) -> bool {
        !self.disable_model_invocation && !self.description.trim().is_empty()
    }

    /// The directory holding its bundled files, for directory skills.
    #[must_use]
    pub fn dir(&self) -> Option<&Path> {
        match &self.layout {
            Layout::Directory(dir) => Some(dir),
            _ => None,
        }
    }

    /// The file it was read from, if any.
    #[must_use]
    pub fn file(&self) -> Option<PathBuf> {
        match &self.layout {
            Layout::Directory(dir) => Some(dir.join("SKILL.md")),
            Layout::File(file) => Some(file.clone()),
            Layout::Embedded => None,
        }
    }

    /// Where it comes from, for people (a path, or `code`).
    #[must_use]
    pub fn origin(&self) -> String {
        self.file().map_or_else(|| "code".to_owned(), |f| f.display().to_string())
    }
}

/// What a markdown file is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// A skill: frontmatter with a description is required.
    Skill,
    /// A command (`.claude/commands/x.md`): frontmatter optional; without a description it is
    /// user-only.
    Command,
}

fn fallback_name(label: &Path) -> String {
    let stem = label.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if stem.eq_ignore_ascii_case("skill") {
        label.parent().and_then(Path::file_name).and_then(|s| s.to_str()).unwrap_or(stem).to_owned()
    } else {
        stem.to_owned()
    }
}

/// Why a name breaks the agentskills.io rules, if it does.
#[must_use]
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if name.chars().count() > MAX_NAME {
        Some("is longer than 64 characters")
    } else if !name.chars().all(|c| matches!(c, 'a'..='z' | '0'..='9' | '-')) {
        Some("should hold only lowercase letters, digits and `-`")
    } else if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        Some("should not start or end with `-` or hold `--`")
    } else {
        None
    }
}

struct Fields<'a> {
    doc: &'a Document,
    file: &'a Path,
    out: &'a mut Vec<Diagnostic>,
}

impl Fields<'_> {
    fn skill(&mut self, fallback_name: &str, kind: Kind) -> Option<Skill> {
        let name = match self.text("name") {
            Some(name) => {
                if !fallback_name.is_empty() && name != fallback_name {
                    let line = self.line("name");
                    self.warn(
                        line,
                        Problem::NameMismatch { name: name.clone(), dir: fallback_name.to_owned() },
                    );
                }
                name
            }
            None => fallback_name.to_owned(),
        };
        let name_line = self.line("name").or(Some(1));
        if name.trim().is_empty()
            || name.chars().any(|c| c.is_whitespace() || c.is_control() || matches!(c, '"' | '<' | '>'))
        {
            let reason = "cannot name a skill: use lowercase letters, digits and `-`";
            self.out.push(Diagnostic::error(self.file, name_line, Problem::InvalidName { name, reason }));
            return None;
        }
        if let Some(reason) = name_problem(&name) {
            self.warn(name_line, Problem::InvalidName { name: name.clone(), reason });
        }
        let description = self.text("description").unwrap_or_default();
        let mut skill = Skill::new(name, description);
        if skill.description.trim().is_empty() {
            if kind == Kind::Skill {
                let line = self.line("description").or(Some(1));
                self.out.push(Diagnostic::error(self.file, line, Problem::MissingDescription));
                return None;
            }
            skill.disable_model_invocation = true;
        }
        self.limit("description", &skill.description, MAX_DESCRIPTION);
        skill.body.clone_from(&self.doc.body);
        skill.license = self.text("license");
        skill.compatibility = self.text("compatibility");
        if let Some(c) = &skill.compatibility {
            self.limit("compatibility", c, MAX_COMPATIBILITY);
        }
        skill.metadata = self.map("metadata");
        skill.allowed_tools = self.tool_list("allowed-tools");
        skill.when_to_use = self.text("when_to_use").or_else(|| self.text("when-to-use"));
        skill.argument_hint = self.text("argument-hint");
        skill.arguments = self.words("arguments");
        skill.disable_model_invocation |= self.flag("disable-model-invocation").unwrap_or(false);
        skill.user_invocable = self.flag("user-invocable").unwrap_or(true);
        skill.model = self.text("model");
        skill.effort = self.text("effort");
        skill.shell = self.text("shell");
        skill.paths = self.list("paths", ',');
        skill.context = match self.text("context").as_deref() {
            None | Some("inline") => ExecutionContext::Inline,
            Some("fork") => ExecutionContext::Fork { agent: self.text("agent") },
            Some(_) => {
                self.invalid("context", "`fork` or `inline`");
                ExecutionContext::Inline
            }
        };
        Some(skill)
    }

    fn line(&self, key: &str) -> Option<usize> {
        self.doc.get(key).map(|e| e.line)
    }

    fn warn(&mut self, line: Option<usize>, problem: Problem) {
        self.out.push(Diagnostic::warning(self.file, line, problem));
    }

    fn invalid(&mut self, key: &str, expected: &'static str) {
        let line = self.line(key);
        self.warn(line, Problem::InvalidField { key: key.to_owned(), expected });
    }

    fn limit(&mut self, key: &str, value: &str, max: usize) {
        let len = value.chars().count();
        if len > max {
            let line = self.line(key);
            self.warn(line, Problem::TooLong { key: key.to_owned(), len, max });
        }
    }

    /// A scalar field; a list or map where text belongs is a warning.
    fn text(&mut self, key: &str) -> Option<String> {
        match &self.doc.get(key)?.value {
            Value::Scalar(s) if !s.is_empty() => Some(s.clone()),
            Value::Scalar(_) | Value::Null => None,
            Value::List(_) | Value::Map(_) => {
                self.invalid(key, "text");
                None
            }
        }
    }

    fn flag(&mut self, key: &str) -> Option<bool> {
        let text = self.text(key)?;
        match text.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" => Some(true),
            "false" | "no" | "off" => Some(false),
            _ => {
                self.invalid(key, "`true` or `false`");
                None
            }
        }
    }

    fn map(&mut self, key: &str) -> BTreeMap<String, String> {
        match self.doc.get(key).map(|e| &e.value) {
            Some(Value::Map(pairs)) => pairs.iter().cloned().collect(),
            None | Some(Value::Null) => BTreeMap::new(),
            Some(_) => {
                self.invalid(key, "a map of `key: value` lines");
                BTreeMap::new()
            }
        }
    }

    /// A list field: a YAML list, or text split on `separator`.
    fn list(&mut self, key: &str, separator: char) -> Vec<String> {
        match self.doc.get(key).map(|e| &e.value) {
            Some(Value::List(items)) => items.iter().filter(|i| !i.trim().is_empty()).cloned().collect(),
            Some(Value::Scalar(s)) => {
                s.split(separator).map(str::trim).filter(|i| !i.is_empty()).map(str::to_owned).collect()
            }
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Map(_)) => {
                self.invalid(key, "a list");
                Vec::new()
            }
        }
    }

    /// Names split on whitespace or commas.
    fn words(&mut self, key: &str) -> Vec<String> {
        self.list(key, ',').iter().flat_map(|i| i.split_whitespace()).map(str::to_owned).collect()
    }

    /// Tool rules: a list, or text split on spaces and commas outside parentheses
    /// (`Read Grep Bash(git status)`).
    fn tool_list(&mut self, key: &str) -> Vec<String> {
        match self.doc.get(key).map(|e| &e.value) {
            Some(Value::Scalar(s)) => split_tools(s),
            _ => self.list(key, ','),
        }
    }
}

/// Splits `Read, Grep Bash(git status)` into rules, keeping what is inside parentheses whole.
fn split_tools(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.saturating_sub(1);
                current.push(c);
            }
            c if depth == 0 && (c == ',' || c.is_whitespace()) => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::diagnostic::Severity;

    fn read(text: &str, kind: Kind) -> (Option<Skill>, Vec<Diagnostic>) {
        Skill::parse(text, Path::new("s/x/SKILL.md"), "x", kind)
    }

    #[test]
    fn every_field_is_read() {
        let text = "---\nname: x\ndescription: Does x.\nlicense: MIT\ncompatibility: needs git\nmetadata:\n  author: ada\n\
                    allowed-tools: Read Grep, Bash(git status)\nwhen_to_use: When x.\nargument-hint: \"[file]\"\n\
                    arguments: [file, mode]\ndisable-model-invocation: true\nuser-invocable: false\nmodel: opus\neffort: high\n\
                    context: fork\nagent: Explore\npaths: \"src/**, docs/**\"\nshell: bash\n---\nBody\n";
        let (skill, diagnostics) = read(text, Kind::Skill);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let s = skill.unwrap();
        assert_eq!(s.license.as_deref(), Some("MIT"));
        assert_eq!(s.compatibility.as_deref(), Some("needs git"));
        assert_eq!(s.metadata.get("author").map(String::as_str), Some("ada"));
        assert_eq!(s.allowed_tools, ["Read", "Grep", "Bash(git status)"]);
        assert_eq!(s.when_to_use.as_deref(), Some("When x."));
        assert_eq!(s.argument_hint.as_deref(), Some("[file]"));
        assert_eq!(s.arguments, ["file", "mode"]);
        assert!(s.disable_model_invocation && !s.user_invocable && !s.model_invocable());
        assert_eq!((s.model.as_deref(), s.effort.as_deref()), (Some("opus"), Some("high")));
        assert_eq!(s.context, ExecutionContext::Fork { agent: Some("Explore".into()) });
        assert_eq!(s.paths, ["src/**", "docs/**"]);
        assert_eq!(s.shell.as_deref(), Some("bash"));
        assert_eq!(s.body, "Body\n");
    }

    #[test]
    fn a_skill_without_description_is_skipped_a_command_becomes_user_only() {
        let (skill, d) = read("---\nname: x\n---\nBody", Kind::Skill);
        assert!(skill.is_none());
        assert_eq!(
            (d[0].severity, d[0].line, &d[0].problem),
            (Severity::Error, Some(1), &Problem::MissingDescription)
        );
        let (skill, d) = read("Fix issue $1.\n", Kind::Command);
        assert!(d.is_empty());
        let skill = skill.unwrap();
        assert_eq!(skill.name, "x");
        assert!(!skill.model_invocable() && skill.user_invocable);
        let (_, d) = read("no frontmatter", Kind::Skill);
        assert_eq!(d[0].problem, Problem::MissingFrontmatter);
    }

    #[test]
    fn lenient_readings_warn_with_lines() {
        let (skill, d) =
            read("---\nname: other\ndescription: Use it: now\nuser-invocable: maybe\n---\n", Kind::Skill);
        let skill = skill.unwrap();
        assert_eq!(skill.name, "other");
        assert_eq!(skill.description, "Use it: now");
        assert!(skill.user_invocable);
        let lines: Vec<_> = d.iter().map(|d| (d.line, d.severity)).collect();
        assert_eq!(
            lines,
            [(Some(3), Severity::Warning), (Some(2), Severity::Warning), (Some(4), Severity::Warning)]
        );
        assert!(
            matches!(&d[1].problem, Problem::NameMismatch { name, dir } if name == "other" && dir == "x")
        );
    }

    #[test]
    fn names_follow_the_specification() {
        assert_eq!(name_problem("pdf-tools"), None);
        assert!(name_problem("PDF").is_some());
        assert!(name_problem("-a").is_some());
        assert!(name_problem("a--b").is_some());
        assert!(name_problem(&"a".repeat(65)).is_some());
        let (skill, d) = read("---\nname: My Skill\ndescription: d\n---\n", Kind::Skill);
        assert!(skill.is_none());
        assert!(d.iter().any(|d| d.is_error() && d.line == Some(2)));
    }

    #[test]
    fn embedded_names_come_from_the_label() {
        let skill = Skill::embedded("skills/review/SKILL.md", "---\ndescription: Reviews.\n---\nx").unwrap();
        assert_eq!(skill.name, "review");
        assert_eq!(skill.scope, Scope::Code);
    }
}
