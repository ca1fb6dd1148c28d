//! Reading one agent file: markdown with frontmatter (Claude Code's fields, camelCase or
//! kebab-case), the body as the system prompt.

use std::path::Path;

use dive_skill::frontmatter::{self, Document, Entry, Value};

use crate::definition::{Definition, Isolation, ModelChoice};
use crate::diagnostic::{Diagnostic, Problem, Severity};

/// Fields Claude Code defines that this version reads and ignores, with a warning.
const UNSUPPORTED: [&str; 5] = ["mcpServers", "hooks", "memory", "initialPrompt", "color"];

impl Definition {
    /// Reads an agent file. The name is the frontmatter `name`, or `fallback_name` (the file
    /// stem). Returns the definition, if it could be loaded, and every problem found.
    ///
    /// ```
    /// use std::path::Path;
    /// use dive_subagent::Definition;
    /// let text = "---\nname: reviewer\ndescription: Reviews diffs.\ntools: Read, Grep\nmaxTurns: 5\n---\nReview it.\n";
    /// let (def, problems) = Definition::parse(text, Path::new("reviewer.md"), "reviewer");
    /// let def = def.unwrap();
    /// assert!(problems.is_empty());
    /// assert_eq!(def.tools, Some(vec!["Read".into(), "Grep".into()]));
    /// assert_eq!((def.max_turns, def.prompt.as_str()), (Some(5), "Review it.\n"));
    /// ```
    #[must_use]
    pub fn parse(text: &str, file: &Path, fallback_name: &str) -> (Option<Self>, Vec<Diagnostic>) {
        let doc = match frontmatter::parse(text) {
            Ok(doc) => doc,
            Err((line, p)) => {
                return (
                    None,
                    vec![Diagnostic::new(Severity::Error, file, Some(line), Problem::Frontmatter(p))],
                );
            }
        };
        let mut out: Vec<Diagnostic> = doc
            .warnings
            .iter()
            .map(|(line, p)| {
                Diagnostic::new(Severity::Warning, file, Some(*line), Problem::Frontmatter(p.clone()))
            })
            .collect();
        if doc.entries.is_none() {
            out.push(Diagnostic::new(Severity::Error, file, Some(1), Problem::MissingFrontmatter));
            return (None, out);
        }
        let mut fields = Fields { doc: &doc, file, out: &mut out };
        let def = fields.definition(fallback_name);
        (def, out)
    }
}

struct Fields<'a> {
    doc: &'a Document,
    file: &'a Path,
    out: &'a mut Vec<Diagnostic>,
}

impl Fields<'_> {
    fn definition(&mut self, fallback_name: &str) -> Option<Definition> {
        for key in UNSUPPORTED {
            if let Some(e) = self.doc.get(key) {
                let line = e.line;
                self.push(Severity::Warning, line, Problem::Unsupported { key: key.to_owned() });
            }
        }
        let name = self.text("name").unwrap_or_else(|| fallback_name.to_owned());
        let Some(description) = self.text("description") else {
            let line = self.entry("description").map_or(1, |e| e.line);
            self.push(Severity::Error, line, Problem::MissingDescription);
            return None;
        };
        let mut def = Definition::new(name, description).with_prompt(self.doc.body.clone());
        def.tools = if self.entry("tools").is_some() { Some(self.list("tools")) } else { None };
        def.disallowed_tools = self.list("disallowedTools");
        def.model = self.text("model").map_or(ModelChoice::Inherit, |m| ModelChoice::parse(&m));
        def.permission_mode = self.text("permissionMode");
        def.max_turns = self.number("maxTurns");
        def.skills = self.list("skills");
        def.background = self.flag("background");
        def.effort = self.text("effort");
        def.isolation = match self.text("isolation").as_deref() {
            None => Isolation::None,
            Some(v) if v.eq_ignore_ascii_case("worktree") => Isolation::Worktree,
            Some(_) => {
                self.invalid("isolation", "`worktree`");
                Isolation::None
            }
        };
        def.path = Some(self.file.to_owned());
        Some(def)
    }

    /// The entry of a camelCase key, or of its kebab-case spelling (`disallowed-tools`).
    fn entry(&self, key: &str) -> Option<&Entry> {
        self.doc.get(key).or_else(|| self.doc.get(&kebab(key)))
    }

    fn push(&mut self, severity: Severity, line: usize, problem: Problem) {
        self.out.push(Diagnostic::new(severity, self.file, Some(line), problem));
    }

    fn invalid(&mut self, key: &str, expected: &'static str) {
        let line = self.entry(key).map_or(1, |e| e.line);
        self.push(Severity::Warning, line, Problem::InvalidField { key: key.to_owned(), expected });
    }

    fn text(&mut self, key: &str) -> Option<String> {
        match &self.entry(key)?.value {
            Value::Scalar(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Value::Scalar(_) | Value::Null => None,
            _ => {
                self.invalid(key, "a text");
                None
            }
        }
    }

    /// A block list, a `[a, b]` list or one comma-separated text (`tools: Read, Grep`).
    fn list(&mut self, key: &str) -> Vec<String> {
        let Some(entry) = self.entry(key) else { return Vec::new() };
        let items: Vec<String> = match &entry.value {
            Value::List(items) => items.clone(),
            Value::Scalar(s) => s.split(',').map(str::to_owned).collect(),
            Value::Null => Vec::new(),
            _ => {
                self.invalid(key, "a list");
                return Vec::new();
            }
        };
        items.into_iter().map(|i| i.trim().to_owned()).filter(|i| !i.is_empty()).collect()
    }

    fn number(&mut self, key: &str) -> Option<u32> {
        let text = self.text(key)?;
        let parsed = text.parse().ok().filter(|n: &u32| *n > 0);
        if parsed.is_none() {
            self.invalid(key, "a whole number above 0");
        }
        parsed
    }

    fn flag(&mut self, key: &str) -> bool {
        match self.text(key).as_deref() {
            None => false,
            Some(v) if v.eq_ignore_ascii_case("true") => true,
            Some(v) if v.eq_ignore_ascii_case("false") => false,
            Some(_) => {
                self.invalid(key, "`true` or `false`");
                false
            }
        }
    }
}

fn kebab(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 2);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Option<Definition>, Vec<String>) {
        let (def, d) = Definition::parse(text, Path::new("a.md"), "a");
        (def, d.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn every_field() {
        let (def, problems) = parse(
            "---\nname: fixer\ndescription: Fixes bugs.\ntools:\n  - Read\n  - Edit\ndisallowed-tools: [Bash]\n\
             model: sonnet\npermissionMode: acceptEdits\nmaxTurns: 7\nskills: [review]\nbackground: true\n\
             effort: high\nisolation: worktree\n---\nFix it.\n",
        );
        assert!(problems.is_empty(), "{problems:?}");
        let def = def.unwrap();
        assert_eq!(def.name, "fixer");
        assert_eq!(def.tools.as_deref(), Some(&["Read".to_owned(), "Edit".to_owned()][..]));
        assert_eq!(def.disallowed_tools, vec!["Bash".to_owned()]);
        assert_eq!(def.model, ModelChoice::Named("sonnet".into()));
        assert_eq!(def.permission_mode.as_deref(), Some("acceptEdits"));
        assert_eq!((def.max_turns, def.background, def.isolation), (Some(7), true, Isolation::Worktree));
        assert_eq!((def.skills, def.effort.as_deref()), (vec!["review".to_owned()], Some("high")));
        assert_eq!(def.prompt, "Fix it.\n");
    }

    #[test]
    fn problems_name_the_line() {
        let (def, problems) = parse("---\nname: x\nmaxTurns: lots\ncolor: red\n---\nBody\n");
        assert!(def.is_none());
        assert_eq!(
            problems,
            [
                "a.md:4: warning: `color` is not supported yet and is ignored",
                "a.md:1: error: `description` is missing: add one saying what the subagent does and when to use it",
            ]
        );
        let (def, problems) = parse("---\ndescription: d\nmaxTurns: lots\n---\n");
        assert_eq!(def.unwrap().max_turns, None);
        assert_eq!(
            problems,
            vec!["a.md:3: warning: `maxTurns` should be a whole number above 0: the value is ignored"]
        );
        let (def, problems) = parse("---\ndescription: d\n  oops\n");
        assert!(def.is_none());
        assert!(
            problems[0].starts_with("a.md:1: error: the frontmatter opened on line 1 is never closed"),
            "{problems:?}"
        );
        let (_, problems) = parse("no frontmatter\n");
        assert!(problems[0].starts_with("a.md:1: error: no frontmatter"), "{problems:?}");
    }
}
