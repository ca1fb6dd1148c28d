//! [`Blocks`]: a message's content blocks, shared between the copies of a message.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::Content;

/// The blocks of one [`Message`](super::Message): a `Vec<Content>` that copies of the message
/// share.
///
/// An agent keeps one message in several places at once (the history the model sees, the
/// turn's output, the response's items, the saved turn); cloning a `Blocks` only counts one
/// more owner, so none of those places copies the blocks. Reading goes through
/// [`Deref`] to the `Vec<Content>`. Writing goes through [`DerefMut`], which copies the list
/// first when another message still shares it (copy-on-write), so a change to one message
/// never shows in another.
///
/// ```
/// use dive_core::{Content, Message};
///
/// let original = Message::user("hi");
/// let mut copy = original.clone(); // shares the blocks
/// copy.content.push(Content::text("there")); // copies them before the write
/// assert_eq!(original.content.len(), 1);
/// assert_eq!(copy.content.len(), 2);
/// ```
#[derive(Clone, Default)]
pub struct Blocks(Option<Arc<Vec<Content>>>);

/// What an empty `Blocks` reads as: an empty list needs no allocation.
static EMPTY: Vec<Content> = Vec::new();

impl Blocks {
    /// No blocks.
    #[must_use]
    pub const fn new() -> Self {
        Self(None)
    }

    /// The blocks as an owned list: moved out when no other message shares them, copied
    /// otherwise.
    #[must_use]
    pub fn into_vec(self) -> Vec<Content> {
        self.0.map(Arc::unwrap_or_clone).unwrap_or_default()
    }

    /// Whether `self` and `other` are the same shared list (a copy of one message's blocks):
    /// a cheap sufficient check for equality.
    #[must_use]
    pub fn ptr_eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}

impl Deref for Blocks {
    type Target = Vec<Content>;

    fn deref(&self) -> &Vec<Content> {
        self.0.as_deref().unwrap_or(&EMPTY)
    }
}

impl DerefMut for Blocks {
    /// The list to change: this message's own (copied first when another message shares it).
    fn deref_mut(&mut self) -> &mut Vec<Content> {
        Arc::make_mut(self.0.get_or_insert_with(Arc::default))
    }
}

impl From<Vec<Content>> for Blocks {
    fn from(blocks: Vec<Content>) -> Self {
        if blocks.is_empty() { Self(None) } else { Self(Some(Arc::new(blocks))) }
    }
}

impl From<Blocks> for Vec<Content> {
    fn from(blocks: Blocks) -> Self {
        blocks.into_vec()
    }
}

impl FromIterator<Content> for Blocks {
    fn from_iter<I: IntoIterator<Item = Content>>(iter: I) -> Self {
        Vec::from_iter(iter).into()
    }
}

impl Extend<Content> for Blocks {
    fn extend<I: IntoIterator<Item = Content>>(&mut self, iter: I) {
        (**self).extend(iter);
    }
}

impl IntoIterator for Blocks {
    type Item = Content;
    type IntoIter = std::vec::IntoIter<Content>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<'a> IntoIterator for &'a Blocks {
    type Item = &'a Content;
    type IntoIter = std::slice::Iter<'a, Content>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut Blocks {
    type Item = &'a mut Content;
    type IntoIter = std::slice::IterMut<'a, Content>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl PartialEq for Blocks {
    fn eq(&self, other: &Self) -> bool {
        self.ptr_eq(other) || **self == **other
    }
}

impl PartialEq<Vec<Content>> for Blocks {
    fn eq(&self, other: &Vec<Content>) -> bool {
        **self == *other
    }
}

impl PartialEq<[Content]> for Blocks {
    fn eq(&self, other: &[Content]) -> bool {
        **self == *other
    }
}

impl fmt::Debug for Blocks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for Blocks {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Blocks {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<Content>::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_shares_until_one_side_writes() {
        let a: Blocks = vec![Content::text("a")].into();
        let mut b = a.clone();
        assert!(a.ptr_eq(&b));
        b.push(Content::text("b"));
        assert!(!a.ptr_eq(&b));
        assert_eq!(a.len(), 1);
        assert_eq!(b.len(), 2);
        assert_eq!(a, vec![Content::text("a")]);
    }

    #[test]
    fn a_sole_owner_writes_in_place_and_moves_out() {
        let mut a: Blocks = vec![Content::text("a")].into();
        let before = a.as_ptr();
        a[0] = Content::text("changed");
        assert_eq!(a.as_ptr(), before);
        let v = a.into_vec();
        assert_eq!(v.as_ptr(), before);
    }

    #[test]
    fn empty_blocks_read_as_an_empty_list_and_grow_on_write() {
        let mut e = Blocks::new();
        assert!(e.is_empty());
        assert_eq!(e, Blocks::from(Vec::new()));
        e.push(Content::text("x"));
        assert_eq!(e.len(), 1);
    }

    #[test]
    fn json_is_the_plain_list() {
        let a: Blocks = vec![Content::text("hi")].into();
        let json = serde_json::to_string(&a).unwrap();
        assert_eq!(json, r#"[{"type":"text","text":"hi"}]"#);
        let back: Blocks = serde_json::from_str(&json).unwrap();
        assert_eq!(back, a);
        let empty: Blocks = serde_json::from_str("[]").unwrap();
        assert!(empty.is_empty());
    }
}
