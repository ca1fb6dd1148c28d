//! [`WireFormat`]: what one vendor API adds to the generic [`HttpProvider`](crate::HttpProvider)
//! — how a request is encoded, where it goes, how the key is sent, how a response, a stream
//! and an error body are read.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt::Debug;

use dive_core::{
    BoxStream, CompactedWindow, LlmErrorKind, ModelInfo, ModelRequest, ModelResponse, Secret, StreamEvent,
};
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde::Serialize;

use crate::{ProviderError, SseEvent, Vendor};

/// What the provider knows about one call when it asks the wire format to encode it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct CallContext<'a> {
    /// The vendor facts.
    pub vendor: &'a Vendor,
    /// The API root of the provider (no trailing slash), for bodies that name URLs below it.
    pub base_url: &'a str,
    /// The model of this call: the request's, else the provider's default.
    pub model: &'a str,
    /// The catalog entry of `model`, when the catalog knows it.
    pub model_info: Option<&'static ModelInfo>,
    /// The provider's default output limit (a request's own `max_tokens` wins).
    pub max_tokens: Option<u32>,
    /// Whether this is the streaming form of the call.
    pub stream: bool,
}

impl CallContext<'_> {
    /// The output limit of this call: the request's or the provider's own `max_tokens` when
    /// set, else `default` capped by the catalog's output limit for the model.
    #[must_use]
    pub fn max_tokens_or(&self, default: u32) -> u32 {
        let limit = self.model_info.map(|m| u32::try_from(m.max_output_tokens).unwrap_or(u32::MAX));
        self.max_tokens.unwrap_or(default.min(limit.unwrap_or(default)))
    }
}

/// Refuses a request that carries another provider's typed option (a wire format whose
/// provider honours only its own options calls this first in `encode`).
///
/// # Errors
/// `InvalidRequest` naming the option and the provider it belongs to.
pub fn refuse_foreign_options(provider: &'static str, request: &ModelRequest) -> Result<(), ProviderError> {
    request
        .options
        .refuse_foreign(provider, |_| false)
        .map_err(|e| ProviderError::new(provider, LlmErrorKind::InvalidRequest, e.message))
}

/// Refuses a request holding content this provider (or its model) cannot send, instead of
/// dropping it: `check` sees each media block (image, document, file; tool results' blocks
/// included) and returns why it cannot be sent. A wire format calls this in `encode`, so
/// nothing is sent.
///
/// # Errors
/// `UnsupportedContent` naming the block type, the provider and the reason, with a
/// [`UnsupportedContentError`](dive_core::UnsupportedContentError) as the source and the
/// block type as `error_type`.
pub fn refuse_unsupported_content(
    provider: &'static str,
    request: &ModelRequest,
    check: impl FnMut(&dive_core::Content) -> Option<String>,
) -> Result<(), ProviderError> {
    match dive_core::UnsupportedContentError::find(provider, &request.messages, check) {
        None => Ok(()),
        Some(refused) => {
            let mut e = ProviderError::new(provider, LlmErrorKind::UnsupportedContent, refused.to_string());
            e.error_type = Some(refused.content_type.clone());
            Err(e.with_source(refused))
        }
    }
}

/// Why the model of a call cannot take a media block, by its catalog entry: an image for a
/// model the catalog lists without vision. `None` when it can, or when the catalog does not
/// know the model (an unknown model is given the benefit of the doubt). For
/// [`refuse_unsupported_content`]'s check.
#[must_use]
pub fn model_cannot_take(call: &CallContext<'_>, block: &dive_core::Content) -> Option<String> {
    match (block, call.model_info) {
        (dive_core::Content::Image(_), Some(info)) if !info.vision => {
            Some(format!("model {} takes text only, no images", call.model))
        }
        _ => None,
    }
}

/// A request body ready to send, with the per-call headers it needs (beta flags, …).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Encoded<B> {
    /// The typed body, serialized as JSON once per attempt.
    pub body: B,
    /// Headers this call needs beyond auth and the provider's own (`anthropic-beta`, …).
    pub headers: Vec<(&'static str, String)>,
}

impl<B> Encoded<B> {
    /// A body without extra headers.
    pub fn new(body: B) -> Self {
        Self { body, headers: Vec::new() }
    }

    /// Adds a per-call header.
    #[must_use]
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// The value of a per-call header, if set.
    #[must_use]
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// How a streamed body is framed into the items a [`StreamMapper`] reads. Implemented for
/// [`SseEvent`] (server-sent events) and for [`serde_json::Value`] (NDJSON, one value a line).
/// `Default` is an empty frame: what is left of a frame a mapper took the contents of
/// ([`StreamMapper::map_last`] reads frames in place).
pub trait Frame: Sized + Send + Default + 'static {
    /// Frames a streamed response body.
    fn frames(provider: &'static str, response: reqwest::Response) -> BoxStream<Result<Self, ProviderError>>;
}

impl Frame for SseEvent {
    fn frames(provider: &'static str, response: reqwest::Response) -> BoxStream<Result<Self, ProviderError>> {
        Box::pin(crate::response_sse(provider, response))
    }
}

impl Frame for serde_json::Value {
    fn frames(provider: &'static str, response: reqwest::Response) -> BoxStream<Result<Self, ProviderError>> {
        Box::pin(crate::decode_ndjson(provider, Box::pin(response.bytes_stream())))
    }
}

/// Maps one wire format's stream frames to dive-core [`StreamEvent`]s.
///
/// A mapper translates; [`Events`](crate::Events) does everything else once for every
/// format: pricing usage, the commit point of retries, typed errors and the end-of-stream
/// check. The caller's [`EventStream`](dive_core::EventStream) accumulates the response and
/// keeps the partial response of a failed stream.
///
/// Usage in `MessageStart` and `MessageDelta` is the call's usage *so far* (the mapper
/// applies its vendor's snapshot rules); the adapter prices it.
pub trait StreamMapper: Send + Unpin + 'static {
    /// What the body is framed into.
    type Frame: Frame;

    /// Maps one frame, pushing any number of events to `out`.
    ///
    /// # Errors
    /// A typed error for an error event (see [`ProviderError::from_stream_error`]); `Decode`
    /// for data that does not parse.
    fn map(&mut self, frame: Self::Frame, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError>;

    /// [`map`](Self::map) on the frame where it lies (the mapper may take its contents), with
    /// the frame's last event returned instead of pushed: the frame's events are those pushed
    /// to `out`, then the one returned. Most frames of a model's stream make one event (a text
    /// delta), which [`Events`](crate::Events) then hands over without queueing it, and no frame
    /// is copied on its way in. The default takes the frame and maps it into `out`; a mapper
    /// that overrides this method may implement [`map`](Self::map) by it, with [`map_by_last`].
    ///
    /// # Errors
    /// As [`map`](Self::map).
    fn map_last(
        &mut self,
        frame: &mut Self::Frame,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<Option<StreamEvent>, ProviderError> {
        self.map(std::mem::take(frame), out).map(|()| None)
    }

    /// The body ended. Push the closing events when this end is a proper one. The default
    /// pushes nothing; the adapter then reports `StreamInterrupted` unless a `MessageStop`
    /// was seen.
    ///
    /// # Errors
    /// `StreamInterrupted` when the stream ended before its proper end.
    fn end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError> {
        let _ = out;
        Ok(())
    }

    /// The end marker named in the error for a stream that ended early (`message_stop`, …).
    fn end_marker(&self) -> &'static str {
        "its final event"
    }
}

/// [`StreamMapper::map`] for a mapper that implements [`StreamMapper::map_last`]: the frame's
/// events in `out`, the returned one last.
///
/// # Errors
/// As [`StreamMapper::map_last`].
pub fn map_by_last<M: StreamMapper + ?Sized>(
    mapper: &mut M,
    mut frame: M::Frame,
    out: &mut VecDeque<StreamEvent>,
) -> Result<(), ProviderError> {
    let last = mapper.map_last(&mut frame, out)?;
    out.extend(last);
    Ok(())
}

/// One vendor API on the generic provider: a value of this type is what a provider crate
/// mostly consists of (with its catalog and [`Vendor`] facts).
///
/// The generic [`HttpProvider`](crate::HttpProvider) owns everything else: building, the
/// key, base URL, headers, retry, sending, streaming, redaction and pricing.
pub trait WireFormat: Debug + Clone + Send + Sync + 'static {
    /// The request body (a typed serde struct, borrowing from the request where it pays).
    type Body<'a>: Serialize + Send + Sync
    where
        Self: 'a;
    /// The stream mapper.
    type Mapper: StreamMapper;

    /// The vendor facts (name, variables, defaults, catalog).
    fn vendor(&self) -> &Vendor;

    /// Encodes `request` for one call.
    ///
    /// # Errors
    /// `InvalidRequest` when the request asks for something this API cannot do (an option
    /// of another provider, a schema keyword it cannot take, …): never dropped silently.
    fn encode<'a>(
        &'a self,
        request: &'a ModelRequest,
        call: &CallContext<'a>,
    ) -> Result<Encoded<Self::Body<'a>>, ProviderError>;

    /// The path below the base URL this call goes to (`/v1/messages`, …): borrowed when it is
    /// fixed, so a call builds no string for it.
    fn path(&self, encoded: &Encoded<Self::Body<'_>>, call: &CallContext<'_>) -> Cow<'static, str>;

    /// Headers every call of this API carries whatever it asks (`anthropic-version`, …): set
    /// once on the provider, under its own and each request's headers. The default is none.
    fn fixed_headers(&self) -> &[(&'static str, &'static str)] {
        &[]
    }

    /// Puts the API key on a call. The default is `Authorization: Bearer <key>`.
    ///
    /// # Errors
    /// `InvalidRequest` when the key cannot be a header value.
    fn authorize(&self, key: &Secret, headers: &mut HeaderMap) -> Result<(), ProviderError> {
        let value = secret_header(self.vendor().name, &format!("Bearer {}", key.expose()))?;
        headers.insert(AUTHORIZATION, value);
        Ok(())
    }

    /// Decodes a whole (non-streaming) response body.
    ///
    /// # Errors
    /// `Decode` when the body is not what the API sends.
    fn decode(&self, body: &[u8], call: &CallContext<'_>) -> Result<ModelResponse, ProviderError>;

    /// A mapper for one stream.
    fn mapper(&self, call: &CallContext<'_>) -> Self::Mapper;

    /// The API root a base URL given to the builder (or read by `from_env`) stands for. The
    /// default trims whitespace and trailing slashes; a vendor whose variable takes a looser
    /// form (Ollama's `OLLAMA_HOST=gpu-box`) normalises it here.
    fn base_url(&self, url: &str) -> String {
        url.trim().trim_end_matches('/').to_owned()
    }

    /// Refines the error of a non-2xx response from its (redacted) body, for vendors whose
    /// error bodies say more than the common shape. The default keeps the error.
    fn refine_error(&self, error: ProviderError, body: &str) -> ProviderError {
        let _ = body;
        error
    }

    /// Whether this API compacts a conversation on the server
    /// ([`encode_compaction`](WireFormat::encode_compaction)). `false` by default.
    fn supports_compaction(&self) -> bool {
        false
    }

    /// The path and JSON body of a native compaction call over `request.messages`, with the
    /// caller's summarising `instructions`. Called only when
    /// [`supports_compaction`](WireFormat::supports_compaction) says so.
    ///
    /// # Errors
    /// `InvalidRequest` for a request the compaction call cannot carry; the default is
    /// [`no_native_compaction`].
    fn encode_compaction(
        &self,
        request: &ModelRequest,
        instructions: Option<&str>,
        call: &CallContext<'_>,
    ) -> Result<(String, Encoded<serde_json::Value>), ProviderError> {
        let _ = (request, instructions, call);
        Err(no_native_compaction(self.vendor().name))
    }

    /// Reads the answer of a native compaction call.
    ///
    /// # Errors
    /// `Decode` when the body is not the API's compaction answer; the default is
    /// [`no_native_compaction`].
    fn decode_compaction(
        &self,
        body: &[u8],
        call: &CallContext<'_>,
    ) -> Result<CompactedWindow, ProviderError> {
        let _ = (body, call);
        Err(no_native_compaction(self.vendor().name))
    }
}

/// The error of a compaction asked of a provider that has none (`Unsupported`, saying what to
/// do instead).
#[must_use]
pub fn no_native_compaction(provider: &'static str) -> ProviderError {
    ProviderError::new(
        provider,
        LlmErrorKind::Unsupported,
        format!("{provider} has no native compaction; compact with a summary instead"),
    )
}

/// A header value holding a secret: marked sensitive (never printed by reqwest or h2).
///
/// # Errors
/// `InvalidRequest` when the text cannot be a header value (the message names no secret).
pub fn secret_header(provider: &'static str, text: &str) -> Result<HeaderValue, ProviderError> {
    let mut value = HeaderValue::from_str(text).map_err(|_| {
        ProviderError::new(
            provider,
            dive_core::LlmErrorKind::InvalidRequest,
            "the API key holds characters not allowed in a header",
        )
    })?;
    value.set_sensitive(true);
    Ok(value)
}
