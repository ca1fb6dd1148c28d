//! [`Catalog`]: the subagent kinds the `Agent` tool offers, by name, with the diagnostics
//! found loading them.

use std::collections::HashMap;
use std::sync::Arc;

use crate::definition::{Definition, Source};
use crate::diagnostic::{Diagnostic, Problem, Severity};
use crate::external::{External, ExternalAgent};

/// Subagent definitions by name (first added wins), and what went wrong loading them.
///
/// ```
/// use dive_subagent::{Catalog, Definition};
/// let catalog = Catalog::with_builtins().with(Definition::new("reviewer", "Reviews diffs."));
/// assert_eq!(catalog.names(), ["general-purpose", "Explore", "Plan", "reviewer"]);
/// assert!(catalog.describe().contains("- reviewer: Reviews diffs."));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    definitions: Vec<Definition>,
    diagnostics: Vec<Diagnostic>,
    /// The types that run elsewhere, by definition name.
    externals: HashMap<String, External>,
}

impl Catalog {
    /// An empty catalog.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// `general-purpose`, `Explore` and `Plan`.
    #[must_use]
    pub fn with_builtins() -> Self {
        let mut catalog = Self::new();
        for def in Definition::builtins() {
            catalog.insert(def);
        }
        catalog
    }

    /// Adds a definition, replacing one of the same name (code wins over files).
    #[must_use]
    pub fn with(mut self, definition: Definition) -> Self {
        self.definitions.retain(|d| d.name != definition.name);
        self.definitions.push(definition);
        self
    }

    /// Adds a subagent type that runs elsewhere (a remote A2A agent): `definition` gives its
    /// name and description (its prompt and tool fields are not used), `agent` runs it.
    /// Replaces a type of the same name.
    #[must_use]
    pub fn with_external(mut self, definition: Definition, agent: Arc<dyn ExternalAgent>) -> Self {
        self.externals.insert(definition.name.clone(), External(agent));
        self.with(definition)
    }

    /// The agent that runs the type `name`, when it runs elsewhere.
    #[must_use]
    pub fn external(&self, name: &str) -> Option<Arc<dyn ExternalAgent>> {
        self.externals.get(name).map(|e| Arc::clone(&e.0))
    }

    /// Adds a definition unless one of that name is already in; a file-backed loser is
    /// reported as shadowed. Returns whether it was added.
    pub fn insert(&mut self, definition: Definition) -> bool {
        let Some(winner) = self.get(&definition.name) else {
            self.definitions.push(definition);
            return true;
        };
        if let Some(path) = &definition.path {
            let by =
                winner.path.as_ref().map_or_else(|| "a built-in".to_owned(), |p| p.display().to_string());
            let problem = Problem::Shadowed { name: definition.name.clone(), by };
            self.diagnostics.push(Diagnostic::new(Severity::Warning, path, None, problem));
        }
        false
    }

    /// Adds a diagnostic.
    pub fn push_diagnostic(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// The definition of `name` (exact, then case-insensitive).
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Definition> {
        self.definitions
            .iter()
            .find(|d| d.name == name)
            .or_else(|| self.definitions.iter().find(|d| d.name.eq_ignore_ascii_case(name)))
    }

    /// Every definition, in order.
    #[must_use]
    pub fn definitions(&self) -> &[Definition] {
        &self.definitions
    }

    /// Every name, in order.
    #[must_use]
    pub fn names(&self) -> Vec<&str> {
        self.definitions.iter().map(|d| d.name.as_str()).collect()
    }

    /// Whether it holds no definition.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.definitions.is_empty()
    }

    /// What went wrong loading it.
    #[must_use]
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The definitions of a source.
    pub fn from_source(&self, source: Source) -> impl Iterator<Item = &Definition> {
        self.definitions.iter().filter(move |d| d.source == source)
    }

    /// One line a definition (`- name: description (Tools: …)`), for the `Agent` tool's
    /// description.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for d in &self.definitions {
            let tools = match (&d.tools, d.disallowed_tools.is_empty()) {
                (Some(tools), _) => tools.join(", "),
                (None, true) => "*".to_owned(),
                (None, false) => format!("all except {}", d.disallowed_tools.join(", ")),
            };
            out.push_str(&format!("- {}: {} (Tools: {tools})\n", d.name, d.description.trim()));
        }
        out
    }
}
