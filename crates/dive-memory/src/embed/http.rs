//! [`HttpEmbedder`]: batching, retries and errors shared by every HTTP embedder.

use dive_core::{BoxFuture, Embedder, LlmError, MemoryError, Secret};
use dive_provider::reqwest::{Client, RequestBuilder};
use dive_provider::{HttpOptions, ProviderError, RetryPolicy, api_key_from_env, check_status};
use serde_json::Value;

/// One vendor's embedding API: where to post, how to authenticate, the body for a batch and
/// how to read the vectors back.
pub trait Wire: Send + Sync + Default + 'static {
    /// The provider name in errors (`openai`, …).
    const PROVIDER: &'static str;
    /// The default base URL.
    const BASE_URL: &'static str;
    /// Variables `from_env` reads the key from, first set wins (none: no key).
    const KEY_VARS: &'static [&'static str];
    /// The variable `from_env` reads a base URL from.
    const BASE_URL_VAR: &'static str;
    /// The most inputs one request may carry.
    const MAX_BATCH: usize;

    /// The endpoint for `model`.
    fn url(&self, base: &str, model: &str) -> String;
    /// Adds authentication.
    fn auth(&self, request: RequestBuilder, key: &Secret) -> RequestBuilder;
    /// The JSON body for one batch; `dimensions` is set when the caller asked the API to
    /// shorten its vectors.
    fn body(&self, model: &str, texts: &[String], dimensions: Option<usize>) -> Value;
    /// The vectors in a response, in input order.
    ///
    /// # Errors
    /// A description of what is missing.
    fn parse(&self, body: &Value) -> Result<Vec<Vec<f32>>, String>;
}

/// An [`Embedder`] over a vendor's HTTP API. Inputs are sent in batches of at most
/// [`batch_size`](Self::batch_size) (the vendor's limit by default), one batch after another,
/// each retried by the [`RetryPolicy`] (429, 5xx, `Retry-After`); a failure is
/// [`MemoryError::Provider`] with the classified kind and no secret in it.
///
/// ```no_run
/// use dive_memory::embed::OpenAiEmbedder;
/// let embedder = OpenAiEmbedder::from_env("text-embedding-3-small", 1536).unwrap();
/// # let _ = embedder;
/// ```
pub struct HttpEmbedder<W: Wire> {
    wire: W,
    client: Client,
    base_url: String,
    key: Option<Secret>,
    model: String,
    dimensions: usize,
    request_dimensions: bool,
    batch_size: usize,
    retry: RetryPolicy,
}

impl<W: Wire> std::fmt::Debug for HttpEmbedder<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpEmbedder")
            .field("provider", &W::PROVIDER)
            .field("base_url", &self.base_url)
            .field("key", &self.key)
            .field("model", &self.model)
            .field("dimensions", &self.dimensions)
            .field("batch_size", &self.batch_size)
            .finish_non_exhaustive()
    }
}

fn provider_error(e: ProviderError) -> MemoryError {
    MemoryError::Provider(Box::new(LlmError::from(e)))
}

impl<W: Wire> HttpEmbedder<W> {
    /// An embedder of `model`, whose vectors have `dimensions` values, at the vendor's default
    /// URL, with no key (set one with [`api_key`](Self::api_key)).
    ///
    /// # Errors
    /// [`MemoryError::Provider`] when the HTTP client cannot be built.
    pub fn new(model: impl Into<String>, dimensions: usize) -> Result<Self, MemoryError> {
        Ok(Self {
            wire: W::default(),
            client: HttpOptions::default().build_client().map_err(provider_error)?,
            base_url: W::BASE_URL.to_owned(),
            key: None,
            model: model.into(),
            dimensions,
            request_dimensions: false,
            batch_size: W::MAX_BATCH,
            retry: RetryPolicy::default(),
        })
    }

    /// [`new`](Self::new) with the key and base URL from the vendor's usual variables
    /// (`OPENAI_API_KEY`/`OPENAI_BASE_URL`, `GEMINI_API_KEY` or `GOOGLE_API_KEY`/
    /// `GEMINI_BASE_URL`, `OLLAMA_API_KEY`/`OLLAMA_HOST`, `VOYAGE_API_KEY`/`VOYAGE_BASE_URL`).
    ///
    /// # Errors
    /// [`MemoryError::Provider`] when the HTTP client cannot be built.
    #[allow(clippy::disallowed_methods)] // a from_env constructor
    pub fn from_env(model: impl Into<String>, dimensions: usize) -> Result<Self, MemoryError> {
        let mut embedder = Self::new(model, dimensions)?;
        embedder.key = W::KEY_VARS.iter().find_map(|v| api_key_from_env(v));
        if let Ok(url) = std::env::var(W::BASE_URL_VAR)
            && !url.trim().is_empty()
        {
            embedder.base_url = url.trim().trim_end_matches('/').to_owned();
        }
        Ok(embedder)
    }

    /// Sets the API key.
    #[must_use]
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Sets the base URL (a proxy, a compatible server, a local mock).
    #[must_use]
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into().trim_end_matches('/').to_owned();
        self
    }

    /// Asks the API for vectors of exactly [`Embedder::dimensions`] values (for models that
    /// can shorten theirs: OpenAI `text-embedding-3-*`, Gemini, Voyage, some Ollama models).
    #[must_use]
    pub fn request_dimensions(mut self) -> Self {
        self.request_dimensions = true;
        self
    }

    /// At most this many inputs a request (at least 1, at most the vendor's limit).
    #[must_use]
    pub fn batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.clamp(1, W::MAX_BATCH);
        self
    }

    /// Retries with this policy.
    #[must_use]
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Sends with this client.
    #[must_use]
    pub fn http_client(mut self, client: Client) -> Self {
        self.client = client;
        self
    }

    /// Changes the wire's options (Voyage's input type, …).
    #[must_use]
    pub fn map_wire(mut self, f: impl FnOnce(&mut W)) -> Self {
        f(&mut self.wire);
        self
    }

    async fn batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, MemoryError> {
        let url = self.wire.url(&self.base_url, &self.model);
        let body = self.wire.body(&self.model, texts, self.request_dimensions.then_some(self.dimensions));
        let secrets: Vec<&Secret> = self.key.iter().collect();
        let json: Value = self
            .retry
            .run(|| async {
                let mut request = self.client.post(&url).json(&body);
                if let Some(key) = &self.key {
                    request = self.wire.auth(request, key);
                }
                let response = request.send().await.map_err(|e| ProviderError::transport(W::PROVIDER, e))?;
                let response = check_status(W::PROVIDER, response, &secrets).await?;
                response.json::<Value>().await.map_err(|e| ProviderError::transport(W::PROVIDER, e))
            })
            .await
            .map_err(provider_error)?;
        let vectors =
            self.wire.parse(&json).map_err(|e| MemoryError::Embedding(format!("{}: {e}", W::PROVIDER)))?;
        if vectors.len() != texts.len() {
            return Err(MemoryError::Embedding(format!(
                "{}: {} vectors for {} inputs",
                W::PROVIDER,
                vectors.len(),
                texts.len()
            )));
        }
        if let Some(v) = vectors.iter().find(|v| v.len() != self.dimensions) {
            return Err(MemoryError::DimensionMismatch { expected: self.dimensions, actual: v.len() });
        }
        Ok(vectors)
    }
}

impl<W: Wire> Embedder for HttpEmbedder<W> {
    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, MemoryError>> {
        Box::pin(async move {
            let mut out = Vec::with_capacity(texts.len());
            for batch in texts.chunks(self.batch_size.max(1)) {
                out.extend(self.batch(batch).await?);
            }
            Ok(out)
        })
    }
}

/// Reads an array of numbers as f32s.
pub(crate) fn floats(v: &Value) -> Option<Vec<f32>> {
    #[allow(clippy::cast_possible_truncation)]
    v.as_array()?.iter().map(|x| x.as_f64().map(|f| f as f32)).collect()
}
