//! What a rule's specifier is matched against for each tool, and how: command patterns for
//! Bash, path globs on resolved paths for file tools, domains or URL globs for WebFetch.

use std::path::{Component, Path, PathBuf};

use globset::GlobBuilder;
use serde_json::Value;

/// How a tool's specifier is read from its input and matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpecifierKind {
    /// A shell command: `cmd:*` prefix, `*` wildcard or exact, segment by segment.
    Command,
    /// A file path: `*` within a path segment, `**` across, on the resolved path.
    Path,
    /// A URL: `domain:host` (host or its subdomains), a bare host, or a URL glob.
    Url,
    /// Any string: `*` wildcard or exact.
    Plain,
}

/// The default kind and input fields for a tool name.
pub(crate) fn default_kind(tool: &str) -> Option<(SpecifierKind, &'static [&'static str])> {
    const PATH_FIELDS: &[&str] = &["file_path", "filePath", "path", "notebook_path"];
    Some(match tool {
        "Bash" | "Shell" | "Monitor" => (SpecifierKind::Command, &["command", "cmd", "script", "code"]),
        "Read"
        | "Write"
        | "Edit"
        | "MultiEdit"
        | "NotebookEdit"
        | "Glob"
        | "Grep"
        | "ListDirectory"
        | "LS"
        | "TextEditor"
        | "str_replace_based_edit_tool" => (SpecifierKind::Path, PATH_FIELDS),
        "WebFetch" => (SpecifierKind::Url, &["url"]),
        _ => return None,
    })
}

/// Reads the first string field present.
pub(crate) fn extract(input: &Value, fields: &[String]) -> Option<String> {
    fields.iter().find_map(|f| input.get(f).and_then(Value::as_str)).map(str::to_string)
}

/// `*` matches any run of characters; everything else is literal.
pub(crate) fn wildcard(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && p[pi] != '*' && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

fn squash_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether one simple command matches a Bash specifier.
pub(crate) fn command_matches(pattern: &str, command: &str) -> bool {
    let command = squash_spaces(command);
    let pattern = pattern.trim();
    if let Some(prefix) = pattern.strip_suffix(":*") {
        let prefix = squash_spaces(prefix);
        command == prefix || command.starts_with(&format!("{prefix} "))
    } else if pattern.contains('*') {
        wildcard(&squash_spaces(pattern), &command)
    } else {
        command == squash_spaces(pattern)
    }
}

/// A specifier with no wildcard: matches only the identical whole command.
pub(crate) fn is_literal(pattern: &str) -> bool {
    !pattern.contains('*')
}

/// Where relative paths and root-relative rule paths are anchored.
#[derive(Debug, Clone)]
pub(crate) struct PathBase {
    pub(crate) root: PathBuf,
    pub(crate) home: Option<PathBuf>,
}

/// A call's path in two forms: cleaned (lexical) and resolved (symlinks followed).
pub(crate) struct CallPath {
    pub(crate) lexical: PathBuf,
    pub(crate) resolved: PathBuf,
}

impl PathBase {
    pub(crate) fn call_path(&self, raw: &str) -> CallPath {
        let joined = if Path::new(raw).is_absolute() { PathBuf::from(raw) } else { self.root.join(raw) };
        let lexical = clean(&joined);
        let resolved = resolve(&lexical);
        CallPath { lexical, resolved }
    }

    /// The absolute glob a rule path stands for: `//abs` is absolute, `~/x` is under home,
    /// `/x` is under the root (unless it already names a path under the root), a pattern
    /// without `/` matches at any depth under the root, anything else is root-relative.
    pub(crate) fn rule_glob(&self, spec: &str) -> String {
        let root = self.root.to_string_lossy();
        if let Some(abs) = spec.strip_prefix("//") {
            format!("/{abs}")
        } else if let (Some(rest), Some(home)) = (spec.strip_prefix("~/"), &self.home) {
            format!("{}/{rest}", home.to_string_lossy())
        } else if spec.starts_with('/') {
            if Path::new(spec).starts_with(&self.root) { spec.to_string() } else { format!("{root}{spec}") }
        } else if !spec.contains('/') {
            format!("{root}/**/{spec}")
        } else {
            format!("{root}/{}", spec.trim_start_matches("./"))
        }
    }

    pub(crate) fn path_matches(&self, spec: &str, path: &Path) -> bool {
        let glob = self.rule_glob(spec);
        let matcher = match GlobBuilder::new(&glob).literal_separator(true).build() {
            Ok(g) => g.compile_matcher(),
            Err(_) => return false,
        };
        matcher.is_match(path) || glob.strip_suffix("/**").is_some_and(|dir| Path::new(dir) == path)
    }
}

/// Removes `.` and resolves `..` lexically.
pub(crate) fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Follows symlinks in the longest existing prefix of an absolute, clean path.
fn resolve(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match existing.file_name() {
            Some(name) => rest.push(name.to_owned()),
            None => return path.to_path_buf(),
        }
        if !existing.pop() {
            return path.to_path_buf();
        }
    }
}

/// The lowercased host of a URL, without a trailing dot.
pub(crate) fn url_host(raw: &str) -> Option<String> {
    let url = url::Url::parse(raw).ok()?;
    Some(url.host_str()?.trim_end_matches('.').to_ascii_lowercase())
}

/// Whether a WebFetch specifier matches a URL.
pub(crate) fn url_matches(spec: &str, raw: &str) -> bool {
    let domain = spec.strip_prefix("domain:").map(str::trim);
    let bare = (!spec.contains('/') && !spec.contains(':')).then_some(spec.trim());
    if let Some(domain) = domain.or(bare) {
        let Some(host) = url_host(raw) else { return false };
        let domain = domain.trim_end_matches('.').to_ascii_lowercase();
        return match domain.strip_prefix("*.") {
            Some(parent) => host.ends_with(&format!(".{parent}")),
            None => host == domain || host.ends_with(&format!(".{domain}")),
        };
    }
    wildcard(spec, raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_and_commands() {
        assert!(wildcard("a*c", "abbbc"));
        assert!(wildcard("*", ""));
        assert!(!wildcard("a*c", "abd"));
        assert!(command_matches("cargo test:*", "cargo  test -p x"));
        assert!(command_matches("cargo test:*", "cargo test"));
        assert!(!command_matches("cargo test:*", "cargo testify"));
        assert!(command_matches("go test *", "go test ./..."));
        assert!(!command_matches("git status", "git status --short"));
    }

    #[test]
    fn urls() {
        assert!(url_matches("domain:example.com", "https://docs.example.com/x"));
        assert!(url_matches("example.com", "https://EXAMPLE.com./x"));
        assert!(!url_matches("domain:example.com", "https://example.com.evil.net/"));
        assert!(!url_matches("domain:example.com", "https://notexample.com/"));
        assert!(!url_matches("domain:example.com", "https://example.com@evil.net/"));
        assert!(url_matches("https://api.github.com/*", "https://api.github.com/repos"));
    }
}
