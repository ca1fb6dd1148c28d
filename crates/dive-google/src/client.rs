//! [`Gemini`]: the [`Llm`] for the Gemini API, and its builder.

use std::collections::BTreeMap;

use dive_core::{
    BoxFuture, EventStream, Llm, LlmError, LlmErrorKind, ModelInfo, ModelRequest, ModelResponse, Secret,
    StreamEvent, redact,
};
use dive_provider::reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use dive_provider::{
    HttpOptions, ProviderError, RetryPolicy, api_key_from_env, open_stream, reqwest, response_sse,
};
use futures_util::StreamExt;
use serde_json::Value;

use crate::PROVIDER;
use crate::catalog::{DEFAULT_MODEL, model_info};
use crate::decode::{decode_response, price};
use crate::encode::{EncodeOptions, encode_request, request_model};
use crate::error::check_status;
use crate::stream::GeminiEvents;

/// The default API endpoint.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com";
/// The API version path segment used unless [`GeminiBuilder::api_version`] says otherwise.
pub const DEFAULT_API_VERSION: &str = "v1beta";
/// `maxOutputTokens` when neither the request nor the builder sets one (capped by the
/// model's output limit).
pub const DEFAULT_MAX_TOKENS: u32 = 32_768;

/// The Gemini API (`generateContent`, `streamGenerateContent`) as an [`Llm`].
///
/// `Debug` never shows the API key; it is sent only in the `x-goog-api-key` header.
///
/// ```no_run
/// use dive_google::Gemini;
/// use dive_core::{Llm, Message, ModelRequest};
/// # async fn run() -> Result<(), dive_core::LlmError> {
/// let gemini = Gemini::from_env()?; // GEMINI_API_KEY (or GOOGLE_API_KEY), optional GEMINI_BASE_URL
/// let reply = gemini.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// println!("{}", reply.text_content());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Gemini {
    api_key: Secret,
    base_url: String,
    api_version: String,
    model: String,
    max_tokens: Option<u32>,
    retry: RetryPolicy,
    headers: BTreeMap<String, String>,
    client: reqwest::Client,
}

/// Builds a [`Gemini`]. An unset key falls back to `GEMINI_API_KEY`, then `GOOGLE_API_KEY`;
/// an unset base URL to `GEMINI_BASE_URL`, then [`DEFAULT_BASE_URL`].
#[derive(Debug, Default)]
#[must_use]
pub struct GeminiBuilder {
    api_key: Option<Secret>,
    base_url: Option<String>,
    api_version: Option<String>,
    model: Option<String>,
    max_tokens: Option<u32>,
    retry: Option<RetryPolicy>,
    http: Option<HttpOptions>,
    client: Option<reqwest::Client>,
    headers: BTreeMap<String, String>,
}

impl GeminiBuilder {
    /// The API key.
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The API root, e.g. `https://generativelanguage.googleapis.com` or a proxy (no version
    /// segment; see [`api_version`](Self::api_version)).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The API version segment (default [`DEFAULT_API_VERSION`]; `v1` for the stable surface).
    pub fn api_version(mut self, version: impl Into<String>) -> Self {
        self.api_version = Some(version.into());
        self
    }

    /// The default model (see [`crate::MODELS`]); [`DEFAULT_MODEL`](crate::DEFAULT_MODEL) when unset.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The default `maxOutputTokens`.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The retry policy (default: 3 retries, 2 s base delay).
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// Transport settings used to build the HTTP client.
    pub fn http_options(mut self, options: HttpOptions) -> Self {
        self.http = Some(options);
        self
    }

    /// A ready HTTP client (its own timeouts apply).
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// An extra header sent with every call.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Builds the client.
    ///
    /// # Errors
    /// `Authentication` when no API key was given and neither `GEMINI_API_KEY` nor
    /// `GOOGLE_API_KEY` is set; `Other` when the HTTP client cannot be built.
    pub fn build(self) -> Result<Gemini, LlmError> {
        let api_key = self
            .api_key
            .or_else(|| api_key_from_env("GEMINI_API_KEY"))
            .or_else(|| api_key_from_env("GOOGLE_API_KEY"))
            .ok_or_else(|| {
                LlmError::new(
                    LlmErrorKind::Authentication,
                    "no Gemini API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) or call GeminiBuilder::api_key",
                )
                .with_provider(PROVIDER)
            })?;
        let base_url = self
            .base_url
            .or_else(|| std::env::var("GEMINI_BASE_URL").ok().filter(|u| !u.trim().is_empty()))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        let client = match self.client {
            Some(c) => c,
            None => self.http.unwrap_or_default().build_client().map_err(LlmError::from)?,
        };
        let model = self.model.unwrap_or_else(|| DEFAULT_MODEL.to_owned());
        Ok(Gemini {
            api_key,
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_version: self.api_version.unwrap_or_else(|| DEFAULT_API_VERSION.to_owned()),
            model: model.strip_prefix("models/").unwrap_or(&model).to_owned(),
            max_tokens: self.max_tokens,
            retry: self.retry.unwrap_or_default(),
            headers: self.headers,
            client,
        })
    }
}

impl Gemini {
    /// A builder.
    pub fn builder() -> GeminiBuilder {
        GeminiBuilder::default()
    }

    /// A client from `GEMINI_API_KEY` (or `GOOGLE_API_KEY`) and, optionally, `GEMINI_BASE_URL`.
    ///
    /// # Errors
    /// See [`GeminiBuilder::build`].
    pub fn from_env() -> Result<Self, LlmError> {
        Self::builder().build()
    }

    /// The API root this client calls.
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The request body this client sends for `request` (the same for both methods). Useful
    /// for tests and debugging; holds no secret.
    ///
    /// # Errors
    /// `InvalidRequest` when a tool's input schema or the response schema uses a keyword
    /// Gemini cannot take (its source is a [`SchemaError`](crate::SchemaError)).
    pub fn request_body(&self, request: &ModelRequest) -> Result<Value, LlmError> {
        let body = self.encode(request).map_err(LlmError::from)?;
        serde_json::to_value(&body).map_err(|e| LlmError::new(LlmErrorKind::Other, e.to_string()))
    }

    fn encode<'a>(&'a self, request: &'a ModelRequest) -> Result<crate::Body<'a>, ProviderError> {
        let model = request_model(request, &self.model);
        let limit = model_info(model).map(|m| u32::try_from(m.max_output_tokens).unwrap_or(u32::MAX));
        let max_tokens =
            self.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS.min(limit.unwrap_or(DEFAULT_MAX_TOKENS)));
        let files_base = format!("{}/{}", self.base_url, self.api_version);
        encode_request(request, EncodeOptions { model, max_tokens, files_base }).map_err(|e| {
            ProviderError::new(PROVIDER, LlmErrorKind::InvalidRequest, e.to_string()).with_source(e)
        })
    }

    fn headers(&self, extra: &BTreeMap<String, String>) -> Result<HeaderMap, ProviderError> {
        let invalid =
            |what: &str| ProviderError::new(PROVIDER, LlmErrorKind::InvalidRequest, what.to_owned());
        let mut headers = HeaderMap::new();
        let mut key = HeaderValue::from_str(self.api_key.expose())
            .map_err(|_| invalid("the API key holds characters not allowed in a header"))?;
        key.set_sensitive(true);
        headers.insert("x-goog-api-key", key);
        for (k, v) in self.headers.iter().chain(extra) {
            let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| invalid("invalid header name"))?;
            let value = HeaderValue::from_str(v).map_err(|_| invalid("invalid header value"))?;
            headers.insert(name, value);
        }
        Ok(headers)
    }

    async fn send(
        &self,
        model: &str,
        body: &crate::Body<'_>,
        stream: bool,
        extra: &BTreeMap<String, String>,
    ) -> Result<reqwest::Response, ProviderError> {
        let method = if stream { "streamGenerateContent?alt=sse" } else { "generateContent" };
        let url = format!("{}/{}/models/{model}:{method}", self.base_url, self.api_version);
        let headers = self.headers(extra)?;
        tracing::debug!(url = %url, "calling the Gemini API");
        let response = self.client.post(url).headers(headers).json(body).send().await.map_err(|e| {
            let mut err = ProviderError::transport(PROVIDER, e);
            err.message = redact(&err.message, &[&self.api_key]);
            err
        })?;
        check_status(response, &[&self.api_key]).await
    }

    async fn generate_inner(&self, request: ModelRequest) -> Result<ModelResponse, ProviderError> {
        let body = self.encode(&request)?;
        let model = request_model(&request, &self.model);
        let text = self
            .retry
            .run(|| async {
                let response = self.send(model, &body, false, &request.headers).await?;
                response.text().await.map_err(|e| ProviderError::transport(PROVIDER, e))
            })
            .await?;
        let mut response = decode_response(&text)?;
        let pricing = model_info(model).and_then(|m| m.pricing.clone());
        price(&mut response.usage, pricing.as_ref());
        Ok(response)
    }

    async fn stream_inner(&self, request: ModelRequest) -> Result<EventStream, ProviderError> {
        let body = self.encode(&request)?;
        let model = request_model(&request, &self.model);
        let pricing = model_info(model).and_then(|m| m.pricing.clone());
        let (body, headers, pricing) = (&body, &request.headers, &pricing);
        let events = open_stream(
            &self.retry,
            move || async move {
                let response = self.send(model, body, true, headers).await?;
                Ok(GeminiEvents::new(Box::pin(response_sse(PROVIDER, response)), pricing.clone()))
            },
            |event| !matches!(event, StreamEvent::Ping),
        )
        .await?;
        Ok(Box::pin(events.map(|item| item.map_err(LlmError::from))))
    }
}

impl Llm for Gemini {
    fn provider(&self) -> &str {
        PROVIDER
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn generate(&self, request: ModelRequest) -> BoxFuture<'_, Result<ModelResponse, LlmError>> {
        Box::pin(async move { self.generate_inner(request).await.map_err(LlmError::from) })
    }

    fn stream(&self, request: ModelRequest) -> BoxFuture<'_, Result<EventStream, LlmError>> {
        Box::pin(async move { self.stream_inner(request).await.map_err(LlmError::from) })
    }

    fn supports_streaming(&self) -> bool {
        true
    }

    fn model_info(&self) -> Option<ModelInfo> {
        model_info(&self.model).cloned()
    }
}
