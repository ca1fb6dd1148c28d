//! Errors: a rule that does not parse, settings that cannot be loaded.

use std::path::PathBuf;

/// A permission rule could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleError {
    /// The rule text is empty.
    #[error("empty permission rule")]
    Empty,
    /// `Tool(specifier` without the closing parenthesis, or text after it.
    #[error("malformed permission rule {0:?}: expected Tool or Tool(specifier)")]
    Malformed(String),
    /// The tool-name glob is invalid.
    #[error("invalid tool pattern in rule {rule:?}: {message}")]
    BadPattern {
        /// The rule.
        rule: String,
        /// What is wrong.
        message: String,
    },
}

/// Settings could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// A settings file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A settings file is not valid JSON of the expected shape.
    #[error("invalid settings in {}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
    /// A rule in the settings does not parse.
    #[error(transparent)]
    Rule(#[from] RuleError),
}
