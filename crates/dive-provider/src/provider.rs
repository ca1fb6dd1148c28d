//! [`HttpProvider`]: the one [`Llm`] implementation of every HTTP provider, generic over
//! its [`WireFormat`].
//!
//! **Design.** A provider crate is a wire format (typed request body, response decoder,
//! stream mapper, endpoint, auth, error refinement), a catalog and a `const` [`Vendor`]. This
//! type owns everything they share, once: the builder ([`ProviderBuilder`]), the key as a
//! [`Secret`] sent only in its header, the base URL and extra headers, one retry layer
//! ([`RetryPolicy`], streams retried only before their first event), status classification
//! with every secret redacted, framing (SSE or NDJSON, chosen by the mapper's frame type), the
//! stream adapter ([`Events`]) and pricing from the vendor's catalog. `build()` never reads
//! the environment; `from_env()` reads the variables the vendor facts name.

use std::collections::BTreeMap;
use std::fmt;

use dive_core::{
    BoxFuture, CompactedWindow, EventStream, Llm, LlmError, LlmErrorKind, ModelInfo, ModelRequest,
    ModelResponse, Pricing, Secret, StreamEvent, redact,
};
use futures_util::StreamExt;
use futures_util::future::Either;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use crate::silence::{head_within, read_whole};
use crate::{
    CallContext, Encoded, Events, Frame, ProviderBuilder, ProviderError, RetryPolicy, StreamMapper, Vendor,
    WireFormat, check_status_with, no_native_compaction, open_stream, price,
};

/// An [`Llm`] over HTTP speaking wire format `W`. `Debug` never shows the key.
///
/// Provider crates name it: `pub type Anthropic = HttpProvider<Messages>;`, so
/// `Anthropic::builder()` and `Anthropic::from_env()` come from here.
#[derive(Clone)]
pub struct HttpProvider<W> {
    pub(crate) wire: W,
    pub(crate) vendor: Vendor,
    pub(crate) api_key: Option<Secret>,
    pub(crate) base_url: String,
    pub(crate) model: String,
    /// The catalog entry of `model`, looked up once.
    pub(crate) model_info: Option<&'static ModelInfo>,
    pub(crate) max_tokens: Option<u32>,
    pub(crate) retry: RetryPolicy,
    pub(crate) headers: BTreeMap<String, String>,
    /// The headers of every call (authorization, the extra headers, the content type), built
    /// once by the builder; each call clones it and adds its own.
    pub(crate) base_headers: HeaderMap,
    /// The endpoint URLs called so far, parsed once each (shared by clones).
    pub(crate) urls: std::sync::Arc<crate::urls::ParsedUrls>,
    /// How large the request bodies have been (shared by clones).
    pub(crate) body_sizes: std::sync::Arc<crate::body_sizes::BodySizes>,
    pub(crate) client: reqwest::Client,
    /// The read timeout this provider applies itself (`None`: a client of the caller's own,
    /// whose timeouts apply).
    pub(crate) read_timeout: Option<std::time::Duration>,
}

/// A request ready to send: its path below the base URL, its serialized body and the call's
/// own headers.
struct ReadyRequest {
    path: std::borrow::Cow<'static, str>,
    body: bytes::Bytes,
    headers: Vec<(&'static str, String)>,
}

/// A call encoded before its future is made: the sent request and what it kept of the
/// [`ModelRequest`] (the model it named and its extra headers). The request itself is dropped
/// once encoded, so the call's future, which is boxed, holds none of it.
struct PreparedCall {
    ready: ReadyRequest,
    /// The model the request named (`None`: the provider's own).
    model: Option<String>,
    /// The request's extra HTTP headers.
    extra: BTreeMap<String, String>,
}

impl<W: WireFormat> fmt::Debug for HttpProvider<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpProvider")
            .field("provider", &self.vendor.name)
            .field("wire", &self.wire)
            .field("api_key", &self.api_key)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("retry", &self.retry)
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

impl<W: WireFormat + Default> HttpProvider<W> {
    /// A builder with nothing set (no environment read).
    pub fn builder() -> ProviderBuilder<W> {
        ProviderBuilder::new(W::default())
    }

    /// A builder with the key and base URL read from the vendor's variables.
    pub fn builder_from_env() -> ProviderBuilder<W> {
        ProviderBuilder::from_env(W::default())
    }

    /// A provider from the vendor's variables.
    ///
    /// # Errors
    /// See [`ProviderBuilder::build`].
    pub fn from_env() -> Result<Self, LlmError> {
        Self::builder_from_env().build()
    }
}

impl<W: WireFormat> HttpProvider<W> {
    /// The API root this provider calls.
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The vendor facts.
    #[must_use]
    pub fn vendor(&self) -> &Vendor {
        &self.vendor
    }

    /// The wire format.
    #[must_use]
    pub fn wire(&self) -> &W {
        &self.wire
    }

    /// The retry policy.
    #[must_use]
    pub fn retry_policy(&self) -> &RetryPolicy {
        &self.retry
    }

    /// The request body this provider sends for `request` (`stream` selects the streaming
    /// form), as JSON. Useful for tests and debugging; holds no API key.
    ///
    /// # Errors
    /// What [`WireFormat::encode`] refuses (`InvalidRequest`).
    pub fn request_body(&self, request: &ModelRequest, stream: bool) -> Result<serde_json::Value, LlmError> {
        let call = self.call(request, stream);
        let encoded = self.encode(request, &call)?;
        serde_json::to_value(&encoded.body).map_err(|e| {
            LlmError::new(LlmErrorKind::InvalidRequest, format!("request body does not serialize: {e}"))
                .with_provider(self.vendor.name)
        })
    }

    /// The wire's encoding, after refusing a provider-defined toolset this vendor has no
    /// entry for (every wire format gets that check without writing it).
    fn encode<'a>(
        &'a self,
        request: &'a ModelRequest,
        call: &CallContext<'a>,
    ) -> Result<Encoded<W::Body<'a>>, ProviderError> {
        request
            .refuse_undeclared(self.vendor.name)
            .map_err(|e| ProviderError::new(self.vendor.name, LlmErrorKind::InvalidRequest, e.message))?;
        self.wire.encode(request, call)
    }

    fn call<'a>(&'a self, request: &'a ModelRequest, stream: bool) -> CallContext<'a> {
        self.call_for(request.model.as_deref(), stream)
    }

    /// The call context of a request that named `model` (`None`: the provider's own).
    fn call_for<'a>(&'a self, model: Option<&'a str>, stream: bool) -> CallContext<'a> {
        let model = model.unwrap_or(&self.model);
        CallContext {
            vendor: &self.vendor,
            base_url: &self.base_url,
            model,
            model_info: self.model_info(model),
            max_tokens: self.max_tokens,
            stream,
        }
    }

    /// The catalog entry of `model`: the provider's own model's is looked up once, at build.
    fn model_info(&self, model: &str) -> Option<&'static ModelInfo> {
        if model == self.model { self.model_info } else { self.vendor.model_info(model) }
    }

    /// The catalog prices of `model`, the one `call` asked for (known already) or another
    /// that served it.
    fn pricing(&self, call: &CallContext<'_>, model: &str) -> Option<&'static Pricing> {
        let info = if model == call.model { call.model_info } else { self.model_info(model) };
        info.and_then(|m| m.pricing.as_ref())
    }

    fn secrets(&self) -> Vec<&Secret> {
        self.api_key.iter().collect()
    }

    /// The base headers plus the call's own (the wire format's, then the request's).
    fn header_map(
        &self,
        per_call: &[(&'static str, String)],
        extra: &BTreeMap<String, String>,
    ) -> Result<HeaderMap, ProviderError> {
        let mut headers = self.base_headers.clone();
        headers.reserve(per_call.len() + extra.len());
        for (k, v) in per_call {
            // The provider's own headers and the content type win over the wire format's.
            let overridden = k.eq_ignore_ascii_case(CONTENT_TYPE.as_str())
                || self.headers.keys().any(|h| h.eq_ignore_ascii_case(k));
            if overridden {
                continue;
            }
            let value = HeaderValue::from_str(v).map_err(|_| invalid_header(self.vendor.name, k))?;
            headers.insert(*k, value);
        }
        let extra = extra.iter().filter(|(k, _)| !k.eq_ignore_ascii_case(CONTENT_TYPE.as_str()));
        insert_headers(self.vendor.name, &mut headers, extra)?;
        Ok(headers)
    }

    /// One POST of an encoded body (already serialized) to `path` below the base URL, status
    /// checked, no retry.
    async fn send(
        &self,
        path: &str,
        body: &bytes::Bytes,
        per_call: &[(&'static str, String)],
        extra: &BTreeMap<String, String>,
    ) -> Result<reqwest::Response, ProviderError> {
        let provider = self.vendor.name;
        let headers = self.header_map(per_call, extra)?;
        let sent = match self.urls.get(&self.base_url, path) {
            // The request is built whole, so the header map moves into it as it is (a
            // request builder would copy it header by header into a map of its own).
            Ok(url) => {
                let mut request = reqwest::Request::new(reqwest::Method::POST, url);
                *request.headers_mut() = headers;
                *request.body_mut() = Some(body.clone().into());
                Either::Left(self.client.execute(request))
            }
            // The HTTP client reports the bad URL as it always does.
            Err(text) => Either::Right(self.client.post(text).headers(headers).body(body.clone()).send()),
        };
        let transport = |e| {
            let mut err = ProviderError::transport(provider, e);
            err.message = redact(&err.message, &self.secrets());
            err
        };
        let response =
            head_within(provider, self.read_timeout, async { sent.await.map_err(transport) }).await?;
        if response.status().is_success() {
            return Ok(response);
        }
        // Boxed: the error path's future is allocated when it runs, so the future of every
        // call does not carry room for it.
        let status = response.status().as_u16();
        let secrets = self.secrets();
        let check =
            check_status_with(provider, response, &secrets, |e, body| self.wire.refine_error(e, body));
        match self.read_timeout {
            // An error body that never ends is classified by its status alone.
            Some(limit) => Box::pin(tokio::time::timeout(limit, check))
                .await
                .unwrap_or_else(|_| Err(ProviderError::from_status(provider, status, ""))),
            None => Box::pin(check).await,
        }
    }

    /// The request ready to send. The typed body ends here, so the request futures that
    /// follow do not carry it.
    fn prepare<'a>(
        &'a self,
        request: &'a ModelRequest,
        call: &CallContext<'a>,
    ) -> Result<ReadyRequest, ProviderError> {
        let encoded = self.encode(request, call)?;
        let path = self.wire.path(&encoded, call);
        let body = self.serialize_body(&encoded.body)?;
        tracing::debug!(provider = self.vendor.name, base_url = %self.base_url, path = %path, model = call.model, "calling the API");
        Ok(ReadyRequest { path, body, headers: encoded.headers })
    }

    /// A request body as JSON, written into a buffer sized by the bodies before it.
    fn serialize_body(&self, body: &impl serde::Serialize) -> Result<bytes::Bytes, ProviderError> {
        let mut buffer = self.body_sizes.buffer();
        serde_json::to_writer(&mut buffer, body).map_err(|e| {
            ProviderError::new(
                self.vendor.name,
                LlmErrorKind::InvalidRequest,
                format!("request body does not serialize: {e}"),
            )
        })?;
        self.body_sizes.record(buffer.len());
        Ok(bytes::Bytes::from(buffer))
    }

    /// A POST to `path` whose whole answer body is read, retried by the provider's policy.
    /// The retry loop's future itself, with no `async fn` around it to copy its arguments.
    fn post_whole<'a>(
        &'a self,
        path: &'a str,
        body: &'a bytes::Bytes,
        per_call: &'a [(&'static str, String)],
        extra: &'a BTreeMap<String, String>,
    ) -> impl Future<Output = Result<bytes::Bytes, ProviderError>> + 'a {
        let provider = self.vendor.name;
        self.retry.run(move || async move {
            let response = self.send(path, body, per_call, extra).await?;
            read_whole(provider, response, self.read_timeout).await
        })
    }

    /// `request` encoded and serialized, with what the call keeps of it; the request is
    /// dropped here.
    fn prepare_call(&self, mut request: ModelRequest, stream: bool) -> Result<PreparedCall, ProviderError> {
        let ready = self.prepare(&request, &self.call(&request, stream))?;
        Ok(PreparedCall { ready, model: request.model.take(), extra: std::mem::take(&mut request.headers) })
    }

    /// The call's future (boxed by [`Llm::generate`]): an `async` block over `prepared`, not an
    /// `async fn`, whose future would hold `prepared` twice (argument and local), and its
    /// fields used where they are, not destructured into copies. It stays within the
    /// allocator's per-thread cache that way.
    #[allow(clippy::manual_async_fn)]
    fn generate_prepared(
        &self,
        prepared: PreparedCall,
    ) -> impl Future<Output = Result<ModelResponse, LlmError>> + '_ {
        async move {
            let ready = &prepared.ready;
            let bytes = self.post_whole(&ready.path, &ready.body, &ready.headers, &prepared.extra).await?;
            let call = self.call_for(prepared.model.as_deref(), false);
            let mut response = self.wire.decode(&bytes, &call)?;
            let model = if response.model.is_empty() { call.model } else { &response.model };
            price(&mut response.usage, self.pricing(&call, model));
            Ok(response)
        }
    }

    /// The stream's opening future (boxed by [`Llm::stream`]), written as
    /// [`generate_prepared`](Self::generate_prepared) is, for the same reason.
    #[allow(clippy::manual_async_fn)]
    fn stream_prepared(
        &self,
        prepared: PreparedCall,
    ) -> impl Future<Output = Result<EventStream, LlmError>> + '_ {
        async move {
            let call = self.call_for(prepared.model.as_deref(), true);
            let pricing = self.pricing(&call, call.model);
            let provider = self.vendor.name;
            let ready = &prepared.ready;
            let (path, body, per_call, extra, call) =
                (&*ready.path, &ready.body, &ready.headers, &prepared.extra, &call);
            let events = open_stream(
                &self.retry,
                move || async move {
                    let response = self.send(path, body, per_call, extra).await?;
                    let frames = <<W::Mapper as StreamMapper>::Frame as Frame>::frames(provider, response);
                    let events = Events::new(provider, frames, self.wire.mapper(call), pricing.cloned());
                    Ok(match self.read_timeout {
                        Some(limit) => events.with_read_timeout(limit),
                        None => events,
                    })
                },
                |event| !matches!(event, StreamEvent::Ping),
            )
            .await?;
            Ok(EventStream::new(events.map(|item| item.map_err(LlmError::from))))
        }
    }

    async fn compact_inner(
        &self,
        request: ModelRequest,
        instructions: Option<String>,
    ) -> Result<CompactedWindow, ProviderError> {
        let provider = self.vendor.name;
        let call = self.call(&request, false);
        request
            .refuse_undeclared(provider)
            .map_err(|e| ProviderError::new(provider, LlmErrorKind::InvalidRequest, e.message))?;
        if !self.wire.supports_compaction() {
            return Err(no_native_compaction(provider));
        }
        let (path, encoded) = self.wire.encode_compaction(&request, instructions.as_deref(), &call)?;
        let body = self.serialize_body(&encoded.body)?;
        tracing::debug!(provider, base_url = %self.base_url, path = %path, model = call.model, "compacting on the server");
        let bytes = self.post_whole(&path, &body, &encoded.headers, &request.headers).await?;
        let mut compacted = self.wire.decode_compaction(&bytes, &call)?;
        price(&mut compacted.usage, self.pricing(&call, call.model));
        Ok(compacted)
    }
}

impl<W: WireFormat> Llm for HttpProvider<W> {
    fn provider(&self) -> &str {
        self.vendor.name
    }

    fn model(&self) -> &str {
        &self.model
    }

    // The request is encoded before the future is boxed, so the future holds only what is
    // sent and stays small (a boxed future under about a kilobyte comes from the allocator's
    // per-thread cache; a larger one goes through its bins on every call).
    fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>> {
        match self.prepare_call(request, false) {
            Ok(prepared) => Box::pin(self.generate_prepared(prepared)),
            Err(e) => Box::pin(std::future::ready(Err(e.into()))),
        }
    }

    fn stream(&self, request: ModelRequest) -> BoxFuture<'_, Result<EventStream, LlmError>> {
        match self.prepare_call(request, true) {
            Ok(prepared) => Box::pin(self.stream_prepared(prepared)),
            Err(e) => Box::pin(std::future::ready(Err(e.into()))),
        }
    }

    fn supports_streaming(&self) -> bool {
        true
    }

    fn endpoint(&self) -> Option<&str> {
        Some(&self.base_url)
    }

    fn model_info(&self) -> Option<ModelInfo> {
        self.vendor.model_info(&self.model).cloned()
    }

    fn supports_compaction(&self) -> bool {
        self.wire.supports_compaction()
    }

    fn compact(
        &self,
        request: ModelRequest,
        instructions: Option<String>,
    ) -> BoxFuture<'_, Result<CompactedWindow, LlmError>> {
        Box::pin(async move { self.compact_inner(request, instructions).await.map_err(LlmError::from) })
    }
}

/// The error for a header that cannot be sent, naming it (never its value, which may be a key).
fn invalid_header(provider: &'static str, name: &str) -> ProviderError {
    ProviderError::new(provider, LlmErrorKind::InvalidRequest, format!("invalid value for header {name}"))
}

/// Adds `headers` (name, value) to `map`.
pub(crate) fn insert_headers<'a>(
    provider: &'static str,
    map: &mut HeaderMap,
    headers: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Result<(), ProviderError> {
    for (k, v) in headers {
        let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| {
            ProviderError::new(provider, LlmErrorKind::InvalidRequest, format!("invalid header name {k:?}"))
        })?;
        let value = HeaderValue::from_str(v).map_err(|_| invalid_header(provider, k))?;
        map.insert(name, value);
    }
    Ok(())
}

/// The headers every call of a provider sends: authorization, `extra`, the content type.
pub(crate) fn base_headers<W: WireFormat>(
    wire: &W,
    api_key: Option<&Secret>,
    extra: &BTreeMap<String, String>,
    client_defaults: &[(HeaderName, HeaderValue)],
) -> Result<HeaderMap, ProviderError> {
    let mut headers =
        HeaderMap::with_capacity(extra.len() + 2 + wire.fixed_headers().len() + client_defaults.len());
    if let Some(key) = api_key {
        wire.authorize(key, &mut headers)?;
    }
    for (name, value) in wire.fixed_headers() {
        headers.insert(*name, HeaderValue::from_static(value));
    }
    insert_headers(wire.vendor().name, &mut headers, extra)?;
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    // What the HTTP client would add to every request, added here once: a request that
    // already has them is sent as it is, not grown by the client on every call.
    for (name, value) in client_defaults {
        headers.entry(name).or_insert_with(|| value.clone());
    }
    Ok(headers)
}
