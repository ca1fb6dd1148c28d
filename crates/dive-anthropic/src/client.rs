//! [`Anthropic`]: the [`Llm`] for the Messages API, and its builder.

use std::collections::BTreeMap;

use dive_core::{
    BoxFuture, CacheTtl, EventStream, Llm, LlmError, LlmErrorKind, ModelInfo, ModelRequest, ModelResponse,
    Secret, StreamEvent, redact,
};
use dive_provider::reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use dive_provider::{
    HttpOptions, ProviderError, RetryPolicy, api_key_from_env, check_status, open_stream, reqwest,
    response_sse,
};
use futures_util::StreamExt;
use serde_json::Value;

use crate::PROVIDER;
use crate::catalog::{DEFAULT_MODEL, model_info};
use crate::decode::{decode_message, price};
use crate::encode::{EncodeOptions, Encoded, encode_request};
use crate::stream::AnthropicEvents;

/// The default API endpoint.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The `anthropic-version` header sent with every call.
pub const API_VERSION: &str = "2023-06-01";
/// `max_tokens` when neither the request nor the builder sets one (capped by the model's
/// output limit).
pub const DEFAULT_MAX_TOKENS: u32 = 32_768;

/// The Anthropic Messages API as an [`Llm`].
///
/// `Debug` never shows the API key.
///
/// ```no_run
/// use dive_anthropic::Anthropic;
/// use dive_core::{Llm, Message, ModelRequest};
/// # async fn run() -> Result<(), dive_core::LlmError> {
/// let claude = Anthropic::from_env()?; // ANTHROPIC_API_KEY, optional ANTHROPIC_BASE_URL
/// let reply = claude.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// println!("{}", reply.text_content());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Anthropic {
    api_key: Secret,
    base_url: String,
    model: String,
    max_tokens: Option<u32>,
    cache_ttl: Option<CacheTtl>,
    retry: RetryPolicy,
    headers: BTreeMap<String, String>,
    client: reqwest::Client,
}

/// Builds an [`Anthropic`]. Unset key and base URL fall back to `ANTHROPIC_API_KEY` and
/// `ANTHROPIC_BASE_URL`.
#[derive(Debug, Default)]
#[must_use]
pub struct AnthropicBuilder {
    api_key: Option<Secret>,
    base_url: Option<String>,
    model: Option<String>,
    max_tokens: Option<u32>,
    cache_ttl: Option<CacheTtl>,
    retry: Option<RetryPolicy>,
    http: Option<HttpOptions>,
    client: Option<reqwest::Client>,
    headers: BTreeMap<String, String>,
}

impl AnthropicBuilder {
    /// The API key.
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The API root, e.g. `https://api.anthropic.com` or a proxy (no `/v1`).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The default model (see [`crate::MODELS`]); [`DEFAULT_MODEL`](crate::DEFAULT_MODEL) when unset.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The default `max_tokens`.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The prompt-cache TTL of automatic breakpoints (the API default is 5 minutes).
    pub fn cache_ttl(mut self, ttl: CacheTtl) -> Self {
        self.cache_ttl = Some(ttl);
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
    /// `Authentication` when no API key was given and `ANTHROPIC_API_KEY` is unset; `Other`
    /// when the HTTP client cannot be built.
    pub fn build(self) -> Result<Anthropic, LlmError> {
        let api_key = self.api_key.or_else(|| api_key_from_env("ANTHROPIC_API_KEY")).ok_or_else(|| {
            LlmError::new(
                LlmErrorKind::Authentication,
                "no Anthropic API key: set ANTHROPIC_API_KEY or call AnthropicBuilder::api_key",
            )
            .with_provider(PROVIDER)
        })?;
        let base_url = self
            .base_url
            .or_else(|| std::env::var("ANTHROPIC_BASE_URL").ok().filter(|u| !u.trim().is_empty()))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        let client = match self.client {
            Some(c) => c,
            None => self.http.unwrap_or_default().build_client().map_err(LlmError::from)?,
        };
        Ok(Anthropic {
            api_key,
            base_url: base_url.trim_end_matches('/').to_owned(),
            model: self.model.unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
            max_tokens: self.max_tokens,
            cache_ttl: self.cache_ttl,
            retry: self.retry.unwrap_or_default(),
            headers: self.headers,
            client,
        })
    }
}

impl Anthropic {
    /// A builder.
    pub fn builder() -> AnthropicBuilder {
        AnthropicBuilder::default()
    }

    /// A client from `ANTHROPIC_API_KEY` and (optionally) `ANTHROPIC_BASE_URL`.
    ///
    /// # Errors
    /// See [`AnthropicBuilder::build`].
    pub fn from_env() -> Result<Self, LlmError> {
        Self::builder().build()
    }

    /// The API root this client calls.
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The request body this client sends for `request` (`stream` selects the streaming
    /// form). Useful for tests and debugging; holds no secret.
    #[must_use]
    pub fn request_body(&self, request: &ModelRequest, stream: bool) -> Value {
        self.encode(request, stream).body
    }

    fn encode(&self, request: &ModelRequest, stream: bool) -> Encoded {
        let model = request.model.as_deref().unwrap_or(&self.model);
        let limit = model_info(model).map(|m| u32::try_from(m.max_output_tokens).unwrap_or(u32::MAX));
        let max_tokens =
            self.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS.min(limit.unwrap_or(DEFAULT_MAX_TOKENS)));
        encode_request(
            request,
            &EncodeOptions { model: &self.model, max_tokens, cache_ttl: self.cache_ttl, stream },
        )
    }

    fn headers(
        &self,
        betas: &[String],
        extra: &BTreeMap<String, String>,
    ) -> Result<HeaderMap, ProviderError> {
        let invalid =
            |what: &str| ProviderError::new(PROVIDER, LlmErrorKind::InvalidRequest, what.to_owned());
        let mut headers = HeaderMap::new();
        let mut key = HeaderValue::from_str(self.api_key.expose())
            .map_err(|_| invalid("the API key holds characters not allowed in a header"))?;
        key.set_sensitive(true);
        headers.insert("x-api-key", key);
        headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        if !betas.is_empty() {
            let value =
                HeaderValue::from_str(&betas.join(",")).map_err(|_| invalid("invalid beta feature name"))?;
            headers.insert("anthropic-beta", value);
        }
        for (k, v) in self.headers.iter().chain(extra) {
            let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| invalid("invalid header name"))?;
            let value = HeaderValue::from_str(v).map_err(|_| invalid("invalid header value"))?;
            headers.insert(name, value);
        }
        Ok(headers)
    }

    async fn send(
        &self,
        encoded: &Encoded,
        extra: &BTreeMap<String, String>,
    ) -> Result<reqwest::Response, ProviderError> {
        let beta = if encoded.betas.is_empty() { "" } else { "?beta=true" };
        let url = format!("{}/v1/messages{beta}", self.base_url);
        let headers = self.headers(&encoded.betas, extra)?;
        tracing::debug!(url = %url, model = ?encoded.body.get("model"), "calling the Anthropic Messages API");
        let response =
            self.client.post(url).headers(headers).json(&encoded.body).send().await.map_err(|e| {
                let mut err = ProviderError::transport(PROVIDER, e);
                err.message = redact(&err.message, &[&self.api_key]);
                err
            })?;
        check_status(PROVIDER, response, &[&self.api_key]).await
    }

    async fn generate_inner(&self, request: ModelRequest) -> Result<ModelResponse, ProviderError> {
        let encoded = self.encode(&request, false);
        let text = self
            .retry
            .run(|| async {
                let response = self.send(&encoded, &request.headers).await?;
                response.text().await.map_err(|e| ProviderError::transport(PROVIDER, e))
            })
            .await?;
        let json: Value = serde_json::from_str(&text).map_err(|e| {
            ProviderError::new(PROVIDER, LlmErrorKind::Decode, format!("response is not JSON: {e}"))
        })?;
        let mut response = decode_message(json);
        let model = if response.model.is_empty() {
            request.model.as_deref().unwrap_or(&self.model)
        } else {
            &response.model
        };
        let pricing = model_info(model).and_then(|m| m.pricing.clone());
        price(&mut response.usage, pricing.as_ref());
        Ok(response)
    }

    async fn stream_inner(&self, request: ModelRequest) -> Result<EventStream, ProviderError> {
        let encoded = self.encode(&request, true);
        let model = request.model.as_deref().unwrap_or(&self.model);
        let pricing = model_info(model).and_then(|m| m.pricing.clone());
        let (encoded, headers, pricing) = (&encoded, &request.headers, &pricing);
        let events = open_stream(
            &self.retry,
            move || async move {
                let response = self.send(encoded, headers).await?;
                Ok(AnthropicEvents::new(Box::pin(response_sse(PROVIDER, response)), pricing.clone()))
            },
            |event| !matches!(event, StreamEvent::Ping),
        )
        .await?;
        Ok(Box::pin(events.map(|item| item.map_err(LlmError::from))))
    }
}

impl Llm for Anthropic {
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
