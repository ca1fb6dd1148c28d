//! Content blocks: every kind of thing a message can hold.
//!
//! # JSON shape
//!
//! Each block is a JSON object with a `type` tag, in the shape Anthropic's Messages API uses
//! where one exists:
//!
//! | `type` | Rust | Fields |
//! |---|---|---|
//! | `text` | [`TextContent`] | `text`, `citations?`, `cache_control?`, `metadata?` |
//! | `image` | [`ImageContent`] | `source`, `cache_control?` |
//! | `document` | [`DocumentContent`] | `source`, `title?`, `context?`, `citations?`, `cache_control?` |
//! | `file` | [`FileContent`] | `file_id`, `filename?`, `media_type?` |
//! | `tool_use` | [`ToolUse`] | `id`, `name`, `input`, `toolset_name?`, `cache_control?`, `metadata?` |
//! | `tool_result` | [`ToolResultContent`] | `tool_use_id`, `content` (array of blocks), `is_error?`, … |
//! | `thinking` | [`ThinkingContent`] | `thinking`, `signature?`, `id?`, `metadata?` |
//! | `redacted_thinking` | [`RedactedThinkingContent`] | `data` |
//! | `server_tool_use`, `mcp_tool_use` | [`ServerToolUse`] | `id`, `name`, `input`, anything else verbatim |
//! | any `*_tool_result` but `tool_result` | [`ServerToolResult`] | `tool_use_id`, anything else verbatim |
//! | `refusal` | [`RefusalContent`] | `refusal` |
//! | `summary` | [`SummaryContent`] | `text` |
//! | `reminder` | [`Reminder`] | `name`, `tier`, `content`, `details?` |
//! | `mcp_list_tools`, `mcp_approval_request`, `mcp_approval_response`, `dynamic` | [`ProviderContent`] | verbatim |
//! | anything else | [`UnknownContent`] | verbatim |
//!
//! A block whose `type` this version does not know decodes to [`Content::Unknown`] and encodes
//! back to exactly the JSON it came from, so a session written by a newer version, or a new
//! provider block, never fails to load and is never altered.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::media::{CacheControl, Citation, MediaSource, ProviderMetadata};
use crate::reminder::Reminder;

fn is_false(b: &bool) -> bool {
    !*b
}

/// Plain text, possibly with citations.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Citations backing the text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub citations: Vec<Citation>,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
    /// Per-provider replay data (e.g. OpenAI `phase`).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: ProviderMetadata,
}

impl TextContent {
    /// Text with no citations or metadata.
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into(), ..Self::default() }
    }
}

/// An image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ImageContent {
    /// Where the image bytes come from.
    pub source: MediaSource,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

impl ImageContent {
    /// An image from a source.
    #[must_use]
    pub fn new(source: MediaSource) -> Self {
        Self { source, cache_control: None }
    }
}

/// Whether the model may cite a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CitationsConfig {
    /// Citations on or off.
    pub enabled: bool,
}

/// A document such as a PDF or a text file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DocumentContent {
    /// Where the document comes from.
    pub source: MediaSource,
    /// Optional title shown to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Optional context about the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Citation settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citations: Option<CitationsConfig>,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

impl DocumentContent {
    /// A document from a source.
    #[must_use]
    pub fn new(source: MediaSource) -> Self {
        Self { source, title: None, context: None, citations: None, cache_control: None }
    }

    /// Sets the title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// A reference to a file uploaded to a provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FileContent {
    /// The provider's file id.
    pub file_id: String,
    /// Optional file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// Optional MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
}

/// A call the model asks the application to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolUse {
    /// Provider-assigned call id, echoed by the matching result.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments, as the JSON value the model produced (shared by the call's copies; see
    /// [`Input`](crate::Input)).
    pub input: crate::Input,
    /// The provider-declared toolset this call belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolset_name: Option<String>,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
    /// Per-provider replay data (e.g. a Gemini thought signature).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: ProviderMetadata,
}

impl ToolUse {
    /// A call with the given id, tool name and input.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: impl Into<crate::Input>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input: input.into(),
            toolset_name: None,
            cache_control: None,
            metadata: Map::new(),
        }
    }
}

/// The application's answer to a [`ToolUse`].
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[non_exhaustive]
pub struct ToolResultContent {
    /// The id of the call this answers.
    pub tool_use_id: String,
    /// The result blocks (text, images, documents).
    pub content: crate::Blocks,
    /// True when the call failed; the model sees the content as an error.
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_error: bool,
    /// The toolset the call belonged to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolset_name: Option<String>,
    /// Prompt-cache breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

impl ToolResultContent {
    /// A successful result of `content`: a `Vec<Content>`, or the [`Blocks`](crate::Blocks)
    /// of a tool's output, shared rather than copied.
    #[must_use]
    pub fn new(tool_use_id: impl Into<String>, content: impl Into<crate::Blocks>) -> Self {
        Self { tool_use_id: tool_use_id.into(), content: content.into(), ..Self::default() }
    }

    /// A result holding one text block.
    #[must_use]
    pub fn text(tool_use_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(tool_use_id, vec![Content::text(text)])
    }

    /// An error result holding one text block.
    #[must_use]
    pub fn error(tool_use_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self { is_error: true, ..Self::text(tool_use_id, text) }
    }

    /// The text blocks of the result joined with newlines.
    #[must_use]
    pub fn text_content(&self) -> String {
        join_text(&self.content, "\n")
    }
}

impl<'de> Deserialize<'de> for ToolResultContent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // `content` may be a plain string in provider JSON; it becomes one text block.
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Body {
            Text(String),
            Blocks(Vec<Content>),
        }
        #[derive(Deserialize)]
        struct Raw {
            tool_use_id: String,
            #[serde(default)]
            content: Option<Body>,
            #[serde(default)]
            is_error: bool,
            #[serde(default)]
            toolset_name: Option<String>,
            #[serde(default)]
            cache_control: Option<CacheControl>,
        }
        let raw = Raw::deserialize(deserializer)?;
        let content = match raw.content {
            None => Vec::new(),
            Some(Body::Text(t)) => vec![Content::text(t)],
            Some(Body::Blocks(b)) => b,
        };
        Ok(Self {
            tool_use_id: raw.tool_use_id,
            content: content.into(),
            is_error: raw.is_error,
            toolset_name: raw.toolset_name,
            cache_control: raw.cache_control,
        })
    }
}

/// The model's visible reasoning. The signature must be replayed exactly.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ThinkingContent {
    /// The reasoning text (may be a summary).
    pub thinking: String,
    /// Provider signature or encrypted reasoning, replayed verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Provider item id (OpenAI reasoning items).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Per-provider replay data.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: ProviderMetadata,
}

impl ThinkingContent {
    /// Thinking text with an optional signature.
    pub fn new(thinking: impl Into<String>, signature: Option<String>) -> Self {
        Self { thinking: thinking.into(), signature, ..Self::default() }
    }
}

/// Reasoning the provider encrypted; replayed verbatim, never shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RedactedThinkingContent {
    /// The opaque data.
    pub data: String,
}

/// A call to a tool the provider runs itself (web search, code execution, remote MCP).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerToolUse {
    /// The block type: `server_tool_use` or `mcp_tool_use`.
    pub kind: String,
    /// Call id.
    pub id: String,
    /// Tool name (e.g. `web_search`).
    pub name: String,
    /// Arguments.
    pub input: Value,
    /// Every other field, verbatim (e.g. `server_name`).
    pub fields: Map<String, Value>,
}

impl ServerToolUse {
    /// A provider-run call. `kind` is `server_tool_use` or `mcp_tool_use`; `fields` holds
    /// every other field, kept verbatim for replay.
    pub fn new(
        kind: impl Into<String>,
        id: impl Into<String>,
        name: impl Into<String>,
        input: Value,
        fields: Map<String, Value>,
    ) -> Self {
        Self { kind: kind.into(), id: id.into(), name: name.into(), input, fields }
    }
}

/// The provider's result of a [`ServerToolUse`] (e.g. `web_search_tool_result`), kept verbatim
/// so it can be replayed in history.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerToolResult {
    /// The block type, ending in `_tool_result`.
    pub kind: String,
    /// The id of the server call this answers.
    pub tool_use_id: String,
    /// Every other field, verbatim (`content`, `is_error`, …).
    pub fields: Map<String, Value>,
}

/// The model declined to answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RefusalContent {
    /// The refusal text.
    pub refusal: String,
}

impl RefusalContent {
    /// A refusal with this text.
    pub fn new(refusal: impl Into<String>) -> Self {
        Self { refusal: refusal.into() }
    }
}

/// A reasoning summary (OpenAI `summary_text`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SummaryContent {
    /// The summary text.
    pub text: String,
}

/// A provider-native item this version understands only well enough to replay it
/// (`mcp_list_tools`, `mcp_approval_request`, `mcp_approval_response`, `dynamic`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProviderContent {
    /// The block type.
    pub kind: String,
    /// Every other field, verbatim.
    pub fields: Map<String, Value>,
}

impl ProviderContent {
    /// A provider-native item of type `kind` with its other fields.
    pub fn new(kind: impl Into<String>, fields: Map<String, Value>) -> Self {
        Self { kind: kind.into(), fields }
    }
}

/// A block of a type this version does not know, kept verbatim (including its `type`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UnknownContent {
    /// The whole JSON object.
    pub raw: Map<String, Value>,
}

impl UnknownContent {
    /// Keeps a JSON object verbatim, e.g. a provider block whose known `type` arrived in a
    /// shape this version cannot decode.
    #[must_use]
    pub fn from_raw(raw: Map<String, Value>) -> Self {
        Self { raw }
    }

    /// The block's `type` tag, if it has one.
    #[must_use]
    pub fn kind(&self) -> Option<&str> {
        self.raw.get("type").and_then(Value::as_str)
    }
}

/// One block of a [`Message`](super::Message).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Content {
    /// Text.
    Text(TextContent),
    /// An image.
    Image(ImageContent),
    /// A document (PDF, text).
    Document(DocumentContent),
    /// A provider file reference.
    File(FileContent),
    /// A client tool call.
    ToolUse(ToolUse),
    /// A client tool result.
    ToolResult(ToolResultContent),
    /// Visible reasoning.
    Thinking(ThinkingContent),
    /// Encrypted reasoning.
    RedactedThinking(RedactedThinkingContent),
    /// A provider-run tool call.
    ServerToolUse(ServerToolUse),
    /// A provider-run tool result.
    ServerToolResult(ServerToolResult),
    /// A refusal.
    Refusal(RefusalContent),
    /// A reasoning summary.
    Summary(SummaryContent),
    /// Typed runtime context, rendered by each provider (see [`crate::reminder`]).
    Reminder(Reminder),
    /// A provider-native item kept for replay.
    Provider(ProviderContent),
    /// A block of an unknown type, kept verbatim.
    Unknown(UnknownContent),
}

const PROVIDER_KINDS: [&str; 4] =
    ["mcp_list_tools", "mcp_approval_request", "mcp_approval_response", "dynamic"];

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// An image block.
    #[must_use]
    pub fn image(source: MediaSource) -> Self {
        Self::Image(ImageContent::new(source))
    }

    /// A document block.
    #[must_use]
    pub fn document(source: MediaSource) -> Self {
        Self::Document(DocumentContent::new(source))
    }

    /// A tool call block.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self::ToolUse(ToolUse::new(id, name, input))
    }

    /// The JSON `type` tag of this block.
    #[must_use]
    pub fn kind(&self) -> &str {
        match self {
            Self::Text(_) => "text",
            Self::Image(_) => "image",
            Self::Document(_) => "document",
            Self::File(_) => "file",
            Self::ToolUse(_) => "tool_use",
            Self::ToolResult(_) => "tool_result",
            Self::Thinking(_) => "thinking",
            Self::RedactedThinking(_) => "redacted_thinking",
            Self::ServerToolUse(s) => &s.kind,
            Self::ServerToolResult(s) => &s.kind,
            Self::Refusal(_) => "refusal",
            Self::Summary(_) => "summary",
            Self::Reminder(_) => "reminder",
            Self::Provider(p) => &p.kind,
            Self::Unknown(u) => u.kind().unwrap_or(""),
        }
    }

    /// The text of a text block.
    #[must_use]
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }

    /// The tool call of a `tool_use` block.
    #[must_use]
    pub fn as_tool_use(&self) -> Option<&ToolUse> {
        match self {
            Self::ToolUse(t) => Some(t),
            _ => None,
        }
    }

    /// The result of a `tool_result` block.
    #[must_use]
    pub fn as_tool_result(&self) -> Option<&ToolResultContent> {
        match self {
            Self::ToolResult(t) => Some(t),
            _ => None,
        }
    }

    /// The reminder of a `reminder` block.
    #[must_use]
    pub fn as_reminder(&self) -> Option<&Reminder> {
        match self {
            Self::Reminder(r) => Some(r),
            _ => None,
        }
    }

    /// True for blocks produced or consumed by provider-run tools, which another provider
    /// cannot replay.
    #[must_use]
    pub fn is_server_tool_content(&self) -> bool {
        matches!(self, Self::ServerToolUse(_) | Self::ServerToolResult(_))
    }
}

impl From<TextContent> for Content {
    fn from(v: TextContent) -> Self {
        Self::Text(v)
    }
}
impl From<ToolUse> for Content {
    fn from(v: ToolUse) -> Self {
        Self::ToolUse(v)
    }
}
impl From<ToolResultContent> for Content {
    fn from(v: ToolResultContent) -> Self {
        Self::ToolResult(v)
    }
}
impl From<ThinkingContent> for Content {
    fn from(v: ThinkingContent) -> Self {
        Self::Thinking(v)
    }
}
impl From<Reminder> for Content {
    fn from(v: Reminder) -> Self {
        Self::Reminder(v)
    }
}
impl From<ImageContent> for Content {
    fn from(v: ImageContent) -> Self {
        Self::Image(v)
    }
}
impl From<DocumentContent> for Content {
    fn from(v: DocumentContent) -> Self {
        Self::Document(v)
    }
}

/// Joins the text blocks of `blocks` with `sep`.
pub(crate) fn join_text(blocks: &[Content], sep: &str) -> String {
    let mut out = String::new();
    for t in blocks.iter().filter_map(Content::as_text) {
        if !out.is_empty() {
            out.push_str(sep);
        }
        out.push_str(t);
    }
    out
}

// ---- serde -------------------------------------------------------------------------------

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Tagged<'a> {
    Text(&'a TextContent),
    Image(&'a ImageContent),
    Document(&'a DocumentContent),
    File(&'a FileContent),
    ToolUse(&'a ToolUse),
    ToolResult(&'a ToolResultContent),
    Thinking(&'a ThinkingContent),
    RedactedThinking(&'a RedactedThinkingContent),
    Refusal(&'a RefusalContent),
    Summary(&'a SummaryContent),
    Reminder(&'a Reminder),
}

#[derive(Serialize)]
struct Verbatim<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(flatten)]
    fields: &'a Map<String, Value>,
}

#[derive(Serialize)]
struct ServerUseRef<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    id: &'a str,
    name: &'a str,
    input: &'a Value,
    #[serde(flatten)]
    fields: &'a Map<String, Value>,
}

#[derive(Serialize)]
struct ServerResultRef<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    tool_use_id: &'a str,
    #[serde(flatten)]
    fields: &'a Map<String, Value>,
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(v) => Tagged::Text(v).serialize(s),
            Self::Image(v) => Tagged::Image(v).serialize(s),
            Self::Document(v) => Tagged::Document(v).serialize(s),
            Self::File(v) => Tagged::File(v).serialize(s),
            Self::ToolUse(v) => Tagged::ToolUse(v).serialize(s),
            Self::ToolResult(v) => Tagged::ToolResult(v).serialize(s),
            Self::Thinking(v) => Tagged::Thinking(v).serialize(s),
            Self::RedactedThinking(v) => Tagged::RedactedThinking(v).serialize(s),
            Self::Refusal(v) => Tagged::Refusal(v).serialize(s),
            Self::Summary(v) => Tagged::Summary(v).serialize(s),
            Self::Reminder(v) => Tagged::Reminder(v).serialize(s),
            Self::ServerToolUse(v) => {
                ServerUseRef { kind: &v.kind, id: &v.id, name: &v.name, input: &v.input, fields: &v.fields }
                    .serialize(s)
            }
            Self::ServerToolResult(v) => {
                ServerResultRef { kind: &v.kind, tool_use_id: &v.tool_use_id, fields: &v.fields }.serialize(s)
            }
            Self::Provider(v) => Verbatim { kind: &v.kind, fields: &v.fields }.serialize(s),
            Self::Unknown(v) => v.raw.serialize(s),
        }
    }
}

fn take_string<E: serde::de::Error>(map: &mut Map<String, Value>, key: &str) -> Result<String, E> {
    match map.remove(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(E::custom(format!("field `{key}` must be a string, found {other}"))),
        None => Err(E::missing_field_owned(key)),
    }
}

trait MissingOwned {
    fn missing_field_owned(key: &str) -> Self;
}
impl<E: serde::de::Error> MissingOwned for E {
    fn missing_field_owned(key: &str) -> Self {
        E::custom(format!("missing field `{key}`"))
    }
}

fn from_map<T: serde::de::DeserializeOwned, E: serde::de::Error>(
    kind: &str,
    map: Map<String, Value>,
) -> Result<T, E> {
    serde_json::from_value(Value::Object(map)).map_err(|e| E::custom(format!("invalid `{kind}` block: {e}")))
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut map = Map::<String, Value>::deserialize(d)?;
        let kind = match map.get("type") {
            Some(Value::String(s)) => s.clone(),
            // No tag at all: keep it verbatim rather than fail.
            _ => return Ok(Self::Unknown(UnknownContent { raw: map })),
        };
        let content = match kind.as_str() {
            "text" => Self::Text(from_map(&kind, map)?),
            "image" => Self::Image(from_map(&kind, map)?),
            "document" => Self::Document(from_map(&kind, map)?),
            "file" => Self::File(from_map(&kind, map)?),
            "tool_use" => Self::ToolUse(from_map(&kind, map)?),
            "tool_result" => Self::ToolResult(from_map(&kind, map)?),
            "thinking" => Self::Thinking(from_map(&kind, map)?),
            "redacted_thinking" => Self::RedactedThinking(from_map(&kind, map)?),
            "refusal" => Self::Refusal(from_map(&kind, map)?),
            "summary" => Self::Summary(from_map(&kind, map)?),
            "reminder" => Self::Reminder(from_map(&kind, map)?),
            "server_tool_use" | "mcp_tool_use" => {
                map.remove("type");
                let id = take_string(&mut map, "id")?;
                let name = take_string(&mut map, "name")?;
                let input = map.remove("input").unwrap_or(Value::Object(Map::new()));
                Self::ServerToolUse(ServerToolUse { kind, id, name, input, fields: map })
            }
            k if k.ends_with("_tool_result") => {
                map.remove("type");
                let tool_use_id = take_string(&mut map, "tool_use_id")?;
                Self::ServerToolResult(ServerToolResult { kind, tool_use_id, fields: map })
            }
            k if PROVIDER_KINDS.contains(&k) => {
                map.remove("type");
                Self::Provider(ProviderContent { kind, fields: map })
            }
            _ => Self::Unknown(UnknownContent { raw: map }),
        };
        Ok(content)
    }
}

/// True when `kind` is a `type` tag this version decodes to a typed variant; used by tests
/// and by code that builds [`UnknownContent`] by hand.
#[must_use]
pub fn is_known_kind(kind: &str) -> bool {
    matches!(
        kind,
        "text"
            | "image"
            | "document"
            | "file"
            | "tool_use"
            | "tool_result"
            | "thinking"
            | "redacted_thinking"
            | "refusal"
            | "summary"
            | "reminder"
            | "server_tool_use"
            | "mcp_tool_use"
    ) || kind.ends_with("_tool_result")
        || PROVIDER_KINDS.contains(&kind)
}
