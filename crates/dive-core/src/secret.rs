//! Secrets (API keys, tokens) that never show up in `Debug`, `Display`, logs or serialized output.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A secret string. `Debug`, `Display` and `Serialize` print `[redacted]`; only
/// [`Secret::expose`] gives the value, and only code that sends it should call it.
///
/// ```
/// use dive_core::Secret;
/// let key = Secret::new("sk-live-123");
/// assert_eq!(format!("{key:?}"), "Secret([redacted])");
/// assert_eq!(key.to_string(), "[redacted]");
/// assert_eq!(serde_json::to_string(&key).unwrap(), "\"[redacted]\"");
/// assert_eq!(key.expose(), "sk-live-123");
/// ```
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The secret value. Call only where it is sent.
    #[must_use]
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when the secret is the empty string.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Self {
        Self(s)
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

impl Serialize for Secret {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("[redacted]")
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Self)
    }
}

/// Replaces every occurrence of each non-empty secret in `text` with `[redacted]`. Providers
/// pass error bodies and URLs through this before they reach an error or a log.
#[must_use]
pub fn redact(text: &str, secrets: &[&Secret]) -> String {
    let mut out = text.to_owned();
    for s in secrets {
        if s.0.len() >= 4 {
            out = out.replace(&s.0, "[redacted]");
        }
    }
    out
}
