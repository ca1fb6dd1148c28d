//! The typed form of one `chat.completion.chunk`: what a stream sends many times a second is
//! read into these structs (no `serde_json::Value` tree per chunk); the rare parts — usage,
//! an error object, OpenRouter's `reasoning_details`, Magistral's content-chunk arrays — stay
//! JSON values, read once.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::dialect::Dialect;

/// One streamed chunk.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Chunk<'a> {
    #[serde(default, borrow)]
    pub id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub model: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub service_tier: Option<Cow<'a, str>>,
    #[serde(default)]
    pub usage: Option<Value>,
    #[serde(default)]
    pub error: Option<Value>,
    #[serde(default, borrow)]
    pub choices: Option<Vec<Choice<'a>>>,
}

/// A choice of a chunk (only the first is read).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Choice<'a> {
    #[serde(default)]
    pub delta: Option<Delta>,
    #[serde(default, borrow)]
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

/// `content` as text, or as an array of typed chunks (Magistral's thinking/text chunks).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum DeltaContent {
    Text(String),
    Chunks(Vec<Value>),
    Other(serde::de::IgnoredAny),
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
