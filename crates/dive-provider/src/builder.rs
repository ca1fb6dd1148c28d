//! [`ProviderBuilder`]: the one builder of every HTTP provider. `build()` never reads the
//! environment; [`ProviderBuilder::from_env`] reads the variables the [`Vendor`] names.

use std::collections::BTreeMap;
use std::fmt;

use dive_core::{LlmError, LlmErrorKind, Secret};

use crate::{HttpOptions, HttpProvider, RetryAttempt, RetryPolicy, Vendor, WireFormat, reqwest};

/// Builds an [`HttpProvider`] for wire format `W`. `Debug` never shows the key.
///
/// Unset settings take the [`Vendor`]'s defaults (base URL, model). Nothing is read from the
/// environment unless the builder was made by [`from_env`](Self::from_env).
#[must_use]
pub struct ProviderBuilder<W> {
    pub(crate) wire: W,
    pub(crate) api_key: Option<Secret>,
    pub(crate) base_url: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) max_tokens: Option<u32>,
    pub(crate) retry: Option<RetryPolicy>,
    pub(crate) http: Option<HttpOptions>,
    pub(crate) client: Option<reqwest::Client>,
    pub(crate) headers: BTreeMap<String, String>,
    /// Where the key was looked for, named in the error when none was found.
    pub(crate) looked_in: Option<&'static [&'static str]>,
}

impl<W: WireFormat> fmt::Debug for ProviderBuilder<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderBuilder")
            .field("wire", &self.wire)
            .field("api_key", &self.api_key)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("max_tokens", &self.max_tokens)
            .field("retry", &self.retry)
            .field("http", &self.http)
            .field("headers", &self.headers)
            .finish_non_exhaustive()
    }
}

impl<W: WireFormat> ProviderBuilder<W> {
    /// A builder for `wire` with nothing set.
    pub fn new(wire: W) -> Self {
        Self {
            wire,
            api_key: None,
            base_url: None,
            model: None,
            max_tokens: None,
            retry: None,
            http: None,
            client: None,
            headers: BTreeMap::new(),
            looked_in: None,
        }
    }

    /// A builder for `wire` with the key and base URL read from the variables its
    /// [`Vendor`] names (the first key variable that is set and not blank wins; a blank base
    /// URL variable counts as unset). Setters called afterwards override them.
    #[allow(clippy::disallowed_methods)] // the from_env constructor
    pub fn from_env(wire: W) -> Self {
        let vendor = *wire.vendor();
        let mut builder = Self::new(wire);
        builder.api_key = vendor.api_key_vars.iter().find_map(|v| crate::api_key_from_env(v));
        builder.base_url =
            vendor.base_url_var.and_then(|v| std::env::var(v).ok()).filter(|u| !u.trim().is_empty());
        builder.looked_in = Some(vendor.api_key_vars);
        builder
    }

    /// The API key.
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The API root (the vendor's documentation says whether it holds a version segment).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The default model; the vendor's default when unset.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The default output limit (a request's own `max_tokens` wins).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The retry policy (default: 3 retries from 2 s, see [`RetryPolicy`]).
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = Some(policy);
        self
    }

    /// Runs `hook` before every retry (on the policy set so far, or the default one).
    pub fn on_retry(mut self, hook: impl Fn(&RetryAttempt<'_>) + Send + Sync + 'static) -> Self {
        self.retry = Some(self.retry.unwrap_or_default().on_retry(hook));
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

    /// The wire format's own settings (e.g. a cache TTL), changed in place.
    pub fn map_wire(mut self, f: impl FnOnce(&mut W)) -> Self {
        f(&mut self.wire);
        self
    }

    /// The wire format.
    #[must_use]
    pub fn wire(&self) -> &W {
        &self.wire
    }

    /// Builds the provider. Reads nothing from the environment.
    ///
    /// # Errors
    /// `Authentication` when the vendor needs a key and none was given (the message says
    /// which variables `from_env` reads); `InvalidRequest` when the key or an extra header
    /// cannot be sent as a header; `Other` when the HTTP client cannot be built.
    pub fn build(self) -> Result<HttpProvider<W>, LlmError> {
        let vendor = *self.wire.vendor();
        if self.api_key.is_none() && vendor.api_key_required {
            return Err(missing_key(&vendor, self.looked_in.is_some()));
        }
        // A client of one's own keeps its own timeouts; ours applies the read timeout itself.
        let (client, client_defaults, read_timeout) = match self.client {
            Some(c) => (c, Vec::new(), None),
            None => {
                let http = self.http.unwrap_or_default();
                let client = http.build_provider_client().map_err(LlmError::from)?;
                (client, http.default_headers(), Some(http.read_timeout))
            }
        };
        let base_url = self.base_url.unwrap_or_else(|| vendor.default_base_url.to_owned());
        let base_headers =
            crate::provider::base_headers(&self.wire, self.api_key.as_ref(), &self.headers, &client_defaults)
                .map_err(LlmError::from)?;
        let model = self.model.unwrap_or_else(|| vendor.default_model.to_owned());
        Ok(HttpProvider {
            model_info: vendor.model_info(&model),
            model,
            api_key: self.api_key,
            base_url: self.wire.base_url(&base_url),
            max_tokens: self.max_tokens,
            retry: self.retry.unwrap_or_default(),
            headers: self.headers,
            base_headers,
            urls: std::sync::Arc::default(),
            body_sizes: std::sync::Arc::default(),
            client,
            read_timeout,
            vendor,
            wire: self.wire,
        })
    }
}

/// The error for a missing key, in the user's words: which variable to set or which call to
/// make.
fn missing_key(vendor: &Vendor, read_env: bool) -> LlmError {
    let vars = vendor.api_key_vars;
    let how = match (vars.first(), read_env) {
        (Some(first), true) if vars.len() > 1 => {
            format!("set {first} (or {}) or call api_key on the builder", vars[1..].join(", "))
        }
        (Some(first), true) => format!("set {first} or call api_key on the builder"),
        (Some(first), false) => {
            format!("call api_key on the builder, or build with from_env to read {first}")
        }
        (None, _) => "call api_key on the builder".to_owned(),
    };
    LlmError::new(LlmErrorKind::Authentication, format!("no {} API key: {how}", vendor.name))
        .with_provider(vendor.name)
}
