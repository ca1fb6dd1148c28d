//! Lenient typed readers for the small objects a vendor reports on the side (usage counters,
//! their details): read as they come, with no JSON tree built, and a field that is not what
//! it should be reads as absent — never as an error that loses the rest of the response.
//!
//! ```
//! use dive_provider::lenient::{Count, ObjectReader, read_object};
//! use serde::de::MapAccess;
//!
//! #[derive(Default)]
//! struct Tokens { input: Option<u64> }
//! struct TokensReader;
//! impl ObjectReader for TokensReader {
//!     type Out = Tokens;
//!     const KEYS: &'static [&'static str] = &["input_tokens"];
//!     fn field<'de, A: MapAccess<'de>>(&self, out: &mut Tokens, _key: usize, map: &mut A) -> Result<(), A::Error> {
//!         out.input = map.next_value::<Count>()?.0;
//!         Ok(())
//!     }
//! }
//! let mut de = serde_json::Deserializer::from_str(r#"{"input_tokens": 7, "other": [1]}"#);
//! assert_eq!(read_object(&mut de, TokensReader).unwrap().input, Some(7));
//! let mut de = serde_json::Deserializer::from_str(r#"{"input_tokens": "seven"}"#);
//! assert_eq!(read_object(&mut de, TokensReader).unwrap().input, None);
//! ```

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// How one kind of object is read, field by field.
pub trait ObjectReader {
    /// What it reads into (what a value that is not an object reads as, too).
    type Out: Default;
    /// The field names it reads; any other is skipped.
    const KEYS: &'static [&'static str];
    /// Reads the value of the field `KEYS[key]` from `map` into `out`.
    ///
    /// # Errors
    /// Only what `map` fails with (malformed JSON).
    fn field<'de, A: MapAccess<'de>>(
        &self,
        out: &mut Self::Out,
        key: usize,
        map: &mut A,
    ) -> Result<(), A::Error>;
    /// Called when the value is an object, before its fields.
    fn object(&self, _out: &mut Self::Out) {}
}

/// Reads an object with `reader`; any other value reads as `R::Out::default()`.
///
/// # Errors
/// Only malformed input.
pub fn read_object<'de, D: Deserializer<'de>, R: ObjectReader>(
    deserializer: D,
    reader: R,
) -> Result<R::Out, D::Error> {
    deserializer.deserialize_any(ObjectVisitor(reader))
}

struct ObjectVisitor<R>(R);

impl<'de, R: ObjectReader> Visitor<'de> for ObjectVisitor<R> {
    type Value = R::Out;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<R::Out, A::Error> {
        let mut out = R::Out::default();
        self.0.object(&mut out);
        while let Some(key) = map.next_key_seed(KeyIn(R::KEYS))? {
            match key {
                Some(key) => self.0.field(&mut out, key, &mut map)?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<R::Out, A::Error> {
        skip_seq(seq)?;
        Ok(R::Out::default())
    }

    fn visit_unit<E: de::Error>(self) -> Result<R::Out, E> {
        Ok(R::Out::default())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<R::Out, E> {
        Ok(R::Out::default())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<R::Out, E> {
        Ok(R::Out::default())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<R::Out, E> {
        Ok(R::Out::default())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<R::Out, E> {
        Ok(R::Out::default())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<R::Out, E> {
        Ok(R::Out::default())
    }
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A field name as its place in a list of names (no copy of the name is made).
struct KeyIn(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for KeyIn {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeyIn {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|k| *k == key))
    }
}

/// A count: a non-negative integer, else absent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count(pub Option<u64>);

impl<'de> serde::Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Count(deserializer.deserialize_any(ScalarVisitor)?.and_then(|s| match s {
            Scalar::Unsigned(u) => Some(u),
            _ => None,
        })))
    }
}

/// An amount: any number, else absent.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Amount(pub Option<f64>);

impl<'de> serde::Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[allow(clippy::cast_precision_loss)]
        Ok(Amount(deserializer.deserialize_any(ScalarVisitor)?.and_then(|s| match s {
            Scalar::Unsigned(u) => Some(u as f64),
            Scalar::Signed(i) => Some(i as f64),
            Scalar::Float(f) => Some(f),
            Scalar::Text(_) => None,
        })))
    }
}

/// A text: a string, else absent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text(pub Option<String>);

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Text(deserializer.deserialize_any(ScalarVisitor)?.and_then(|s| match s {
            Scalar::Text(t) => Some(t),
            _ => None,
        })))
    }
}

enum Scalar {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Text(String),
}

/// Any JSON value; the scalar when it is a number or a string.
struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Option<Scalar>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(Scalar::Unsigned(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(u64::try_from(v).map_or(Scalar::Signed(v), Scalar::Unsigned)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Some(Scalar::Float(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Scalar::Text(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Scalar::Text(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        skip_seq(seq)?;
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn scalars_read_what_they_are_and_nothing_else() {
        let read = |v: Value| {
            let text = v.to_string();
            let counts = (
                serde_json::from_str::<Count>(&text).unwrap(),
                serde_json::from_value::<Count>(v.clone()).unwrap(),
            );
            assert_eq!(counts.0, counts.1);
            (
                counts.0.0,
                serde_json::from_str::<Amount>(&text).unwrap().0,
                serde_json::from_str::<Text>(&text).unwrap().0,
            )
        };
        assert_eq!(read(json!(7)), (Some(7), Some(7.0), None));
        assert_eq!(read(json!(-2)), (None, Some(-2.0), None));
        assert_eq!(read(json!(1.5)), (None, Some(1.5), None));
        assert_eq!(read(json!("x")), (None, None, Some("x".to_owned())));
        for other in [json!(null), json!(true), json!([1, [2]]), json!({"a": {"b": 1}})] {
            assert_eq!(read(other), (None, None, None));
        }
    }
}
