//! `${VAR}` and `${VAR:-default}` expansion over an environment passed in explicitly
//! ([`Vars`]); only [`Vars::from_env`] reads the process environment.

use std::collections::BTreeMap;

/// The variables `${VAR}` expands from. Built explicitly ([`Vars::new`], [`Vars::with`]) or
/// from the process environment ([`Vars::from_env`], the one place it is read).
///
/// ```
/// use dive_mcp::Vars;
/// let vars = Vars::new([("HOME", "/home/me")]);
/// assert_eq!(vars.expand("${HOME}/bin:${MISSING:-none}").unwrap(), "/home/me/bin:none");
/// assert_eq!(vars.expand("${MISSING}").unwrap_err().to_string(), "${MISSING} is not set and has no default");
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Vars(BTreeMap<String, String>);

impl std::fmt::Debug for Vars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Values are often tokens: names only.
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl Vars {
    /// These variables.
    pub fn new<K: Into<String>, V: Into<String>>(vars: impl IntoIterator<Item = (K, V)>) -> Self {
        Self(vars.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }

    /// The process environment (variables whose name or value is not UTF-8 are left out).
    #[must_use]
    #[allow(clippy::disallowed_methods)] // the from_env constructor
    pub fn from_env() -> Self {
        Self(
            std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        )
    }

    /// Adds or replaces one variable.
    #[must_use]
    pub fn with(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.0.insert(name.into(), value.into());
        self
    }

    /// A variable's value.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Expands every `${VAR}` and `${VAR:-default}` in `text`. A set but empty variable takes
    /// the default, as in the shell's `:-`. Text without `${` is returned unchanged (a lone `$`
    /// stays).
    ///
    /// # Errors
    /// [`ExpandError`] for a variable that is unset without a default, an unterminated `${`
    /// or an empty name.
    pub fn expand(&self, text: &str) -> Result<String, ExpandError> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after.find('}').ok_or_else(|| ExpandError::Unterminated(text.to_owned()))?;
            let inner = &after[..end];
            let (name, default) = match inner.split_once(":-") {
                Some((name, default)) => (name, Some(default)),
                None => (inner, None),
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(ExpandError::BadName(inner.to_owned()));
            }
            match (self.get(name).filter(|v| !v.is_empty() || default.is_none()), default) {
                (Some(value), _) => out.push_str(value),
                (None, Some(default)) => out.push_str(default),
                (None, None) => return Err(ExpandError::Missing(name.to_owned())),
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// Why a `${…}` did not expand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ExpandError {
    /// The variable is unset and the reference has no `:-default`.
    #[error("${{{0}}} is not set and has no default")]
    Missing(String),
    /// `${` without its `}`.
    #[error("unterminated `${{` in `{0}`")]
    Unterminated(String),
    /// A name that is empty or not `[A-Za-z0-9_]+`.
    #[error("`${{{0}}}` is not a variable name (letters, digits and `_`)")]
    BadName(String),
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn expands_sets_defaults_and_refuses_the_rest() {
        let vars = Vars::new([("A", "1"), ("EMPTY", "")]);
        assert_eq!(vars.expand("x${A}y${A}").unwrap(), "x1y1");
        assert_eq!(vars.expand("${B:-two words}").unwrap(), "two words");
        assert_eq!(vars.expand("${EMPTY:-d}").unwrap(), "d");
        assert_eq!(vars.expand("${EMPTY}").unwrap(), "");
        assert_eq!(vars.expand("${B:-}").unwrap(), "");
        assert_eq!(vars.expand("$A costs $5").unwrap(), "$A costs $5");
        assert_eq!(vars.expand("${B}"), Err(ExpandError::Missing("B".into())));
        assert!(matches!(vars.expand("${A"), Err(ExpandError::Unterminated(_))));
        assert!(matches!(vars.expand("${}"), Err(ExpandError::BadName(_))));
        assert!(matches!(vars.expand("${A B}"), Err(ExpandError::BadName(_))));
    }

    #[test]
    fn debug_shows_names_only() {
        let vars = Vars::new([("TOKEN", "s3cret")]);
        let text = format!("{vars:?}");
        assert!(text.contains("TOKEN") && !text.contains("s3cret"), "{text}");
    }
}
