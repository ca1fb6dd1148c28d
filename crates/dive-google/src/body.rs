//! What Gemini is sent, as typed serde structs: the `generateContent` request body, borrowing
//! its strings from the [`ModelRequest`](dive_core::ModelRequest).
//!
//! [`Body`] keeps the history (with unanswered calls answered and reminders rendered, a copy
//! only when either changed something) and writes `contents` while it is serialized, so no
//! tree of the body is ever built. JSON Schemas (tool parameters, the response schema) stay
//! [`Value`]s: they are JSON Schema documents, converted by [`convert_schema`](crate::convert_schema).

use std::borrow::Cow;

use serde::ser::Error as _;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// The `generateContent` / `streamGenerateContent` request body.
#[derive(Debug)]
pub struct Body<'a> {
    pub(crate) request: Request<'a>,
    /// The request's free-form `provider_options`, merged in when the body is written.
    pub(crate) extra: &'a Map<String, Value>,
}

impl Serialize for Body<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.extra.is_empty() {
            return self.request.serialize(s);
        }
        // Free-form options go to the top level, except `generationConfig` and `toolConfig`,
        // which merge into ours key by key: a rare path, so it may build the tree.
        let mut body = serde_json::to_value(&self.request).map_err(S::Error::custom)?;
        if let Value::Object(body) = &mut body {
            for (k, v) in self.extra {
                match body.get_mut(k) {
                    Some(ours) if k == "generationConfig" || k == "toolConfig" => merge(ours, v),
                    _ => {
                        body.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        body.serialize(s)
    }
}

/// Merges a provider option into the object the encoder built, key by key at every depth
/// (so `toolConfig.functionCallingConfig.streamFunctionCallArguments` keeps the encoder's
/// `mode`); a value that is not an object replaces ours.
fn merge(ours: &mut Value, theirs: &Value) {
    match (ours, theirs) {
        (Value::Object(ours), Value::Object(theirs)) => {
            for (k, v) in theirs {
                match ours.get_mut(k) {
                    Some(o) => merge(o, v),
                    None => {
                        ours.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (ours, theirs) => *ours = theirs.clone(),
    }
}

/// The typed fields of the body.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Request<'a> {
    pub contents: crate::encode::Contents<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Instruction<'a>>,
    /// `[Tools]`, converted and encoded once per tool list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<dive_provider::EncodedTools>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<ToolConfig<'a>>,
    pub generation_config: GenerationConfig<'a>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub safety_settings: &'a [crate::SafetySetting],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_content: Option<&'a str>,
}

/// `systemInstruction`.
#[derive(Debug, Serialize)]
pub(crate) struct Instruction<'a> {
    pub parts: [TextOnly<'a>; 1],
}

/// A part that is only text.
#[derive(Debug, Serialize)]
pub(crate) struct TextOnly<'a> {
    pub text: &'a str,
}

/// `tools[0]`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Tools<'a> {
    pub function_declarations: Vec<FunctionDeclaration<'a>>,
}

/// One function declaration.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FunctionDeclaration<'a> {
    pub name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub description: &'a str,
    /// Absent for a function without parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters_json_schema: Option<Value>,
}

/// `toolConfig`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ToolConfig<'a> {
    pub function_calling_config: FunctionCallingConfig<'a>,
}

/// `toolConfig.functionCallingConfig`.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FunctionCallingConfig<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_function_names: Option<[&'a str; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_function_call_arguments: Option<bool>,
}

/// `generationConfig`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GenerationConfig<'a> {
    pub max_output_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub stop_sequences: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<ThinkingConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_mime_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_json_schema: Option<Value>,
}

/// `generationConfig.thinkingConfig`.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ThinkingConfig {
    pub include_thoughts: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<&'static str>,
}

/// One `contents` item.
#[derive(Debug, Serialize)]
pub(crate) struct WireContent<'b> {
    pub role: &'static str,
    pub parts: Vec<WirePart<'b>>,
}

/// One part: a typed one, or a part this version does not model, replayed verbatim.
// The common variant is the large one; boxing it would cost an allocation per part.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum WirePart<'b> {
    Typed(PartOut<'b>),
    Verbatim(&'b Value),
}

/// The part fields this crate sends (exactly one of the data fields is set).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PartOut<'b> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<Cow<'b, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thought: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inline_data: Option<InlineData<'b>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_data: Option<FileData<'b>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_call: Option<CallOut<'b>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_response: Option<ResponseOut<'b>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<&'b str>,
}

impl<'b> PartOut<'b> {
    /// A text part.
    pub(crate) fn text(text: impl Into<Cow<'b, str>>) -> WirePart<'b> {
        WirePart::Typed(Self { text: Some(text.into()), ..Self::default() })
    }
}

/// `inlineData`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InlineData<'b> {
    pub mime_type: &'b str,
    pub data: &'b str,
}

/// `fileData`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FileData<'b> {
    pub file_uri: Cow<'b, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<&'b str>,
}

/// `functionCall`.
#[derive(Debug, Serialize)]
pub(crate) struct CallOut<'b> {
    pub name: &'b str,
    pub args: Cow<'b, Value>,
    /// Echoed only when the id came from Gemini.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'b str>,
}

/// `functionResponse`.
#[derive(Debug, Serialize)]
pub(crate) struct ResponseOut<'b> {
    pub name: &'b str,
    pub response: ResultText,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'b str>,
    /// Media inside the response (Gemini 3 and later).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<WirePart<'b>>,
}

/// `functionResponse.response`: `{"output": …}`, or `{"error": …}` for a failed call.
#[derive(Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ResultText {
    Output(String),
    Error(String),
}
