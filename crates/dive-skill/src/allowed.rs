//! `allowed-tools` rules: `Read`, `mcp__*`, `Bash(git status)`, `Bash(git:*)`,
//! `Read(docs/**)`; which tool calls a rule lets run.

use serde_json::Value;

/// One rule: a tool-name glob and an optional glob on the call's main argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolRule {
    tool: String,
    specifier: Option<String>,
}

/// Input fields read as a call's main argument, in order; the first two are shell commands.
const SPECIFIER_FIELDS: [&str; 7] = ["command", "cmd", "file_path", "filePath", "path", "url", "pattern"];

/// What makes a shell command more than one simple command: never allowed by a specifier.
const SHELL_CONTROL: [&str; 9] = [";", "&", "|", "`", "$(", ">", "<", "\n", "\r"];

impl ToolRule {
    pub(crate) fn parse(rule: &str) -> Self {
        let rule = rule.trim();
        match rule.split_once('(') {
            Some((tool, rest)) if rest.ends_with(')') => Self {
                tool: tool.trim().to_owned(),
                specifier: Some(rest[..rest.len() - 1].trim().to_owned()),
            },
            _ => Self { tool: rule.to_owned(), specifier: None },
        }
    }

    /// Whether this rule lets the call run. A specifier rule needs the call's main argument
    /// to match, and never matches a shell command that chains, pipes, substitutes or
    /// redirects.
    pub(crate) fn allows(&self, tool: &str, input: &Value) -> bool {
        if !glob(&self.tool.to_lowercase(), &tool.to_lowercase()) {
            return false;
        }
        let Some(pattern) = &self.specifier else { return true };
        let Some((field, value)) = SPECIFIER_FIELDS
            .iter()
            .find_map(|f| input.get(*f).and_then(Value::as_str).map(|v| (*f, v.trim())))
        else {
            return false;
        };
        if matches!(field, "command" | "cmd") && SHELL_CONTROL.iter().any(|c| value.contains(c)) {
            return false;
        }
        match pattern.strip_suffix(":*") {
            Some(prefix) => value == prefix || value.strip_prefix(prefix).is_some_and(|r| r.starts_with(' ')),
            None => glob(pattern, value),
        }
    }
}

/// `*` matches any run of characters (`**` too); everything else literally.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_globs() {
        assert!(ToolRule::parse("Read").allows("Read", &json!({})));
        assert!(ToolRule::parse("read").allows("Read", &json!({})));
        assert!(!ToolRule::parse("Read").allows("ReadMany", &json!({})));
        assert!(ToolRule::parse("mcp__github__*").allows("mcp__github__issues", &json!({})));
        assert!(!ToolRule::parse("mcp__github__*").allows("mcp__gitlab__issues", &json!({})));
        assert!(glob("a*b*c", "aXbYc") && !glob("a*b*c", "aXcYb") && glob("**", "") && !glob("ab*ba", "aba"));
    }

    #[test]
    fn specifiers_match_the_main_argument_and_never_a_chained_command() {
        let git = ToolRule::parse("Bash(git:*)");
        assert!(git.allows("Bash", &json!({"command": "git status"})));
        assert!(git.allows("Bash", &json!({"command": "git"})));
        assert!(!git.allows("Bash", &json!({"command": "gitk"})));
        assert!(!git.allows("Bash", &json!({"command": "git status; rm -rf /"})));
        assert!(!git.allows("Bash", &json!({"command": "git log $(rm -rf /)"})));
        assert!(!git.allows("Bash", &json!({"command": "git log > /etc/passwd"})));
        assert!(!git.allows("Bash", &json!({})), "no argument to match: refused");
        let exact = ToolRule::parse("Bash(npm test)");
        assert!(
            exact.allows("Bash", &json!({"command": "npm test"}))
                && !exact.allows("Bash", &json!({"command": "npm publish"}))
        );
        let docs = ToolRule::parse("Read(docs/**)");
        assert!(
            docs.allows("Read", &json!({"file_path": "docs/a/b.md"}))
                && !docs.allows("Read", &json!({"file_path": "src/a.rs"}))
        );
    }
}
