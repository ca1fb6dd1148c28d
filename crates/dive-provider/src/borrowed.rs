//! Reading optional strings of a response without copying them.
//!
//! serde borrows a `Cow<'a, str>` from the input only when it is a field's whole type: inside
//! an `Option` it always allocates a `String`. A stream chunk's `id`, `model` and stop reason
//! are such fields, read many times a second; [`optional_str`] borrows them.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer};

/// Deserializes an `Option<Cow<str>>` borrowed from the input when the string holds no
/// escape (an escaped one is unescaped into an owned `String`); `null` reads as `None`. Use it
/// with `#[serde(borrow, default, deserialize_with = "...")]`.
///
/// ```
/// use std::borrow::Cow;
///
/// #[derive(serde::Deserialize)]
/// struct Chunk<'a> {
///     #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
///     id: Option<Cow<'a, str>>,
/// }
///
/// let chunk: Chunk<'_> = serde_json::from_str(r#"{"id":"chatcmpl-1"}"#).unwrap();
/// assert!(matches!(chunk.id, Some(Cow::Borrowed("chatcmpl-1"))));
/// let chunk: Chunk<'_> = serde_json::from_str(r#"{"id":"a\"b"}"#).unwrap();
/// assert!(matches!(chunk.id, Some(Cow::Owned(ref s)) if s == "a\"b"));
/// ```
///
/// # Errors
/// A value that is neither a string nor `null`.
pub fn optional_str<'de: 'a, 'a, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'a, str>>, D::Error> {
    #[derive(Deserialize)]
    struct Borrowed<'a>(#[serde(borrow)] Cow<'a, str>);
    Ok(Option::<Borrowed<'a>>::deserialize(deserializer)?.map(|b| b.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Fields<'a> {
        #[serde(borrow, default, deserialize_with = "optional_str")]
        a: Option<Cow<'a, str>>,
        #[serde(borrow, default, deserialize_with = "optional_str")]
        b: Option<Cow<'a, str>>,
    }

    #[test]
    fn borrows_plain_strings_and_owns_escaped_ones() {
        let f: Fields<'_> = serde_json::from_str(r#"{"a":"plain","b":"tab\there"}"#).unwrap();
        assert!(matches!(f.a, Some(Cow::Borrowed("plain"))));
        assert!(matches!(f.b, Some(Cow::Owned(ref s)) if s == "tab\there"));
    }

    #[test]
    fn null_and_absent_read_as_none() {
        let f: Fields<'_> = serde_json::from_str(r#"{"a":null}"#).unwrap();
        assert!(f.a.is_none() && f.b.is_none());
    }

    #[test]
    fn a_value_that_is_not_a_string_is_an_error() {
        assert!(serde_json::from_str::<Fields<'_>>(r#"{"a":7}"#).is_err());
    }
}
