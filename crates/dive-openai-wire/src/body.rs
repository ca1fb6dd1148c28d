//! [`Body`]: the request body of both OpenAI APIs as typed structs serialized straight from
//! the request, and [`TopLevel`], the one rule for its top-level keys: a free-form
//! `provider_options` entry replaces the field of the same name, and a key the dialect
//! rejects is never written. A dialect with a [`BodyHook`](crate::BodyHook) gets the fields
//! as a JSON map to edit (the one place a `Value` tree of the body is built).

use dive_core::ModelRequest;
use dive_provider::EncodedTools;
use serde::ser::{Error as _, SerializeMap};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::dialect::Dialect;

/// A request body of either OpenAI API, ready to serialize.
#[derive(Debug)]
#[non_exhaustive]
pub enum Body<'a> {
    /// A Chat Completions body, serialized from the request.
    Chat(crate::chat::ChatBody<'a>),
    /// A Responses API body, serialized from the request.
    Responses(crate::responses::ResponsesBody<'a>),
    /// A body the dialect's hook edited: its fields, and the tool list sent pre-encoded.
    Edited {
        /// Every field but `tools`.
        fields: Map<String, Value>,
        /// The encoded `tools` array.
        tools: Option<EncodedTools>,
    },
}

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Chat(b) => b.serialize(s),
            Self::Responses(b) => b.serialize(s),
            Self::Edited { fields, tools } => {
                let mut map = s.serialize_map(None)?;
                for (k, v) in fields {
                    map.serialize_entry(k, v)?;
                }
                if let Some(tools) = tools {
                    map.serialize_entry("tools", tools)?;
                }
                map.end()
            }
        }
    }
}

impl<'a> Body<'a> {
    /// Runs the dialect's body hook, if any: the typed body (built without its tools, see
    /// [`Body::tools_for`]) becomes the JSON map the hook edits. Tools the hook (or
    /// `provider_options`) set themselves win.
    pub(crate) fn finish(
        self,
        request: &ModelRequest,
        dialect: &Dialect,
        tools: Option<EncodedTools>,
    ) -> Result<Self, serde_json::Error> {
        let Some(hook) = &dialect.body_hook else { return Ok(self) };
        let Value::Object(mut fields) = serde_json::to_value(&self)? else {
            return Err(serde_json::Error::custom("a request body is a JSON object"));
        };
        hook.apply(request, &mut fields);
        let tools =
            tools.filter(|_| !fields.contains_key("tools") && !dialect.unsupported.contains(&"tools"));
        Ok(Self::Edited { fields, tools })
    }
}

impl Body<'_> {
    /// The tools a typed body carries itself: none when the dialect's hook edits the body
    /// (the hook never sees the tool list; [`Body::finish`] adds it after).
    pub(crate) fn tools_for(dialect: &Dialect, tools: &Option<EncodedTools>) -> Option<EncodedTools> {
        if dialect.body_hook.is_some() { None } else { tools.clone() }
    }
}

/// Writes top-level fields: skips a key `provider_options` sets or the dialect rejects, and
/// [`TopLevel::end`] adds the options themselves (minus rejected keys).
pub(crate) struct TopLevel<'a, M> {
    map: M,
    extra: &'a Map<String, Value>,
    unsupported: &'static [&'static str],
}

impl<'a, M: SerializeMap> TopLevel<'a, M> {
    pub(crate) fn new(map: M, extra: &'a Map<String, Value>, unsupported: &'static [&'static str]) -> Self {
        Self { map, extra, unsupported }
    }

    fn writes(&self, key: &str) -> bool {
        !self.extra.contains_key(key) && !self.unsupported.contains(&key)
    }

    /// Writes `key` unless an option or the dialect takes it.
    pub(crate) fn put<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), M::Error> {
        if self.writes(key) { self.map.serialize_entry(key, value) } else { Ok(()) }
    }

    /// Writes `key` when `value` is set.
    pub(crate) fn opt<T: Serialize>(&mut self, key: &str, value: Option<T>) -> Result<(), M::Error> {
        match value {
            Some(v) => self.put(key, &v),
            None => Ok(()),
        }
    }

    /// Writes the free-form options and ends the map.
    pub(crate) fn end(mut self) -> Result<M::Ok, M::Error> {
        for (k, v) in self.extra {
            if !self.unsupported.contains(&k.as_str()) {
                self.map.serialize_entry(k, v)?;
            }
        }
        self.map.end()
    }
}
