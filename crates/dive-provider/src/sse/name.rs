//! [`EventName`]: an SSE event's type, shared instead of copied. A stream names most of its
//! events with a few names (`content_block_delta` thousands of times in a row), so the framer
//! keeps the last name and hands the next event of the same name a reference to it: a name is
//! allocated only when it differs from the one before.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// The `event:` name of an [`SseEvent`](crate::SseEvent): read it as a `&str` (it derefs to
/// one and compares with one); cloning it shares the text.
///
/// ```
/// use dive_provider::EventName;
/// let name = EventName::from("content_block_delta");
/// assert_eq!(name, "content_block_delta");
/// assert_eq!(name.as_str().len(), 19);
/// assert!(name.starts_with("content"));
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventName(Arc<str>);

impl EventName {
    /// The name as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for EventName {
    /// The empty name (a decoded event is never empty: it is `message` when the server sent
    /// none).
    fn default() -> Self {
        Self(Arc::from(""))
    }
}

impl Deref for EventName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for EventName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for EventName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for EventName {
    fn from(name: &str) -> Self {
        Self(Arc::from(name))
    }
}

impl From<String> for EventName {
    fn from(name: String) -> Self {
        Self(Arc::from(name))
    }
}

impl From<EventName> for String {
    fn from(name: EventName) -> Self {
        name.as_str().to_owned()
    }
}

impl PartialEq<str> for EventName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for EventName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for EventName {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl fmt::Debug for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_reads_compares_and_prints_as_its_text() {
        let name = EventName::from(String::from("ping"));
        assert_eq!(name, "ping");
        assert_eq!(name, String::from("ping"));
        assert_ne!(name, "pong");
        assert_eq!(format!("{name} {name:?}"), "ping \"ping\"");
        assert_eq!(String::from(name.clone()), "ping");
        assert!(EventName::default().is_empty());
    }

    #[test]
    fn a_clone_shares_the_text() {
        let name = EventName::from("content_block_delta");
        let copy = name.clone();
        assert!(std::ptr::eq(name.as_str(), copy.as_str()));
    }
}
