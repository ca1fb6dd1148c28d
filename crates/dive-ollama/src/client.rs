//! [`Ollama`]: the [`Llm`] for `/api/chat`, and its builder.

use std::collections::BTreeMap;

use dive_core::{
    BoxFuture, EventStream, Llm, LlmError, LlmErrorKind, ModelInfo, ModelRequest, ModelResponse, Secret,
    StreamEvent, redact,
};
use dive_provider::reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use dive_provider::{
    HttpOptions, ProviderError, RetryPolicy, api_key_from_env, check_status, open_stream, reqwest,
};
use futures_util::StreamExt;
use serde_json::Value;

use crate::PROVIDER;
use crate::catalog::{DEFAULT_MODEL, model_info};
use crate::decode::{decode_response, price};
use crate::encode::{EncodeOptions, encode_request};
use crate::ndjson::decode_ndjson;
use crate::stream::{OllamaEvents, line_error};

/// The server used when neither the builder nor `OLLAMA_HOST` names one.
pub const DEFAULT_HOST: &str = "http://localhost:11434";

/// Normalises an `OLLAMA_HOST`-style value into a base URL, as the `ollama` CLI and SDK read
/// it: a missing scheme means `http`, a missing port on plain `http` means 11434, a trailing
/// slash is dropped, and an empty value means [`DEFAULT_HOST`].
///
/// ```
/// use dive_ollama::parse_host;
/// assert_eq!(parse_host(""), "http://localhost:11434");
/// assert_eq!(parse_host("10.0.0.5"), "http://10.0.0.5:11434");
/// assert_eq!(parse_host(":9999"), "http://localhost:9999");
/// assert_eq!(parse_host("https://ollama.example.com/"), "https://ollama.example.com");
/// assert_eq!(parse_host("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
/// ```
#[must_use]
pub fn parse_host(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    if host.is_empty() {
        return DEFAULT_HOST.to_owned();
    }
    let (scheme, rest) = match host.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => ("http".to_owned(), host),
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let authority =
        if authority.starts_with(':') { format!("localhost{authority}") } else { authority.to_owned() };
    // A port is a `:digits` suffix after any IPv6 literal.
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(h, p)| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && !h.ends_with(':'));
    let authority = if has_port || scheme != "http" { authority } else { format!("{authority}:11434") };
    format!("{scheme}://{authority}{path}")
}

/// Ollama's `/api/chat` as an [`Llm`].
///
/// `Debug` never shows the API key (used only with Ollama's hosted service).
///
/// ```no_run
/// use dive_ollama::Ollama;
/// use dive_core::{Llm, Message, ModelRequest};
/// # async fn run() -> Result<(), dive_core::LlmError> {
/// let llm = Ollama::from_env()?; // OLLAMA_HOST, default http://localhost:11434
/// let reply = llm.generate(ModelRequest::new(vec![Message::user("Hello")])).await?;
/// println!("{}", reply.text_content());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Ollama {
    api_key: Option<Secret>,
    base_url: String,
    model: String,
    num_ctx: Option<u32>,
    keep_alive: Option<String>,
    retry: RetryPolicy,
    headers: BTreeMap<String, String>,
    client: reqwest::Client,
}

/// Builds an [`Ollama`]. An unset host falls back to `OLLAMA_HOST`, then
/// [`DEFAULT_HOST`]; an unset key to `OLLAMA_API_KEY` (none is needed locally).
#[derive(Debug, Default)]
#[must_use]
pub struct OllamaBuilder {
    api_key: Option<Secret>,
    host: Option<String>,
    model: Option<String>,
    num_ctx: Option<u32>,
    keep_alive: Option<String>,
    retry: Option<RetryPolicy>,
    http: Option<HttpOptions>,
    client: Option<reqwest::Client>,
    headers: BTreeMap<String, String>,
}

impl OllamaBuilder {
    /// The server, e.g. `http://localhost:11434` or `gpu-box:11434` (see [`parse_host`]).
    pub fn host(mut self, host: impl Into<String>) -> Self {
        self.host = Some(host.into());
        self
    }

    /// Same as [`host`](Self::host), named like the other providers' builders.
    pub fn base_url(self, url: impl Into<String>) -> Self {
        self.host(url)
    }

    /// A bearer token (Ollama's hosted service or an authenticating proxy).
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The default model; [`DEFAULT_MODEL`](crate::DEFAULT_MODEL) when unset.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The context window Ollama allocates (`options.num_ctx`); Ollama's own default is
    /// small (4096 tokens in most versions), too small for agents with tools.
    pub fn num_ctx(mut self, tokens: u32) -> Self {
        self.num_ctx = Some(tokens);
        self
    }

    /// How long the server keeps the model loaded after a call (`"5m"`, `"1h"`, `"-1"`).
    pub fn keep_alive(mut self, duration: impl Into<String>) -> Self {
        self.keep_alive = Some(duration.into());
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

    /// Builds the client. No key is required.
    ///
    /// # Errors
    /// `Other` when the HTTP client cannot be built.
    pub fn build(self) -> Result<Ollama, LlmError> {
        let host = self.host.or_else(|| std::env::var("OLLAMA_HOST").ok()).unwrap_or_default();
        let client = match self.client {
            Some(c) => c,
            None => self.http.unwrap_or_default().build_client().map_err(LlmError::from)?,
        };
        Ok(Ollama {
            api_key: self.api_key.or_else(|| api_key_from_env("OLLAMA_API_KEY")),
            base_url: parse_host(&host),
            model: self.model.unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
            num_ctx: self.num_ctx,
            keep_alive: self.keep_alive,
            retry: self.retry.unwrap_or_default(),
            headers: self.headers,
            client,
        })
    }
}

impl Ollama {
    /// A builder.
    pub fn builder() -> OllamaBuilder {
        OllamaBuilder::default()
    }

    /// A client from `OLLAMA_HOST` (and `OLLAMA_API_KEY` when set).
    ///
    /// # Errors
    /// See [`OllamaBuilder::build`].
    pub fn from_env() -> Result<Self, LlmError> {
        Self::builder().build()
    }

    /// The server this client calls.
    #[must_use]
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The request body this client sends for `request` (`stream` selects the streaming
    /// form). Useful for tests and debugging; holds no secret.
    #[must_use]
    pub fn request_body(&self, request: &ModelRequest, stream: bool) -> Value {
        encode_request(
            request,
            &EncodeOptions {
                model: &self.model,
                num_ctx: self.num_ctx,
                keep_alive: self.keep_alive.as_deref(),
                stream,
            },
        )
    }

    fn secrets(&self) -> Vec<&Secret> {
        self.api_key.iter().collect()
    }

    fn headers(&self, extra: &BTreeMap<String, String>) -> Result<HeaderMap, ProviderError> {
        let invalid =
            |what: &str| ProviderError::new(PROVIDER, LlmErrorKind::InvalidRequest, what.to_owned());
        let mut headers = HeaderMap::new();
        if let Some(key) = &self.api_key {
            let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
                .map_err(|_| invalid("the API key holds characters not allowed in a header"))?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
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
        body: &Value,
        extra: &BTreeMap<String, String>,
    ) -> Result<reqwest::Response, ProviderError> {
        let url = format!("{}/api/chat", self.base_url);
        let headers = self.headers(extra)?;
        tracing::debug!(url = %url, model = ?body.get("model"), "calling Ollama /api/chat");
        let response = self.client.post(url).headers(headers).json(body).send().await.map_err(|e| {
            let mut err = ProviderError::transport(PROVIDER, e);
            err.message = redact(&err.message, &self.secrets());
            err
        })?;
        check_status(PROVIDER, response, &self.secrets()).await
    }

    fn pricing(&self, request: &ModelRequest) -> Option<dive_core::Pricing> {
        model_info(request.model.as_deref().unwrap_or(&self.model)).and_then(|m| m.pricing.clone())
    }

    async fn generate_inner(&self, request: ModelRequest) -> Result<ModelResponse, ProviderError> {
        let body = self.request_body(&request, false);
        let text = self
            .retry
            .run(|| async {
                let response = self.send(&body, &request.headers).await?;
                response.text().await.map_err(|e| ProviderError::transport(PROVIDER, e))
            })
            .await?;
        let json: Value = serde_json::from_str(&text).map_err(|e| {
            ProviderError::new(PROVIDER, LlmErrorKind::Decode, format!("response is not JSON: {e}"))
        })?;
        if let Some(error) = json.get("error").filter(|e| !e.is_null()) {
            return Err(line_error(error));
        }
        let mut response = decode_response(&json);
        price(&mut response.usage, self.pricing(&request).as_ref());
        Ok(response)
    }

    async fn stream_inner(&self, request: ModelRequest) -> Result<EventStream, ProviderError> {
        let body = self.request_body(&request, true);
        let pricing = self.pricing(&request);
        let (body, headers, pricing) = (&body, &request.headers, &pricing);
        let events = open_stream(
            &self.retry,
            move || async move {
                let response = self.send(body, headers).await?;
                let lines = decode_ndjson(PROVIDER, Box::pin(response.bytes_stream()));
                Ok(OllamaEvents::new(Box::pin(lines), pricing.clone()))
            },
            |event| !matches!(event, StreamEvent::Ping),
        )
        .await?;
        Ok(Box::pin(events.map(|item| item.map_err(LlmError::from))))
    }
}

impl Llm for Ollama {
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
