//! The typed form of one `chat.completion.chunk`: what a stream sends many times a second is
//! read into these structs (no `serde_json::Value` tree per chunk); the rare parts — usage,
//! an error object, OpenRouter's `reasoning_details`, Magistral's content-chunk arrays — stay
//! JSON values, read once.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::chat::usage::{ChatUsage, typed_cost};
use crate::dialect::Dialect;

/// One streamed chunk.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Chunk<'a> {
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub model: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub service_tier: Option<Cow<'a, str>>,
    #[serde(default)]
    pub usage: Option<ChatUsage>,
    #[serde(default)]
    pub error: Option<Value>,
    /// The first choice (the only one read; the others are skipped unparsed).
    #[serde(default, borrow, deserialize_with = "first")]
    pub choices: Option<Choice<'a>>,
}

/// Reads a JSON array as its first element, skipping the rest unread (no list is built for
/// the one element used); `null` and `[]` read as `None`.
pub(crate) fn first<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: de::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct First<T>(std::marker::PhantomData<T>);

    impl<'de, T: Deserialize<'de>> Visitor<'de> for First<T> {
        type Value = Option<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an array or null")
        }

        fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }

        fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
            Ok(None)
        }

        fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Option<T>, D::Error> {
            deserializer.deserialize_seq(self)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<T>, A::Error> {
            let first = seq.next_element::<T>()?;
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(first)
        }
    }

    deserializer.deserialize_option(First(std::marker::PhantomData))
}

/// A choice of a chunk (only the first is read).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Choice<'a> {
    #[serde(default)]
    pub delta: Option<Delta>,
    #[serde(default, borrow, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub finish_reason: Option<Cow<'a, str>>,
}

/// What a chunk adds to the message.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Delta {
    #[serde(default)]
    pub content: Option<DeltaContent>,
    #[serde(default)]
    pub refusal: Option<String>,
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCallDelta>>,
    #[serde(default)]
    pub reasoning_details: Option<Vec<Value>>,
    #[serde(default)]
    pub reasoning_content: Option<String>,
    #[serde(default)]
    pub reasoning: Option<String>,
}

/// `content` as text, or as an array of typed chunks (Magistral's thinking/text chunks);
/// anything else is skipped.
#[derive(Debug)]
pub(crate) enum DeltaContent {
    Text(String),
    Chunks(Vec<Value>),
    Other,
}

/// Read by the shape of the value, as it comes: no buffered copy of the content is made to
/// try one form after another.
impl<'de> Deserialize<'de> for DeltaContent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DeltaContentVisitor)
    }
}

struct DeltaContentVisitor;

impl<'de> Visitor<'de> for DeltaContentVisitor {
    type Value = DeltaContent;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("message content")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<DeltaContent, E> {
        Ok(DeltaContent::Text(text.to_owned()))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<DeltaContent, E> {
        Ok(DeltaContent::Text(text))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<DeltaContent, A::Error> {
        let mut chunks = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(chunk) = seq.next_element::<Value>()? {
            chunks.push(chunk);
        }
        Ok(DeltaContent::Chunks(chunks))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DeltaContent, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(DeltaContent::Other)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<DeltaContent, E> {
        Ok(DeltaContent::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<DeltaContent, E> {
        Ok(DeltaContent::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<DeltaContent, E> {
        Ok(DeltaContent::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<DeltaContent, E> {
        Ok(DeltaContent::Other)
    }

    fn visit_unit<E: de::Error>(self) -> Result<DeltaContent, E> {
        Ok(DeltaContent::Other)
    }
}

/// A streamed piece of a tool call, by its `index`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ToolCallDelta {
    #[serde(default)]
    pub index: Option<u64>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub function: Option<FunctionDelta>,
}

/// The function part of a tool-call piece.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct FunctionDelta {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub arguments: Option<String>,
}

impl Delta {
    /// The reasoning text, from the first of the dialect's reasoning fields that is set.
    pub(crate) fn take_reasoning(&mut self, dialect: &Dialect) -> Option<String> {
        dialect.reasoning_fields.iter().find_map(|field| match *field {
            "reasoning_content" => self.reasoning_content.take(),
            "reasoning" => self.reasoning.take(),
            _ => None,
        })
    }
}

/// Whether the typed form reads every reasoning field this dialect names (else the mapper
/// reads the chunk as a JSON value).
pub(crate) fn typed_reasoning(dialect: &Dialect) -> bool {
    dialect.reasoning_fields.iter().all(|f| matches!(*f, "reasoning_content" | "reasoning"))
}

/// Whether a whole response of this dialect is read typed ([`Chunk`] and its usage), or as
/// a JSON value (a reasoning or cost field the typed forms do not know).
pub(crate) fn typed_response(dialect: &Dialect) -> bool {
    typed_reasoning(dialect) && typed_cost(dialect)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_the_first_choice_is_read_and_the_rest_skipped() {
        let first_text = |json: &str| {
            let chunk: Chunk<'_> = serde_json::from_str(json).unwrap();
            chunk.choices.and_then(|c| c.delta).and_then(|d| d.content).map(|c| match c {
                DeltaContent::Text(t) => t,
                DeltaContent::Chunks(_) | DeltaContent::Other => "other".into(),
            })
        };
        assert_eq!(first_text(r#"{"choices":[{"delta":{"content":"a"}}]}"#).as_deref(), Some("a"));
        // A second choice of any shape is skipped, not read as a choice.
        let two = r#"{"choices":[{"delta":{"content":"a"}},{"delta":7,"odd":[1,{"x":null}]}],"id":"c"}"#;
        assert_eq!(first_text(two).as_deref(), Some("a"));
        assert_eq!(first_text(r#"{"choices":[]}"#), None);
        assert_eq!(first_text(r#"{"choices":null}"#), None);
        assert_eq!(first_text(r#"{"id":"c"}"#), None);
        assert!(serde_json::from_str::<Chunk<'_>>(r#"{"choices":{"delta":{}}}"#).is_err());
    }

    fn content(v: Value) -> Option<DeltaContent> {
        let from_text: Delta = serde_json::from_str(&json!({ "content": v }).to_string()).unwrap();
        let from_value = Delta::deserialize(&json!({ "content": v })).unwrap();
        assert_eq!(format!("{:?}", from_text.content), format!("{:?}", from_value.content));
        from_text.content
    }

    #[test]
    fn content_is_read_by_its_shape() {
        assert!(matches!(content(json!("hi \"there\"")), Some(DeltaContent::Text(t)) if t == "hi \"there\""));
        assert!(matches!(content(json!("")), Some(DeltaContent::Text(t)) if t.is_empty()));
        let chunks = json!([{"type": "text", "text": "a"}, {"type": "thinking", "thinking": []}]);
        assert!(
            matches!(content(chunks.clone()), Some(DeltaContent::Chunks(c)) if c == chunks.as_array().cloned().unwrap_or_default())
        );
        assert!(content(Value::Null).is_none());
        for other in [json!({"a": [1, {"b": 2}]}), json!(3), json!(-1), json!(1.5), json!(true)] {
            assert!(matches!(content(other), Some(DeltaContent::Other)));
        }
    }
}
