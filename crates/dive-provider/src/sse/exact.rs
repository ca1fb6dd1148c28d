//! [`ExactJson`]: reads one exact byte shape of a JSON text, for the stream events a server
//! sends many times a second in the same bytes (a text delta), so a mapper can skip the JSON
//! parser for them. It accepts only what it was told to expect; anything else — another key
//! order, whitespace, an unknown field, a number written differently — makes it give up, and
//! the mapper parses the event with serde as before.

use std::borrow::Cow;

/// The most digits [`ExactJson::uint`] reads: every such number fits a `u64` (and a 64-bit
/// `usize`); a longer one is left to serde.
const MAX_DIGITS: usize = 18;

/// A cursor over a JSON text that moves only over exactly the bytes it is asked for.
///
/// Every method returns `None` (and leaves the cursor where it was) when the text does not
/// continue as asked. What it does accept, it reads as serde_json would: a string's escapes
/// are decoded by serde_json itself, and a string holding a control character or a bad escape,
/// which is not JSON, is refused.
///
/// ```
/// use dive_provider::ExactJson;
/// let mut j = ExactJson::new(r#"{"index":3,"text":"a \"b\""}"#);
/// assert!(j.lit(r#"{"index":"#).is_some());
/// assert_eq!(j.uint(), Some(3));
/// assert!(j.lit(r#","text":"#).is_some());
/// assert_eq!(j.string().as_deref(), Some("a \"b\""));
/// assert!(j.lit("}").is_some() && j.is_end());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ExactJson<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> ExactJson<'a> {
    /// A cursor at the start of `text`.
    #[must_use]
    pub fn new(text: &'a str) -> Self {
        Self { text, at: 0 }
    }

    fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or_default()
    }

    fn rest_bytes(&self) -> &'a [u8] {
        self.text.as_bytes().get(self.at..).unwrap_or_default()
    }

    /// Moves over `literal`, byte for byte.
    #[inline]
    pub fn lit(&mut self, literal: &str) -> Option<()> {
        self.rest_bytes().starts_with(literal.as_bytes()).then(|| self.at += literal.len())
    }

    /// Moves over an object key without escapes (`"name"`, not the colon after it) and returns
    /// the name, so a caller can `match` on it instead of trying each key it knows in turn.
    ///
    /// ```
    /// use dive_provider::ExactJson;
    /// let mut j = ExactJson::new(r#""index":3"#);
    /// assert_eq!(j.key(), Some("index"));
    /// assert!(j.lit(":").is_some());
    /// assert_eq!(ExactJson::new(r#""in\u0064ex":3"#).key(), None); // an escape: not exact
    /// ```
    pub fn key(&mut self) -> Option<&'a str> {
        let body = self.rest_bytes().strip_prefix(b"\"")?;
        let len = body.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if body[len] != b'"' {
            return None;
        }
        let name = self.text.get(self.at + 1..self.at + 1 + len)?;
        self.at += len + 2;
        Some(name)
    }

    /// Moves over an unsigned integer written as JSON writes it (no sign, fraction, exponent
    /// or leading zero), of at most 18 digits.
    pub fn uint(&mut self) -> Option<u64> {
        let rest = self.rest_bytes();
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > MAX_DIGITS || (digits > 1 && rest[0] == b'0') {
            return None;
        }
        if matches!(rest.get(digits), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        let value = rest[..digits].iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        self.at += digits;
        Some(value)
    }

    /// Moves over a JSON string and returns its value: borrowed from the text when it holds no
    /// escape, decoded by serde_json when it does.
    pub fn string(&mut self) -> Option<Cow<'a, str>> {
        Some(match self.string_at()? {
            ExactStr::At(range) => Cow::Borrowed(self.text.get(range)?),
            ExactStr::Decoded(text) => Cow::Owned(text),
        })
    }

    /// [`string`](Self::string) as an [`ExactStr`], which holds no borrow of the text: a
    /// caller that owns the text can then take the value out of its buffer.
    pub fn string_at(&mut self) -> Option<ExactStr> {
        let rest = self.rest();
        let body = rest.strip_prefix('"')?.as_bytes();
        let mut escaped = false;
        let mut i = 0;
        loop {
            match *body.get(i)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    i += 2; // the escape's first character is never a quote that ends the string
                }
                0..0x20 => return None, // a control character: not JSON
                _ => i += 1,
            }
        }
        let token = rest.get(..i + 2)?; // both quotes
        let value = if escaped {
            ExactStr::Decoded(serde_json::from_str::<String>(token).ok()?)
        } else {
            ExactStr::At(self.at + 1..self.at + 1 + i)
        };
        self.at += token.len();
        Some(value)
    }

    /// Whether the whole text has been read (trailing whitespace included: none is accepted).
    #[must_use]
    pub fn is_end(&self) -> bool {
        self.at == self.text.len()
    }

    /// Where the cursor is, in bytes from the start of the text.
    #[must_use]
    pub fn position(&self) -> usize {
        self.at
    }
}

/// A string [`ExactJson::string_at`] read: where it stands in the text (it held no escape), or
/// its decoded value.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExactStr {
    /// The value is these bytes of the text, as they stand.
    At(std::ops::Range<usize>),
    /// The value, decoded from its escapes.
    Decoded(String),
}

impl ExactStr {
    /// The value, borrowed: from `text` (the text the cursor read) when it stands there, else
    /// the decoded value.
    ///
    /// ```
    /// use dive_provider::ExactJson;
    /// let data = r#"{"text":"hello"}"#;
    /// let mut j = ExactJson::new(data);
    /// j.lit(r#"{"text":"#).unwrap();
    /// assert_eq!(j.string_at().unwrap().as_str_in(data), "hello");
    /// ```
    #[must_use]
    pub fn as_str_in<'t>(&'t self, text: &'t str) -> &'t str {
        match self {
            ExactStr::At(range) => text.get(range.clone()).unwrap_or_default(),
            ExactStr::Decoded(value) => value,
        }
    }

    /// The value as a new `String`, copied out of `text` (the text the cursor read).
    #[must_use]
    pub fn to_string_in(&self, text: &str) -> String {
        self.as_str_in(text).to_owned()
    }

    /// The value, taken out of `text` (the text the cursor read), which is left empty: a value
    /// that stands in the text is cut out of its buffer — no allocation, the rest of the text
    /// dropped — and a decoded one is moved.
    ///
    /// ```
    /// use dive_provider::ExactJson;
    /// let mut data = String::from(r#"{"text":"hello"}"#);
    /// let mut j = ExactJson::new(&data);
    /// j.lit(r#"{"text":"#).unwrap();
    /// let text = j.string_at().unwrap();
    /// assert_eq!(text.take_from(&mut data), "hello");
    /// assert!(data.is_empty());
    /// ```
    pub fn take_from(self, text: &mut String) -> String {
        match self {
            ExactStr::At(range) => {
                text.truncate(range.end);
                text.replace_range(..range.start, "");
                std::mem::take(text)
            }
            ExactStr::Decoded(value) => {
                text.clear();
                value
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_read_as_serde_reads_them() {
        for token in [
            r#""""#,
            r#""plain""#,
            r#""é 日本 🎉""#,
            r#""a \"q\" \\ \/ \b\f\n\r\t""#,
            r#""\u00e9\ud83c\udf89""#,
            r#""\\""#,
        ] {
            let want: String = serde_json::from_str(token).unwrap();
            let mut j = ExactJson::new(token);
            assert_eq!(j.string().as_deref(), Some(want.as_str()), "{token}");
            assert!(j.is_end(), "{token}");
        }
    }

    #[test]
    fn what_is_not_json_is_refused_and_the_cursor_stays() {
        for token in ["\"a\nb\"", r#""\x""#, r#""\ud800""#, r#""open"#, r#""\"#, "plain", "\"tab\t\""] {
            let mut j = ExactJson::new(token);
            assert_eq!(j.string(), None, "{token:?}");
            assert_eq!(j.position(), 0);
        }
        for number in ["01", "-1", "1.5", "1e3", "", "x", "1234567890123456789"] {
            let mut j = ExactJson::new(number);
            assert_eq!(j.uint(), None, "{number}");
            assert_eq!(j.position(), 0);
        }
        let mut j = ExactJson::new("120,");
        assert_eq!(j.uint(), Some(120));
        assert!(j.lit(",").is_some() && j.is_end());
        assert!(ExactJson::new("0").uint() == Some(0));
        let mut j = ExactJson::new(r#"{"a":1}"#);
        assert_eq!(j.lit(r#"{"b""#), None);
        assert_eq!(j.position(), 0);
    }
}
