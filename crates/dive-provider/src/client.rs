//! HTTP client construction: rustls with the ring provider (no process-global crypto
//! provider is installed) and the platform's trust store (read at the first TLS handshake),
//! a connect timeout and a per-read timeout that never cuts a long stream.

use std::sync::Arc;
use std::time::Duration;

use dive_core::{LlmErrorKind, Secret};

use crate::{LazyPlatformVerifier, ProviderError};

/// Transport settings shared by every provider.
///
/// There is deliberately no total request timeout: a long stream legitimately lasts many
/// minutes. `read_timeout` bounds the silence between two reads instead, which catches a
/// dead connection without cutting a healthy one.
///
/// ```
/// use std::time::Duration;
/// use dive_provider::HttpOptions;
/// let opts = HttpOptions::default().with_read_timeout(Duration::from_secs(120));
/// let client = opts.build_client().unwrap();
/// # drop(client);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Time allowed to establish a connection (TCP + TLS). Default 10 s.
    pub connect_timeout: Duration,
    /// Longest silence allowed between two reads of a response body. Default 10 min
    /// (thinking models can pause between events; Anthropic also sends pings). A provider
    /// applies it to the wait for the response head, to each read of a whole body and to the
    /// gap between two events of a stream (noticed within a quarter more).
    pub read_timeout: Duration,
    /// The `User-Agent` header.
    pub user_agent: String,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(600),
            user_agent: format!("dive-rs/{}", env!("CARGO_PKG_VERSION")),
        }
    }
}

impl HttpOptions {
    /// Sets the connect timeout.
    #[must_use]
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the per-read timeout.
    #[must_use]
    pub fn with_read_timeout(mut self, timeout: Duration) -> Self {
        self.read_timeout = timeout;
        self
    }

    /// Builds a reqwest client: rustls (ring, platform certificate verifier loaded at the
    /// first TLS handshake: [`LazyPlatformVerifier`]), HTTP/1.1 and HTTP/2, these timeouts.
    ///
    /// # Errors
    /// A [`ProviderError`] of kind `Other` when TLS or the client cannot be set up.
    pub fn build_client(&self) -> Result<reqwest::Client, ProviderError> {
        built(self.client_builder()?)
    }

    /// The headers a client from [`build_client`](Self::build_client) adds to every request
    /// that lacks them (`accept: */*`, the user agent), for a caller that sets them itself.
    pub(crate) fn default_headers(&self) -> Vec<(reqwest::header::HeaderName, reqwest::header::HeaderValue)> {
        let mut headers = vec![(reqwest::header::ACCEPT, reqwest::header::HeaderValue::from_static("*/*"))];
        if let Ok(agent) = reqwest::header::HeaderValue::from_str(&self.user_agent) {
            headers.push((reqwest::header::USER_AGENT, agent));
        }
        headers
    }

    /// The builder [`build_client`](Self::build_client) finishes, for a caller that needs one
    /// more setting (a redirect policy, say) on the same TLS and timeouts.
    ///
    /// ```
    /// let client = dive_provider::HttpOptions::default()
    ///     .client_builder()
    ///     .unwrap()
    ///     .redirect(reqwest::redirect::Policy::none())
    ///     .build()
    ///     .unwrap();
    /// # drop(client);
    /// ```
    ///
    /// # Errors
    /// A [`ProviderError`] of kind `Other` when TLS cannot be set up.
    pub fn client_builder(&self) -> Result<reqwest::ClientBuilder, ProviderError> {
        Ok(self.builder_without_read_timeout()?.read_timeout(self.read_timeout))
    }

    /// The client of an [`HttpProvider`](crate::HttpProvider): these settings but the read
    /// timeout, which the provider applies itself, once per response head, body read or
    /// stream event rather than at every read of the body (reqwest reads the clock and resets
    /// a timer at each).
    pub(crate) fn build_provider_client(&self) -> Result<reqwest::Client, ProviderError> {
        built(self.builder_without_read_timeout()?)
    }

    fn builder_without_read_timeout(&self) -> Result<reqwest::ClientBuilder, ProviderError> {
        let setup = |message: String| ProviderError::new("http", LlmErrorKind::Other, message);
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let verifier = Arc::new(LazyPlatformVerifier::new(Arc::clone(&provider)));
        let mut tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| setup(format!("TLS versions: {e}")))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        tls.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .connect_timeout(self.connect_timeout)
            .user_agent(self.user_agent.clone()))
    }
}

/// The client `builder` makes, or the error that says why it cannot.
fn built(builder: reqwest::ClientBuilder) -> Result<reqwest::Client, ProviderError> {
    builder.build().map_err(|e| ProviderError::new("http", LlmErrorKind::Other, format!("HTTP client: {e}")))
}

/// Reads an API key from an environment variable; `None` when unset or empty.
///
/// ```
/// assert!(dive_provider::api_key_from_env("DIVE_SURELY_UNSET_VARIABLE").is_none());
/// ```
#[must_use]
#[allow(clippy::disallowed_methods)] // a from_env-style constructor
pub fn api_key_from_env(var: &str) -> Option<Secret> {
    std::env::var(var).ok().filter(|v| !v.trim().is_empty()).map(|v| Secret::new(v.trim()))
}
