//! [`EventName`]: an SSE event's type, shared instead of copied. A stream names most of its
//! events with a few names (`content_block_delta` thousands of times in a row): the names the
//! supported APIs send are static text, which costs nothing to copy or drop, and any other name
//! is allocated once and shared by reference count (the framer hands the next event of the same
//! name a reference to it).

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// The event types the supported APIs send (and `message`, the type of an unnamed event).
/// A name found here is handed out as static text; the list is a cache, not a filter.
const KNOWN: &[&str] = &[
    "message",
    "ping",
    "error",
    // Anthropic Messages
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    // OpenAI Responses
    "response.created",
    "response.queued",
    "response.in_progress",
    "response.output_item.added",
    "response.output_item.done",
    "response.content_part.added",
    "response.content_part.done",
    "response.output_text.delta",
    "response.output_text.done",
    "response.output_text.annotation.added",
    "response.refusal.delta",
    "response.refusal.done",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_part.done",
    "response.reasoning_summary_text.delta",
    "response.reasoning_summary_text.done",
    "response.completed",
    "response.incomplete",
    "response.failed",
];

/// The `event:` name of an [`SseEvent`](crate::SseEvent): read it as a `&str` (it derefs to
/// one and compares with one); cloning it never copies the text (a well-known name is static
/// text, any other is shared).
///
/// ```
/// use dive_provider::EventName;
/// let name = EventName::from("content_block_delta");
/// assert_eq!(name, "content_block_delta");
/// assert_eq!(name.as_str().len(), 19);
/// assert!(name.starts_with("content"));
/// assert_eq!(EventName::from("vendor.custom"), "vendor.custom");
/// ```
#[derive(Clone)]
pub struct EventName(Repr);

#[derive(Clone)]
enum Repr {
    /// A name of [`KNOWN`] (or the empty name): copied and dropped for free.
    Static(&'static str),
    /// Any other name, allocated once.
    Shared(Arc<str>),
}

impl EventName {
    /// The name as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Static(name) => name,
            Repr::Shared(name) => name,
        }
    }

    /// The name a field value gives: static when well known, else allocated (bytes that are
    /// not UTF-8 become U+FFFD).
    pub(crate) fn from_bytes(bytes: &[u8]) -> Self {
        match KNOWN.iter().find(|name| name.as_bytes() == bytes) {
            Some(name) => Self(Repr::Static(name)),
            None => Self(Repr::Shared(Arc::from(String::from_utf8_lossy(bytes)))),
        }
    }
}

impl Default for EventName {
    /// The empty name (a decoded event is never empty: it is `message` when the server sent
    /// none).
    fn default() -> Self {
        Self(Repr::Static(""))
    }
}

impl Deref for EventName {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for EventName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for EventName {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for EventName {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for EventName {}

impl Hash for EventName {
    /// As the text hashes, so a `HashMap<EventName, _>` is looked up by `&str`.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for EventName {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for EventName {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl From<&str> for EventName {
    fn from(name: &str) -> Self {
        Self::from_bytes(name.as_bytes())
    }
}

impl From<String> for EventName {
    fn from(name: String) -> Self {
        Self::from(name.as_str())
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
        for text in ["content_block_delta", "vendor.custom_event"] {
            let name = EventName::from(text);
            let copy = name.clone();
            assert!(std::ptr::eq(name.as_str(), copy.as_str()), "{text}");
        }
    }

    #[test]
    fn well_known_names_are_static_and_others_are_allocated() {
        assert!(matches!(EventName::from("content_block_delta").0, Repr::Static(_)));
        assert!(matches!(EventName::from(String::from("response.output_text.delta")).0, Repr::Static(_)));
        assert!(matches!(EventName::from_bytes(b"message").0, Repr::Static(_)));
        assert!(matches!(EventName::from("content_block_deltas").0, Repr::Shared(_)));
        assert!(matches!(EventName::from_bytes(b"caf\xC3").0, Repr::Shared(_)));
        assert_eq!(EventName::from_bytes(b"caf\xC3"), "caf\u{FFFD}");
    }

    #[test]
    fn equality_order_and_hash_follow_the_text_whatever_the_storage() {
        use std::collections::hash_map::DefaultHasher;
        let hash = |name: &EventName| {
            let mut h = DefaultHasher::new();
            name.hash(&mut h);
            h.finish()
        };
        let known = EventName::from("ping");
        let shared = EventName(Repr::Shared(Arc::from("ping")));
        assert_eq!(known, shared);
        assert_eq!(hash(&known), hash(&shared));
        assert_eq!(known.cmp(&shared), Ordering::Equal);
        let (error, custom) = (EventName::from("error"), EventName::from("zzz.custom"));
        assert!(error < custom);
        let mut names = std::collections::HashSet::new();
        names.insert(known);
        assert!(names.contains("ping"));
    }
}
