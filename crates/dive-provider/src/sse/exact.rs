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
/// are decoded as serde_json decodes them, and a string holding a control character or a bad
/// escape, which is not JSON, is refused.
///
/// It reads bytes (an [`SseEvent`](crate::SseEvent)'s data, or a `str`), and checks as UTF-8
/// only the strings it hands out; the bytes it moves over are compared, never decoded.
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
    text: &'a [u8],
    at: usize,
}

impl<'a> ExactJson<'a> {
    /// A cursor at the start of `text` (a `str`, a byte slice or a `Vec<u8>`).
    #[must_use]
    pub fn new<T: AsRef<[u8]> + ?Sized>(text: &'a T) -> Self {
        Self { text: text.as_ref(), at: 0 }
    }

    fn rest_bytes(&self) -> &'a [u8] {
        self.text.get(self.at..).unwrap_or_default()
    }

    /// Moves over `literal`, byte for byte.
    #[inline]
    pub fn lit(&mut self, literal: &str) -> Option<()> {
        self.bytes(literal.as_bytes())
    }

    /// Moves over `bytes`, byte for byte ([`lit`](Self::lit) for bytes that need not be text).
    #[inline]
    pub(super) fn bytes(&mut self, bytes: &[u8]) -> Option<()> {
        self.rest_bytes().starts_with(bytes).then(|| self.at += bytes.len())
    }

    /// Moves over an object key without escapes (`"name"`, not the colon after it) and returns
    /// the name's bytes, so a caller can `match` on it (`b"index" => …`) instead of trying
    /// each key it knows in turn. The name is not checked as UTF-8: a key a caller knows is
    /// ASCII, and comparing it is the check.
    ///
    /// ```
    /// use dive_provider::ExactJson;
    /// let mut j = ExactJson::new(r#""index":3"#);
    /// assert_eq!(j.key(), Some(&b"index"[..]));
    /// assert!(j.lit(":").is_some());
    /// assert_eq!(ExactJson::new(r#""in\u0064ex":3"#).key(), None); // an escape: not exact
    /// ```
    pub fn key(&mut self) -> Option<&'a [u8]> {
        let body = self.rest_bytes().strip_prefix(b"\"")?;
        let len = plain_prefix(body);
        if *body.get(len)? != b'"' {
            return None;
        }
        let name = self.text.get(self.at + 1..self.at + 1 + len)?;
        self.at += len + 2;
        Some(name)
    }

    /// Moves over an unsigned integer written as JSON writes it (no sign, fraction, exponent
    /// or leading zero), of at most 18 digits.
    #[inline]
    pub fn uint(&mut self) -> Option<u64> {
        let rest = self.rest_bytes();
        // One pass reads the digits and their value; one digit past the most is read to see
        // that the number is too long (19 digits still fit a u64).
        let (mut digits, mut value) = (0, 0u64);
        for &b in rest.iter().take(MAX_DIGITS + 1) {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                break;
            }
            value = value * 10 + u64::from(digit);
            digits += 1;
        }
        if digits == 0 || digits > MAX_DIGITS || (digits > 1 && rest[0] == b'0') {
            return None;
        }
        if matches!(rest.get(digits), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.at += digits;
        Some(value)
    }

    /// Moves over a JSON string and returns its value: borrowed from the text when it holds no
    /// escape, decoded when it does. A string that is not UTF-8 is `None`.
    pub fn string(&mut self) -> Option<Cow<'a, str>> {
        let before = self.at;
        let value = match self.string_at()? {
            ExactStr::At(range) => std::str::from_utf8(self.text.get(range)?).ok().map(Cow::Borrowed),
            ExactStr::Decoded(text) => Some(Cow::Owned(text)),
        };
        if value.is_none() {
            self.at = before;
        }
        value
    }

    /// [`string`](Self::string) as an [`ExactStr`], which holds no borrow of the text: a
    /// caller that owns the text can then take the value out of its buffer. A value without
    /// escapes is not checked as UTF-8 here but where it is taken out ([`ExactStr`] says how);
    /// one with escapes that is not UTF-8 is `None`.
    #[inline]
    pub fn string_at(&mut self) -> Option<ExactStr> {
        let body = self.rest_bytes().strip_prefix(b"\"")?;
        let plain = plain_prefix(body);
        let start = self.at + 1;
        let (value, len) = match *body.get(plain)? {
            b'"' => (ExactStr::At(start..start + plain), plain),
            b'\\' => {
                let (value, len) = unescape(body, plain)?;
                (ExactStr::Decoded(value), len)
            }
            _ => return None, // a control character: not JSON
        };
        self.at = start + len + 1;
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

/// How many bytes `bytes` starts with that a JSON string holds as they are: the position of
/// the first quote, backslash or control character (or the length). Eight bytes are tested at
/// a time: in each lane of a word the tests flag the special bytes, and a flag can be wrong
/// only in a lane after a true one, so the lowest flagged lane is the first special byte.
fn plain_prefix(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    /// A high bit set in the lane of each byte that is zero (and only if one is).
    fn zero_lanes(x: u64) -> u64 {
        x.wrapping_sub(ONES) & !x & HIGH
    }
    /// The lanes of the special bytes of `word`, flagged as above.
    fn special(word: [u8; 8]) -> u64 {
        let x = u64::from_le_bytes(word);
        // A byte below 0x20 borrows from its lane when 0x20 is taken from it.
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        zero_lanes(x ^ (ONES * u64::from(b'"'))) | zero_lanes(x ^ (ONES * u64::from(b'\\'))) | control
    }
    let mut plain = 0;
    for chunk in bytes.chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else { break };
        let flags = special(word);
        if flags != 0 {
            return plain + (flags.trailing_zeros() / 8) as usize;
        }
        plain += 8;
    }
    if plain == bytes.len() {
        return plain;
    }
    // Fewer than eight bytes are left (a string that ends near the end of the text): the last
    // eight bytes are tested instead, which overlap bytes found plain, where no lane is flagged.
    if let Some(last) = bytes.len().checked_sub(8)
        && let Some(Ok(word)) = bytes.get(last..).map(<[u8; 8]>::try_from)
    {
        let flags = special(word);
        return if flags == 0 { bytes.len() } else { last + (flags.trailing_zeros() / 8) as usize };
    }
    let tail = &bytes[plain..];
    plain + tail.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(tail.len())
}

/// The value of the JSON string whose body (after its opening quote) `body` starts, when it
/// holds escapes, and the body's length up to its closing quote; `plain` bytes come before the
/// first backslash. Decoded as serde_json decodes it; `None` for what serde_json refuses (an
/// unknown escape, a surrogate escape without its pair, a control character, no closing
/// quote) and for bytes that are not UTF-8, which the caller then leaves to serde_json.
///
/// One pass finds the escapes and copies the runs between them; the value is checked as
/// UTF-8 once, whole. An escape writes a whole character, and no character's bytes can end
/// a broken sequence before it or continue one after it, so the whole is UTF-8 exactly when
/// every run is.
#[inline(never)]
fn unescape(body: &[u8], plain: usize) -> Option<(String, usize)> {
    let mut out = Vec::with_capacity(body.len().min(plain + 64));
    out.extend_from_slice(body.get(..plain)?);
    let mut i = plain;
    loop {
        match *body.get(i)? {
            b'"' => break,
            b'\\' => {
                i += match *body.get(i + 1)? {
                    b'u' => {
                        let (c, len) = unicode_escape(body, i)?;
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        len
                    }
                    escape => {
                        out.push(match escape {
                            b'"' | b'\\' | b'/' => escape,
                            b'b' => 0x08,
                            b'f' => 0x0C,
                            b'n' => b'\n',
                            b'r' => b'\r',
                            b't' => b'\t',
                            _ => return None,
                        });
                        2
                    }
                };
            }
            _ => return None, // a control character: not JSON
        }
        let run = plain_prefix(body.get(i..)?);
        out.extend_from_slice(body.get(i..i + run)?);
        i += run;
    }
    Some((String::from_utf8(out).ok()?, i))
}

/// The character of the `\uXXXX` escape at `at` (a surrogate pair takes two escapes) and how
/// many bytes it spans.
fn unicode_escape(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    let first = u32::from(hex4(bytes.get(at + 2..at + 6)?)?);
    match first {
        0xD800..=0xDBFF => {
            let second = match bytes.get(at + 6..at + 12)? {
                [b'\\', b'u', hex @ ..] => u32::from(hex4(hex)?),
                _ => return None,
            };
            if !(0xDC00..=0xDFFF).contains(&second) {
                return None;
            }
            Some((char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))?, 12))
        }
        _ => Some((char::from_u32(first)?, 6)), // a lone trailing surrogate is no char: None
    }
}

/// Four hex digits (either case) as a number.
fn hex4(digits: &[u8]) -> Option<u16> {
    digits.iter().try_fold(0u16, |n, &d| Some(n * 16 + (d as char).to_digit(16)? as u16))
}

/// A string [`ExactJson::string_at`] read: where it stands in the text (it held no escape), or
/// its decoded value.
///
/// A value that stands in the text is checked as UTF-8 when it is taken out, and decoded as an
/// event stream is (bytes that are not UTF-8 become U+FFFD), so reading a text exactly gives
/// what decoding the whole text first and then parsing it would.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExactStr {
    /// The value is these bytes of the text, as they stand.
    At(std::ops::Range<usize>),
    /// The value, decoded from its escapes.
    Decoded(String),
}

impl ExactStr {
    /// The value, borrowed from `text` (the text the cursor read) when it stands there and is
    /// UTF-8, else owned.
    ///
    /// ```
    /// use dive_provider::ExactJson;
    /// let data = r#"{"text":"hello"}"#;
    /// let mut j = ExactJson::new(data);
    /// j.lit(r#"{"text":"#).unwrap();
    /// assert_eq!(j.string_at().unwrap().as_str_in(data), "hello");
    /// ```
    #[must_use]
    pub fn as_str_in<'t, T: AsRef<[u8]> + ?Sized>(&'t self, text: &'t T) -> Cow<'t, str> {
        match self {
            ExactStr::At(range) => super::decode_text(text.as_ref().get(range.clone()).unwrap_or_default()),
            ExactStr::Decoded(value) => Cow::Borrowed(value),
        }
    }

    /// The value as a new `String`, copied out of `text` (the text the cursor read).
    #[must_use]
    pub fn to_string_in<T: AsRef<[u8]> + ?Sized>(&self, text: &T) -> String {
        self.as_str_in(text).into_owned()
    }

    /// The value, taken out of `text` (the text the cursor read), which is left empty: a value
    /// that stands in the text is cut out of its buffer — no allocation, the rest of the text
    /// dropped — and a decoded one is moved.
    ///
    /// ```
    /// use dive_provider::ExactJson;
    /// let mut data = br#"{"text":"hello"}"#.to_vec();
    /// let mut j = ExactJson::new(&data);
    /// j.lit(r#"{"text":"#).unwrap();
    /// let text = j.string_at().unwrap();
    /// assert_eq!(text.take_from(&mut data), "hello");
    /// assert!(data.is_empty());
    /// ```
    #[inline]
    pub fn take_from(self, text: &mut Vec<u8>) -> String {
        match self {
            ExactStr::At(range) => {
                // Moved to the front of the buffer, which then holds only the value.
                let end = range.end.min(text.len());
                let start = range.start.min(end);
                text.copy_within(start..end, 0);
                text.truncate(end - start);
                match String::from_utf8(std::mem::take(text)) {
                    Ok(value) => value,
                    Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
                }
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// Any string body built from plain text and every kind of escape (valid or not,
        /// surrogate pairs, lone or mismatched surrogates, either hex case) decodes exactly as
        /// serde_json decodes it, or is refused where serde_json refuses it.
        #[test]
        fn escapes_decode_as_serde_decodes_them(
            pieces in proptest::collection::vec((0u8..12, proptest::prelude::any::<char>(), 0u32..0x11_0000), 0..12),
        ) {
            let mut body = String::new();
            for (kind, c, code) in pieces {
                match kind {
                    0 => body.push_str(r"\n"),
                    1 => body.push_str(r#"\""#),
                    2 => body.push_str(r"\\"),
                    3 => body.push_str(r"\/\b\f\r\t"),
                    4 => body.push_str(&format!(r"\u{:04x}", code & 0xFFFF)),
                    5 => body.push_str(&format!(r"\u{:04X}", 0xD800 + (code & 0x7FF))), // any surrogate
                    6 => {
                        let mut units = [0u16; 2];
                        for unit in c.encode_utf16(&mut units) {
                            body.push_str(&format!(r"\u{unit:04x}"));
                        }
                    }
                    7 => body.push_str(r"\x"),
                    8 => body.push_str(r"\u12"),
                    _ if c == '"' || c == '\\' || c < ' ' => body.push('.'),
                    _ => body.push(c),
                }
            }
            let token = format!("\"{body}\"");
            let want = serde_json::from_str::<String>(&token).ok();
            let mut j = ExactJson::new(&token);
            let got = j.string().map(Cow::into_owned);
            proptest::prop_assert_eq!(&got, &want, "{}", token);
            proptest::prop_assert_eq!(j.is_end(), got.is_some());
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// The word-at-a-time scan stops exactly at the first byte a string cannot hold as it
        /// is (a quote, a backslash, a control character), wherever it falls in a word.
        #[test]
        fn the_plain_prefix_ends_where_the_first_special_byte_is(
            bytes in proptest::collection::vec(
                proptest::prop_oneof![12 => 0x23u8..=0x5B, 12 => 0x5Du8..=0xFF, 1 => proptest::prelude::any::<u8>()],
                0..64,
            ),
        ) {
            let first = bytes.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(bytes.len());
            proptest::prop_assert_eq!(plain_prefix(&bytes), first);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// A run of digits of up to 18 is read as serde_json reads it, and refused where
        /// serde_json refuses it (a leading zero) or where it goes on as another number (a
        /// fraction, an exponent); a longer run is left to serde. Whatever bytes follow it.
        #[test]
        fn unsigned_integers_read_as_serde_reads_them(
            digits in "[0-9]{0,22}",
            after in "[.eE,x}]?",
            tail in "[,x} \"/:;é]{0,9}",
        ) {
            let want = if digits.len() <= MAX_DIGITS && !matches!(after.as_str(), "." | "e" | "E") {
                serde_json::from_str::<u64>(&digits).ok()
            } else {
                None
            };
            let text = format!("{digits}{after}{tail}");
            let mut j = ExactJson::new(&text);
            proptest::prop_assert_eq!(j.uint(), want, "{}", text);
            proptest::prop_assert_eq!(j.position(), if want.is_some() { digits.len() } else { 0 });
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_decoded_only_where_a_value_is_taken_out() {
        // As decoding the whole data first (U+FFFD for what is not UTF-8) and then parsing it.
        let mut data = b"{\"text\":\"caf\xC3!\"}".to_vec();
        let mut j = ExactJson::new(&data);
        j.lit(r#"{"text":"#).unwrap();
        let value = j.string_at().unwrap();
        assert!(j.lit("}").is_some() && j.is_end());
        assert_eq!(value.as_str_in(&data), "caf\u{fffd}!");
        assert_eq!(value.to_string_in(&data), "caf\u{fffd}!");
        assert_eq!(value.take_from(&mut data), "caf\u{fffd}!");
        assert!(data.is_empty());
        let mut data = b"{\"t\":\"ok \xE6\x97\xA5\"}".to_vec();
        let mut j = ExactJson::new(&data);
        j.lit(r#"{"t":"#).unwrap();
        assert_eq!(j.string_at().unwrap().take_from(&mut data), "ok \u{65e5}");
        // What cannot be borrowed as a str is refused, and the cursor stays.
        let mut j = ExactJson::new(b"\"caf\xC3\"");
        assert_eq!(j.string(), None);
        assert_eq!(j.position(), 0);
        assert_eq!(ExactJson::new(b"\"\\n\xC3\"").string_at(), None);
        assert_eq!(ExactJson::new(b"\"\\n\xC3\"").string(), None);
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
