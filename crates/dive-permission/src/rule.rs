//! [`Rule`]: `Tool` or `Tool(specifier)`, parsed from the settings-file form.

use std::fmt;
use std::str::FromStr;

use globset::{GlobBuilder, GlobMatcher};

use crate::error::RuleError;

/// A permission rule: a tool-name glob (`Bash`, `mcp__github__*`, `{Read,Grep}`) and an
/// optional specifier whose meaning depends on the tool (a command pattern for Bash, a path
/// glob for file tools, `domain:host` or a URL glob for WebFetch).
///
/// ```
/// use dive_permission::Rule;
/// let r: Rule = "Bash(cargo test:*)".parse().unwrap();
/// assert_eq!(r.tool(), "Bash");
/// assert_eq!(r.specifier(), Some("cargo test:*"));
/// assert_eq!(r.to_string(), "Bash(cargo test:*)");
/// assert!("Bash(oops".parse::<Rule>().is_err());
/// ```
#[derive(Clone)]
pub struct Rule {
    tool: String,
    specifier: Option<String>,
    matcher: GlobMatcher,
}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rule({self})")
    }
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.tool == other.tool && self.specifier == other.specifier
    }
}

impl Eq for Rule {}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.specifier {
            Some(spec) => write!(f, "{}({spec})", self.tool),
            None => f.write_str(&self.tool),
        }
    }
}

impl FromStr for Rule {
    type Err = RuleError;

    fn from_str(text: &str) -> Result<Self, RuleError> {
        Self::parse(text)
    }
}

impl Rule {
    /// Parses `Tool` or `Tool(specifier)`. `Tool()` and `Tool(*)` mean the whole tool.
    ///
    /// # Errors
    /// [`RuleError`] for empty or malformed text.
    pub fn parse(text: &str) -> Result<Self, RuleError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(RuleError::Empty);
        }
        let (tool, specifier) = match text.find('(') {
            None => (text, None),
            Some(open) => {
                if !text.ends_with(')') {
                    return Err(RuleError::Malformed(text.into()));
                }
                let spec = text[open + 1..text.len() - 1].trim();
                (text[..open].trim(), (!spec.is_empty() && spec != "*").then(|| spec.to_string()))
            }
        };
        if tool.is_empty() || tool.contains(')') {
            return Err(RuleError::Malformed(text.into()));
        }
        Self::new(tool, specifier)
    }

    /// A rule from parts.
    ///
    /// # Errors
    /// [`RuleError::BadPattern`] when the tool glob is invalid.
    pub fn new(tool: impl Into<String>, specifier: Option<String>) -> Result<Self, RuleError> {
        let tool = tool.into();
        let matcher = GlobBuilder::new(&tool)
            .build()
            .map_err(|e| RuleError::BadPattern { rule: tool.clone(), message: e.to_string() })?
            .compile_matcher();
        Ok(Self { tool, specifier, matcher })
    }

    /// The tool-name pattern.
    #[must_use]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The specifier, if any.
    #[must_use]
    pub fn specifier(&self) -> Option<&str> {
        self.specifier.as_deref()
    }

    /// Whether the tool part matches a tool name.
    #[must_use]
    pub fn matches_tool(&self, name: &str) -> bool {
        self.matcher.is_match(name)
    }
}

/// Allow, ask and deny rule lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rules {
    /// Calls these match run without asking.
    pub allow: Vec<Rule>,
    /// Calls these match ask the dialog.
    pub ask: Vec<Rule>,
    /// Calls these match are refused, in every mode.
    pub deny: Vec<Rule>,
}

impl Rules {
    /// No rules.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses settings-form lists.
    ///
    /// # Errors
    /// The first rule that does not parse.
    pub fn parse<S: AsRef<str>>(allow: &[S], ask: &[S], deny: &[S]) -> Result<Self, RuleError> {
        let parse = |list: &[S]| list.iter().map(|r| Rule::parse(r.as_ref())).collect::<Result<Vec<_>, _>>();
        Ok(Self { allow: parse(allow)?, ask: parse(ask)?, deny: parse(deny)? })
    }

    /// Adds an allow rule.
    ///
    /// # Errors
    /// When the rule does not parse.
    pub fn allow(mut self, rule: &str) -> Result<Self, RuleError> {
        self.allow.push(Rule::parse(rule)?);
        Ok(self)
    }

    /// Adds an ask rule.
    ///
    /// # Errors
    /// When the rule does not parse.
    pub fn ask(mut self, rule: &str) -> Result<Self, RuleError> {
        self.ask.push(Rule::parse(rule)?);
        Ok(self)
    }

    /// Adds a deny rule.
    ///
    /// # Errors
    /// When the rule does not parse.
    pub fn deny(mut self, rule: &str) -> Result<Self, RuleError> {
        self.deny.push(Rule::parse(rule)?);
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_forms() {
        assert_eq!(Rule::parse("Read").unwrap().specifier(), None);
        assert_eq!(Rule::parse("Read()").unwrap().specifier(), None);
        assert_eq!(Rule::parse("Bash(*)").unwrap().specifier(), None);
        assert_eq!(
            Rule::parse(" WebFetch(domain:example.com) ").unwrap().specifier(),
            Some("domain:example.com")
        );
        assert_eq!(Rule::parse("Bash(echo (a))").unwrap().specifier(), Some("echo (a)"));
        assert!(Rule::parse("").is_err());
        assert!(Rule::parse("(x)").is_err());
        assert!(Rule::parse("Bash(x) y").is_err());
        assert!(Rule::parse("mcp__*").unwrap().matches_tool("mcp__github__create_issue"));
        assert!(Rule::parse("{Read,Grep}").unwrap().matches_tool("Grep"));
        assert!(!Rule::parse("Read").unwrap().matches_tool("ReadX"));
    }
}
