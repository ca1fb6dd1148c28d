//! What Ollama is sent, as typed serde structs: the `/api/chat` request body, borrowing its
//! strings from the [`ModelRequest`](dive_core::ModelRequest).
//!
//! [`Body`] keeps the history (with unanswered calls answered and reminders rendered, a copy
//! only when either changed something) and writes `messages` while it is serialized. The
//! request's free-form `provider_options` win over the fields this crate sets: an entry named
//! like a key of Ollama's `options` object (or an `options` object) goes into `options`, any
//! other replaces the top-level field of that name.

use std::borrow::Cow;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::encode::Messages;

/// The `/api/chat` request body.
#[derive(Debug)]
pub struct Body<'a> {
    pub(crate) model: &'a str,
    pub(crate) messages: Messages<'a>,
    /// The tool list ([`ToolOut`]s), encoded once per list.
    pub(crate) tools: Option<dive_provider::EncodedTools>,
    pub(crate) stream: bool,
    pub(crate) think: Option<Think>,
    pub(crate) format: Option<Format<'a>>,
    pub(crate) keep_alive: Option<&'a str>,
    pub(crate) options: Vec<(&'a str, OptionValue<'a>)>,
    /// Free-form top-level fields, written last; a field set here is not written twice.
    pub(crate) extra: Vec<(&'a str, &'a Value)>,
}

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ours = |key: &str| !self.extra.iter().any(|(k, _)| *k == key);
        let mut map = s.serialize_map(None)?;
        if ours("model") {
            map.serialize_entry("model", self.model)?;
        }
        if ours("messages") {
            map.serialize_entry("messages", &self.messages)?;
        }
        if let Some(tools) = self.tools.as_ref().filter(|_| ours("tools")) {
            map.serialize_entry("tools", tools)?;
        }
        if ours("stream") {
            map.serialize_entry("stream", &self.stream)?;
        }
        if let Some(think) = self.think.as_ref().filter(|_| ours("think")) {
            map.serialize_entry("think", think)?;
        }
        if let Some(format) = self.format.as_ref().filter(|_| ours("format")) {
            map.serialize_entry("format", format)?;
        }
        if let Some(keep_alive) = self.keep_alive.filter(|_| ours("keep_alive")) {
            map.serialize_entry("keep_alive", keep_alive)?;
        }
        if !self.options.is_empty() {
            map.serialize_entry("options", &OptionsOut(&self.options))?;
        }
        for (k, v) in &self.extra {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// The entries of `options`, in the order set (a later entry of the same key replaced an
/// earlier one when it was added).
struct OptionsOut<'o, 'a>(&'o [(&'a str, OptionValue<'a>)]);

impl Serialize for OptionsOut<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// Sets `key` in `options`, replacing an earlier value.
pub(crate) fn set_option<'a>(
    options: &mut Vec<(&'a str, OptionValue<'a>)>,
    key: &'a str,
    value: OptionValue<'a>,
) {
    match options.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => options.push((key, value)),
    }
}

/// One value of Ollama's `options` object.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub(crate) enum OptionValue<'a> {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Strings(&'a [String]),
    /// A free-form value from `provider_options`, as given.
    Raw(&'a Value),
}

/// `think`: on/off, or a level (`"low"`, `"medium"`, `"high"`).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub(crate) enum Think {
    Switch(bool),
    Level(&'static str),
}

/// `format`: `"json"`, or a JSON Schema.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub(crate) enum Format<'a> {
    Json(&'static str),
    Schema(&'a Value),
}

/// One `tools` entry.
#[derive(Debug, Serialize)]
pub(crate) struct ToolOut<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: FunctionDecl<'a>,
}

/// A tool's `function`.
#[derive(Debug, Serialize)]
pub(crate) struct FunctionDecl<'a> {
    pub name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub description: &'a str,
    pub parameters: &'a Value,
}

/// One message. Empty fields are left out, as the `ollama` SDK does (the server reads them
/// as empty).
#[derive(Debug, Serialize)]
pub(crate) struct MessageOut<'b> {
    pub role: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub content: Cow<'b, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Cow<'b, str>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<&'b str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<CallOut<'b>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<&'b str>,
}

/// One `tool_calls` entry of an assistant message.
#[derive(Debug, Serialize)]
pub(crate) struct CallOut<'b> {
    pub function: CallFunction<'b>,
}

/// A replayed call's `function`.
#[derive(Debug, Serialize)]
pub(crate) struct CallFunction<'b> {
    pub name: &'b str,
    pub arguments: Cow<'b, Value>,
}

/// `{}`: the arguments of a call whose input is not an object.
pub(crate) fn no_arguments<'b>() -> Cow<'b, Value> {
    Cow::Owned(Value::Object(Map::new()))
}
