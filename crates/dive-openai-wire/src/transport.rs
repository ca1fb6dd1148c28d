//! What both OpenAI APIs share: the builder, the bearer-key transport on dive-provider's
//! client and retry policy, and pricing from the profile's catalog.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use dive_core::{LlmError, LlmErrorKind, ModelInfo, Pricing, Secret, Usage, redact};
use dive_provider::reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use dive_provider::{HttpOptions, ProviderError, RetryPolicy, api_key_from_env, check_status, reqwest};
use serde_json::Value;

use crate::profile::Profile;

/// Builds a [`Client`](crate::Client) for one of the two APIs. Unset key and base URL fall
/// back to the profile's environment variables (`OPENAI_API_KEY`, `OPENAI_BASE_URL` for
/// OpenAI).
#[derive(Debug)]
#[must_use]
pub struct Builder<C> {
    pub(crate) profile: Profile,
    api_key: Option<Secret>,
    base_url: Option<String>,
    model: Option<String>,
    max_tokens: Option<u32>,
    retry: Option<RetryPolicy>,
    http: Option<HttpOptions>,
    client: Option<reqwest::Client>,
    headers: BTreeMap<String, String>,
    api: PhantomData<fn() -> C>,
}

impl<C> Builder<C> {
    pub(crate) fn new(profile: Profile) -> Self {
        Self {
            profile,
            api_key: None,
            base_url: None,
            model: None,
            max_tokens: None,
            retry: None,
            http: None,
            client: None,
            headers: BTreeMap::new(),
            api: PhantomData,
        }
    }

    /// The API key.
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The API root including the version segment, e.g. `https://api.openai.com/v1`.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The default model; the profile's default when unset.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The default output limit (requests may override it).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The retry policy (default: dive-provider's, 3 retries from 2 s).
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

    /// An extra header sent with every call (e.g. `OpenAI-Organization`, OpenRouter's
    /// `HTTP-Referer`).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    pub(crate) fn transport(self) -> Result<Transport, LlmError> {
        let profile = self.profile;
        let api_key = self.api_key.or_else(|| {
            profile.api_key_env.iter().chain(profile.api_key_aliases).find_map(|var| api_key_from_env(var))
        });
        if api_key.is_none() && profile.api_key_required {
            let var = profile.api_key_env.unwrap_or("an API key variable");
            return Err(LlmError::new(
                LlmErrorKind::Authentication,
                format!("no {} API key: set {var} or call Builder::api_key", profile.provider),
            )
            .with_provider(profile.provider));
        }
        let base_url = self
            .base_url
            .or_else(|| {
                profile.base_url_env.and_then(|v| std::env::var(v).ok()).filter(|u| !u.trim().is_empty())
            })
            .unwrap_or_else(|| profile.base_url.to_owned());
        if base_url.trim().is_empty() {
            let var = profile.base_url_env.map_or_else(String::new, |v| format!("set {v} or "));
            return Err(LlmError::new(
                LlmErrorKind::InvalidRequest,
                format!("no base URL for {}: {var}call Builder::base_url", profile.provider),
            )
            .with_provider(profile.provider));
        }
        let client = match self.client {
            Some(c) => c,
            None => self.http.unwrap_or_default().build_client().map_err(LlmError::from)?,
        };
        Ok(Transport {
            model: self.model.unwrap_or_else(|| profile.default_model.to_owned()),
            profile,
            api_key,
            base_url: base_url.trim().trim_end_matches('/').to_owned(),
            max_tokens: self.max_tokens,
            retry: self.retry.unwrap_or_default(),
            headers: self.headers,
            client,
        })
    }
}

/// The shared half of both clients. `Debug` never shows the key.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    pub profile: Profile,
    api_key: Option<Secret>,
    pub base_url: String,
    pub model: String,
    pub max_tokens: Option<u32>,
    pub retry: RetryPolicy,
    headers: BTreeMap<String, String>,
    client: reqwest::Client,
}

impl Transport {
    pub fn provider(&self) -> &'static str {
        self.profile.provider
    }

    pub fn model_info(&self, model: &str) -> Option<&'static ModelInfo> {
        (self.profile.catalog)(model)
    }

    pub fn pricing(&self, model: &str) -> Option<Pricing> {
        self.model_info(model).and_then(|m| m.pricing.clone())
    }

    fn secrets(&self) -> Vec<&Secret> {
        self.api_key.iter().collect()
    }

    fn header_map(&self, extra: &BTreeMap<String, String>) -> Result<HeaderMap, ProviderError> {
        let invalid =
            |what: &str| ProviderError::new(self.provider(), LlmErrorKind::InvalidRequest, what.to_owned());
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

    /// One POST, status checked (no retry).
    pub async fn post(
        &self,
        path: &str,
        body: &Value,
        extra: &BTreeMap<String, String>,
    ) -> Result<reqwest::Response, ProviderError> {
        let url = format!("{}{path}", self.base_url);
        let headers = self.header_map(extra)?;
        tracing::debug!(provider = self.provider(), url = %url, model = ?body.get("model"), "calling the API");
        let secrets = self.secrets();
        let response = self.client.post(url).headers(headers).json(body).send().await.map_err(|e| {
            let mut err = ProviderError::transport(self.provider(), e);
            err.message = redact(&err.message, &secrets);
            err
        })?;
        check_status(self.provider(), response, &secrets).await
    }

    /// A POST returning JSON, retried per the policy.
    pub async fn post_json(
        &self,
        path: &str,
        body: &Value,
        extra: &BTreeMap<String, String>,
    ) -> Result<Value, ProviderError> {
        let text = self
            .retry
            .run(|| async {
                let response = self.post(path, body, extra).await?;
                response.text().await.map_err(|e| ProviderError::transport(self.provider(), e))
            })
            .await?;
        serde_json::from_str(&text).map_err(|e| {
            ProviderError::new(self.provider(), LlmErrorKind::Decode, format!("response is not JSON: {e}"))
        })
    }
}

/// Sets `usage.cost` from catalog prices, unless the provider reported a cost itself.
pub(crate) fn price(usage: &mut Usage, pricing: Option<&Pricing>) {
    if let Some(p) = pricing
        && usage.cost.as_ref().is_none_or(|c| c.source.as_deref() == Some("catalog"))
    {
        usage.cost = Some(p.cost_of(usage));
    }
}
