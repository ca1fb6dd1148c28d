//! JSON string literals written in more than one way, for property tests that hold a fast
//! byte-shape reader to serde: the same text, some characters escaped as `\u` units.

/// A JSON string literal (quotes included) for the characters of `text`: each one written as
/// serde_json writes it, or, where its flag is `true`, as `\u` escapes (a surrogate pair above
/// the basic plane). serde_json reads every form back as the same text.
///
/// ```
/// let literal = dive_test::json_string_escaping(&[('a', false), ('é', true), ('"', false)]);
/// assert_eq!(literal, r#""a\u00e9\"""#);
/// assert_eq!(serde_json::from_str::<String>(&literal).unwrap(), "aé\"");
/// ```
#[must_use]
pub fn json_string_escaping(text: &[(char, bool)]) -> String {
    let mut s = String::from("\"");
    for &(c, escape) in text {
        if escape {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                s.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            let quoted = serde_json::to_string(&c.to_string()).unwrap_or_default();
            s.push_str(quoted.get(1..quoted.len().saturating_sub(1)).unwrap_or_default());
        }
    }
    s.push('"');
    s
}
