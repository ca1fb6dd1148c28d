//! Loading a project's `.env` without letting it redirect the user's key: a provider base URL
//! (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`, …) from a `.env` is applied only when the same
//! file also sets that provider's key and the environment does not; otherwise the key from
//! the environment would go to whatever server the file names, so the URL is ignored with a
//! warning. Every other variable loads as before (the environment wins over the file).

use std::collections::BTreeSet;
use std::io::Cursor;
use std::path::{Path, PathBuf};

/// A `.env` base URL that was not applied, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    /// The base-URL variable.
    pub var: String,
    /// The key variable that would have been sent to it.
    pub key_var: String,
}

/// What was read from the project's `.env`.
#[derive(Debug, Default)]
pub struct EnvFile {
    /// The file, when one was found.
    pub path: Option<PathBuf>,
    /// Variables set from it.
    pub loaded: BTreeSet<String>,
    /// Base URLs refused.
    pub ignored: Vec<Ignored>,
    /// Why the file could not be read, if it could not.
    pub error: Option<String>,
}

impl EnvFile {
    /// Finds `.env` in `dir` or the nearest parent that has one, and loads what is safe.
    pub fn load_from(dir: &Path) -> Self {
        let Some(path) = dir.ancestors().map(|d| d.join(".env")).find(|p| p.is_file()) else {
            return Self::default();
        };
        let pairs = match dotenvy::from_path_iter(&path).and_then(Iterator::collect::<Result<Vec<_>, _>>) {
            Ok(pairs) => pairs,
            Err(e) => return Self { error: Some(e.to_string()), path: Some(path), ..Self::default() },
        };
        let env = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty());
        let (apply, ignored) = decide(&pairs, &env, &provider_keys());
        let loaded = apply.iter().map(|(k, _)| k.clone()).collect();
        if let Err(e) = dotenvy::from_read(Cursor::new(serialize(&apply))) {
            return Self { error: Some(e.to_string()), path: Some(path), ignored, ..Self::default() };
        }
        Self { path: Some(path), loaded, ignored, error: None }
    }

    /// Warnings to print at start-up.
    pub fn warnings(&self) -> Vec<String> {
        let shown = self.path.as_deref().map_or_else(|| ".env".to_owned(), |p| p.display().to_string());
        let mut out: Vec<String> = self
            .ignored
            .iter()
            .map(|i| {
                format!(
                    "warning: ignored {var} from {shown}: it would send your {key} from the environment \
                     to another server. To use that endpoint, set {key} in the same file (and not in the \
                     environment), or set {var} in the environment yourself.",
                    var = i.var,
                    key = i.key_var,
                )
            })
            .collect();
        if let Some(e) = &self.error {
            out.push(format!("warning: {shown} was not loaded: {e}"));
        }
        out
    }

    /// Where a variable's value came from: `.env` (with the path) or the environment.
    pub fn origin(&self, var: &str) -> Option<String> {
        if self.loaded.contains(var) {
            let path = self.path.as_deref().map_or_else(String::new, |p| format!(" ({})", p.display()));
            return Some(format!(".env{path}"));
        }
        if self.ignored.iter().any(|i| i.var == var) {
            return std::env::var_os(var).map(|_| "environment (the .env value was ignored)".to_owned());
        }
        std::env::var_os(var).filter(|v| !v.is_empty()).map(|_| "environment".to_owned())
    }
}

/// `(base-URL variable, key variable)` of every provider that sends a key.
fn provider_keys() -> Vec<(String, String)> {
    dive::vendors()
        .into_iter()
        .filter_map(|v| v.key_env.map(|key| (v.base_url_env.to_owned(), key.to_owned())))
        .collect()
}

/// Splits the file's pairs into those to apply and the base URLs to refuse. `in_env` says
/// whether a variable is already set (and non-empty) in the environment.
fn decide(
    pairs: &[(String, String)],
    in_env: &dyn Fn(&str) -> bool,
    providers: &[(String, String)],
) -> (Vec<(String, String)>, Vec<Ignored>) {
    let in_file = |var: &str| pairs.iter().any(|(k, v)| k == var && !v.trim().is_empty());
    let mut apply = Vec::new();
    let mut ignored: Vec<Ignored> = Vec::new();
    for (key, value) in pairs {
        if in_env(key) {
            continue; // the environment wins; the file's value is never used
        }
        let guard = providers.iter().find(|(url, _)| url == key).map(|(_, k)| k.clone()).or_else(|| {
            key.strip_suffix("_BASE_URL").map(|prefix| format!("{prefix}_API_KEY")).filter(|k| in_env(k))
        });
        if let Some(key_var) = guard
            && (in_env(&key_var) || !in_file(&key_var))
        {
            if !ignored.iter().any(|i| &i.var == key) {
                ignored.push(Ignored { var: key.clone(), key_var });
            }
            continue;
        }
        apply.push((key.clone(), value.clone()));
    }
    (apply, ignored)
}

/// The pairs as `.env` text that reads back exactly: single-quoted (no substitution, no
/// escapes), a `'` written as `'\''`.
fn serialize(pairs: &[(String, String)]) -> String {
    pairs.iter().map(|(k, v)| format!("{k}='{}'\n", v.replace('\'', r"'\''"))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn providers() -> Vec<(String, String)> {
        pairs(&[("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"), ("OPENAI_BASE_URL", "OPENAI_API_KEY")])
    }

    #[test]
    fn a_base_url_without_its_key_in_the_file_is_refused() {
        let file = pairs(&[("ANTHROPIC_BASE_URL", "http://evil.example"), ("DIVE_MODEL", "claude-x")]);
        let env = |v: &str| v == "ANTHROPIC_API_KEY";
        let (apply, ignored) = decide(&file, &env, &providers());
        assert_eq!(apply, pairs(&[("DIVE_MODEL", "claude-x")]));
        assert_eq!(
            ignored,
            vec![Ignored { var: "ANTHROPIC_BASE_URL".into(), key_var: "ANTHROPIC_API_KEY".into() }]
        );
    }

    #[test]
    fn a_base_url_with_its_own_key_is_applied_unless_the_environment_key_wins() {
        let file = pairs(&[("OPENAI_BASE_URL", "http://localhost:1234"), ("OPENAI_API_KEY", "sk-local")]);
        let (apply, ignored) = decide(&file, &|_| false, &providers());
        assert_eq!((apply, ignored), (file.clone(), vec![]));
        // With the key also in the environment, the environment's key would be the one sent.
        let (apply, ignored) = decide(&file, &|v| v == "OPENAI_API_KEY", &providers());
        assert!(apply.is_empty());
        assert_eq!(ignored[0].var, "OPENAI_BASE_URL");
    }

    #[test]
    fn any_base_url_with_an_environment_key_is_guarded() {
        let file = pairs(&[("ACME_BASE_URL", "http://evil.example"), ("OTHER_BASE_URL", "http://ok")]);
        let (apply, ignored) = decide(&file, &|v| v == "ACME_API_KEY", &providers());
        assert_eq!(apply, pairs(&[("OTHER_BASE_URL", "http://ok")]));
        assert_eq!(ignored[0].key_var, "ACME_API_KEY");
    }

    #[test]
    fn serialized_values_read_back_exactly() {
        let values = pairs(&[
            ("A", "plain"),
            ("B", "it's $HOME and ${X} \\n \"q\""),
            ("C", "two\nlines"),
            ("D", ""),
            ("E", "  spaced  # not a comment"),
        ]);
        let text = serialize(&values);
        let back: Vec<(String, String)> =
            dotenvy::from_read_iter(Cursor::new(text)).collect::<Result<_, _>>().unwrap();
        assert_eq!(back, values);
    }
}
