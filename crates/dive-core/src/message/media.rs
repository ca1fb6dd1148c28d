//! Media sources (base64, URL, text, provider file ids) and prompt-cache markers.

use serde::{Deserialize, Serialize};

/// Where the bytes of an image or document come from.
///
/// JSON: `{"type":"base64","media_type":"image/png","data":"…"}`, `{"type":"url","url":"…"}`,
/// `{"type":"text","media_type":"text/plain","data":"…"}` or `{"type":"file","file_id":"…"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum MediaSource {
    /// Inline bytes, base64-encoded.
    Base64 {
        /// MIME type such as `image/png` or `application/pdf`.
        media_type: String,
        /// The base64 text (standard alphabet, padded).
        data: String,
    },
    /// A URL the provider fetches.
    Url {
        /// The absolute URL.
        url: String,
    },
    /// Plain text (documents only).
    Text {
        /// MIME type, normally `text/plain`.
        media_type: String,
        /// The text itself.
        data: String,
    },
    /// A file previously uploaded to the provider's Files API.
    File {
        /// The provider's file id.
        file_id: String,
    },
}

impl MediaSource {
    /// Inline base64 data.
    pub fn base64(media_type: impl Into<String>, data: impl Into<String>) -> Self {
        Self::Base64 { media_type: media_type.into(), data: data.into() }
    }

    /// A URL reference.
    pub fn url(url: impl Into<String>) -> Self {
        Self::Url { url: url.into() }
    }

    /// A provider file id.
    pub fn file(file_id: impl Into<String>) -> Self {
        Self::File { file_id: file_id.into() }
    }

    /// The MIME type when the source carries one.
    #[must_use]
    pub fn media_type(&self) -> Option<&str> {
        match self {
            Self::Base64 { media_type, .. } | Self::Text { media_type, .. } => Some(media_type),
            Self::Url { .. } | Self::File { .. } => None,
        }
    }
}

/// How long a prompt-cache entry should live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum CacheTtl {
    /// Five minutes (the provider default).
    #[serde(rename = "5m")]
    FiveMinutes,
    /// One hour.
    #[serde(rename = "1h")]
    OneHour,
}

/// A prompt-cache breakpoint on a content block: `{"type":"ephemeral","ttl":"1h"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CacheControl {
    /// Cache kind; `ephemeral` is the only kind providers define today.
    #[serde(rename = "type")]
    pub kind: String,
    /// Optional time to live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<CacheTtl>,
}

impl CacheControl {
    /// An ephemeral breakpoint with the provider's default TTL.
    #[must_use]
    pub fn ephemeral() -> Self {
        Self { kind: "ephemeral".to_owned(), ttl: None }
    }

    /// An ephemeral breakpoint with an explicit TTL.
    #[must_use]
    pub fn with_ttl(ttl: CacheTtl) -> Self {
        Self { kind: "ephemeral".to_owned(), ttl: Some(ttl) }
    }
}

impl Default for CacheControl {
    fn default() -> Self {
        Self::ephemeral()
    }
}

/// A citation attached to generated text. The `type` says which location scheme it uses
/// (`char_location`, `page_location`, `content_block_location`, `web_search_result_location`,
/// `search_result_location`, …); every field is kept verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Citation {
    /// The location scheme.
    #[serde(rename = "type")]
    pub kind: String,
    /// The quoted text, when the provider sends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_text: Option<String>,
    /// Every other field of the citation, verbatim.
    #[serde(flatten)]
    pub fields: serde_json::Map<String, serde_json::Value>,
}

impl Citation {
    /// A citation of the given kind with no fields.
    pub fn new(kind: impl Into<String>) -> Self {
        Self { kind: kind.into(), cited_text: None, fields: serde_json::Map::new() }
    }
}

/// Opaque per-provider replay data kept on a block, e.g. `{"google":{"thought_signature":"…"}}`
/// or `{"openai":{"phase":"final"}}`. Providers read only their own key.
pub type ProviderMetadata = serde_json::Map<String, serde_json::Value>;
