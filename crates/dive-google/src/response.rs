//! What Gemini sends, as typed serde structs: a `GenerateContentResponse` (a whole response,
//! or one chunk of `streamGenerateContent`), borrowing its strings from the received text.
//!
//! Only the fields this crate reads are typed. Parts stay [`RawValue`]s until they are read,
//! so a part this version does not model is kept byte for byte (and replayed verbatim);
//! candidate metadata (`groundingMetadata`, …) and finish details are [`Value`]s because they
//! are handed on verbatim in [`ModelResponse::metadata`](dive_core::ModelResponse::metadata).

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use serde_json::value::RawValue;

/// A `GenerateContentResponse`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Response<'a> {
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub response_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub model_version: Option<Cow<'a, str>>,
    #[serde(default)]
    pub usage_metadata: Option<UsageMetadata>,
    #[serde(borrow, default)]
    pub candidates: Option<Vec<Candidate<'a>>>,
    #[serde(default)]
    pub prompt_feedback: Option<Value>,
    /// An error object (a stream's error chunk): read as a [`Value`] on that cold path.
    #[serde(default)]
    pub error: Option<IgnoredAny>,
}

impl<'a> Response<'a> {
    /// The first candidate (the only one this crate asks for).
    pub(crate) fn take_candidate(&mut self) -> Candidate<'a> {
        self.candidates.as_mut().filter(|c| !c.is_empty()).map(|c| c.swap_remove(0)).unwrap_or_default()
    }
}

/// `usageMetadata`. Proto3 JSON leaves zero counts out.
#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct UsageMetadata {
    pub prompt_token_count: u64,
    pub cached_content_token_count: u64,
    pub candidates_token_count: u64,
    pub thoughts_token_count: u64,
    pub tool_use_prompt_token_count: u64,
    /// Absent on early chunks that carry only `trafficType`: such a snapshot says nothing.
    pub total_token_count: Option<u64>,
}

/// One candidate.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Candidate<'a> {
    #[serde(borrow, default)]
    pub content: Option<CandidateContent<'a>>,
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub finish_reason: Option<Cow<'a, str>>,
    #[serde(default)]
    pub finish_message: Option<Value>,
    #[serde(default)]
    pub safety_ratings: Option<Value>,
    #[serde(default)]
    pub grounding_metadata: Option<Value>,
    #[serde(default)]
    pub citation_metadata: Option<Value>,
    #[serde(default)]
    pub url_context_metadata: Option<Value>,
}

impl Candidate<'_> {
    /// The candidate metadata kept on the response, by its wire name.
    pub(crate) fn metadata(&self) -> [(&'static str, Option<&Value>); 3] {
        [
            ("groundingMetadata", self.grounding_metadata.as_ref()),
            ("citationMetadata", self.citation_metadata.as_ref()),
            ("urlContextMetadata", self.url_context_metadata.as_ref()),
        ]
    }

    /// The parts, unread.
    pub(crate) fn parts(&self) -> &[&RawValue] {
        self.content.as_ref().and_then(|c| c.parts.as_deref()).unwrap_or_default()
    }
}

/// A candidate's `content`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CandidateContent<'a> {
    #[serde(borrow, default)]
    pub parts: Option<Vec<&'a RawValue>>,
}

/// The fields of a part this crate reads.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Part<'a> {
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub text: Option<Cow<'a, str>>,
    #[serde(default)]
    pub thought: Option<bool>,
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub thought_signature: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub function_call: Option<FunctionCall<'a>>,
    #[serde(borrow, default)]
    pub inline_data: Option<Blob<'a>>,
}

impl<'a> Part<'a> {
    /// Reads a part.
    ///
    /// # Errors
    /// The JSON error when a field this crate reads has the wrong type.
    pub(crate) fn read(raw: &'a RawValue) -> Result<Self, serde_json::Error> {
        serde_json::from_str(raw.get())
    }

    /// Whether this is a thought (`thought: true`).
    pub(crate) fn is_thought(&self) -> bool {
        self.thought == Some(true)
    }
}

/// A `functionCall`: a whole call, or (with `streamFunctionCallArguments`) one piece of one.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FunctionCall<'a> {
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub args: Option<Value>,
    #[serde(borrow, default)]
    pub partial_args: Option<Vec<PartialArg<'a>>>,
    #[serde(default)]
    pub will_continue: Option<bool>,
}

impl FunctionCall<'_> {
    /// Whether the call names its function.
    pub(crate) fn is_named(&self) -> bool {
        self.name.as_deref().is_some_and(|n| !n.is_empty())
    }

    /// Whether more pieces of this call follow.
    pub(crate) fn continues(&self) -> bool {
        self.will_continue == Some(true)
    }

    /// The streamed argument pieces of this part.
    pub(crate) fn pieces(&self) -> &[PartialArg<'_>] {
        self.partial_args.as_deref().unwrap_or_default()
    }
}

/// One `partialArgs` item: a JSON path and the value it sets.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PartialArg<'a> {
    #[serde(borrow, default)]
    pub json_path: Cow<'a, str>,
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub string_value: Option<Cow<'a, str>>,
    /// A number (anything else is ignored, as an absent value).
    #[serde(default)]
    pub number_value: Option<Value>,
    #[serde(default)]
    pub bool_value: Option<bool>,
    /// Present (with any value, `"NULL_VALUE"` on the wire) when the path is set to null.
    #[serde(default, deserialize_with = "present")]
    pub null_value: bool,
    #[serde(default)]
    pub will_continue: Option<bool>,
}

/// `true` for a field that is present, whatever it holds.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

/// `inlineData`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Blob<'a> {
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub mime_type: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "dive_provider::borrowed::optional_str")]
    pub data: Option<Cow<'a, str>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_borrow_their_text_and_keep_parts_unread() {
        let data = r#"{"responseId":"r","candidates":[{"content":{"parts":[{"text":"plain"},{"text":"a\"b"},
            {"executableCode":{"code":"print(1)"}}]},"finishReason":"STOP"}],"usageMetadata":{"trafficType":"ON_DEMAND"}}"#;
        let mut r: Response<'_> = serde_json::from_str(data).unwrap();
        assert!(matches!(r.response_id, Some(Cow::Borrowed("r"))));
        assert_eq!(r.usage_metadata.unwrap().total_token_count, None, "a count-less snapshot");
        let c = r.take_candidate();
        assert_eq!(c.finish_reason.as_deref(), Some("STOP"));
        let parts: Vec<Part<'_>> = c.parts().iter().map(|p| Part::read(p).unwrap()).collect();
        assert!(matches!(parts[0].text, Some(Cow::Borrowed("plain"))));
        assert_eq!(parts[1].text.as_deref(), Some("a\"b"), "an escaped string is decoded");
        assert!(parts[2].text.is_none());
        assert_eq!(c.parts()[2].get(), r#"{"executableCode":{"code":"print(1)"}}"#, "kept byte for byte");
    }

    #[test]
    fn a_null_value_piece_is_present_whatever_it_holds() {
        let p: PartialArg<'_> =
            serde_json::from_str(r#"{"jsonPath":"$.a","nullValue":"NULL_VALUE"}"#).unwrap();
        assert!(p.null_value);
        let p: PartialArg<'_> = serde_json::from_str(r#"{"jsonPath":"$.a","stringValue":"x"}"#).unwrap();
        assert!(!p.null_value);
    }
}
