//! [`WebFetchTool`] (`WebFetch`): fetches a URL over http(s) with SSRF protection, size and
//! time caps, and HTML converted to Markdown; the fetching itself is a pluggable [`Fetcher`].

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use dive_core::{BoxFuture, ToolAnnotations, ToolContext, ToolError, ToolPreview, ToolResult, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use url::Url;

use crate::net_guard::{NetworkPolicy, RefusedAddress, resolver};
use crate::util::truncate_chars;

/// Characters of page text returned.
pub const MAX_FETCH_CHARS: usize = 500_000;
/// Bytes read from the network before the body is cut.
pub const MAX_FETCH_BYTES: usize = 10 * 1024 * 1024;
/// Time allowed for one fetch, redirects included.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(15);
/// Redirects followed.
pub const MAX_REDIRECTS: usize = 5;

/// Input of [`WebFetchTool`] (Claude Code's `WebFetch`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct WebFetchInput {
    /// The http or https URL to fetch.
    pub url: String,
    /// What to look for in the page (kept for Claude Code compatibility; the page is returned
    /// whole and the model answers it itself).
    #[serde(default)]
    pub prompt: Option<String>,
}

/// A fetched page.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FetchedPage {
    /// The URL after redirects.
    pub final_url: String,
    /// The `Content-Type`, if any.
    pub content_type: Option<String>,
    /// The body as text (cut at [`MAX_FETCH_BYTES`]).
    pub body: String,
    /// The body was cut.
    pub truncated: bool,
}

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL or a redirect target is not allowed (scheme or address).
    #[error("refused: {0}")]
    Refused(String),
    /// The server answered with an error status.
    #[error("HTTP {status} from {url}")]
    Status {
        /// The status code.
        status: u16,
        /// The URL.
        url: String,
    },
    /// The network failed or timed out.
    #[error("fetch failed: {0}")]
    Network(String),
}

/// Fetches pages; implement it to plug in another backend (a scraping service, a cache).
pub trait Fetcher: Send + Sync {
    /// Fetches `url`.
    fn fetch<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Result<FetchedPage, FetchError>>;
}

/// The default fetcher: reqwest with a filtering DNS resolver, no proxies, redirects followed
/// by hand with every hop checked, one retry on network errors and 5xx.
#[derive(Debug, Clone)]
pub struct HttpFetcher {
    client: reqwest::Client,
    policy: NetworkPolicy,
}

impl HttpFetcher {
    /// A fetcher for the public internet only.
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn new() -> Result<Self, FetchError> {
        Self::with_policy(NetworkPolicy::public_only())
    }

    /// A fetcher with an explicit policy (tests allow their local server with
    /// [`NetworkPolicy::allow_exact`]).
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn with_policy(policy: NetworkPolicy) -> Result<Self, FetchError> {
        // reqwest is built without a default crypto provider; ring is the workspace's.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .dns_resolver(resolver())
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(FETCH_TIMEOUT)
            .user_agent(concat!("dive-toolkit/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| FetchError::Network(e.to_string()))?;
        Ok(Self { client, policy })
    }

    /// Checks a URL before it is dialled: scheme, and IP-literal hosts against the policy
    /// (names are checked by the resolver when dialled).
    fn check(&self, url: &Url) -> Result<(), FetchError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::Refused(format!(
                "only http and https URLs can be fetched, not {}:",
                url.scheme()
            )));
        }
        let port = url.port_or_known_default().unwrap_or(80);
        match url.host() {
            Some(url::Host::Ipv4(ip)) if !self.policy.allows_literal(SocketAddr::new(ip.into(), port)) => {
                Err(FetchError::Refused(format!("{ip} is not a public address")))
            }
            Some(url::Host::Ipv6(ip)) if !self.policy.allows_literal(SocketAddr::new(ip.into(), port)) => {
                Err(FetchError::Refused(format!("{ip} is not a public address")))
            }
            Some(_) => Ok(()),
            None => Err(FetchError::Refused("the URL has no host".into())),
        }
    }

    async fn get_once(&self, url: &Url) -> Result<reqwest::Response, FetchError> {
        self.client.get(url.clone()).send().await.map_err(|e| {
            let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
            while let Some(err) = source {
                if let Some(refused) = err.downcast_ref::<RefusedAddress>() {
                    return FetchError::Refused(refused.to_string());
                }
                source = err.source();
            }
            FetchError::Network(e.to_string())
        })
    }

    async fn get(&self, url: &Url) -> Result<reqwest::Response, FetchError> {
        match self.get_once(url).await {
            Err(FetchError::Network(_)) => self.get_once(url).await,
            Ok(r) if r.status().is_server_error() => self.get_once(url).await,
            other => other,
        }
    }

    async fn fetch_inner(&self, start: &Url) -> Result<FetchedPage, FetchError> {
        let mut url = start.clone();
        for _ in 0..=MAX_REDIRECTS {
            self.check(&url)?;
            let mut response = self.get(&url).await?;
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .ok_or_else(|| FetchError::Network(format!("redirect {status} without a Location")))?;
                url = url
                    .join(location)
                    .map_err(|e| FetchError::Refused(format!("bad redirect target: {e}")))?;
                continue;
            }
            if !status.is_success() {
                return Err(FetchError::Status { status: status.as_u16(), url: url.to_string() });
            }
            let content_type = response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let mut bytes = Vec::new();
            let mut truncated = false;
            while let Some(chunk) = response.chunk().await.map_err(|e| FetchError::Network(e.to_string()))? {
                let room = MAX_FETCH_BYTES - bytes.len();
                if chunk.len() > room {
                    bytes.extend_from_slice(&chunk[..room]);
                    truncated = true;
                    break;
                }
                bytes.extend_from_slice(&chunk);
            }
            let body = String::from_utf8_lossy(&bytes).into_owned();
            return Ok(FetchedPage { final_url: url.to_string(), content_type, body, truncated });
        }
        Err(FetchError::Network(format!("more than {MAX_REDIRECTS} redirects")))
    }
}

impl Fetcher for HttpFetcher {
    fn fetch<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Result<FetchedPage, FetchError>> {
        Box::pin(async move {
            tokio::time::timeout(FETCH_TIMEOUT, self.fetch_inner(url))
                .await
                .unwrap_or_else(|_| Err(FetchError::Network(format!("timed out after {FETCH_TIMEOUT:?}"))))
        })
    }
}

/// HTML to Markdown, dropping scripts, styles and page chrome.
#[must_use]
pub fn html_to_markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec!["script", "style", "noscript", "iframe", "svg", "head", "nav", "footer", "form"])
        .build();
    converter.convert(html).unwrap_or_else(|_| html.to_string())
}

/// Fetches web pages for the model.
#[derive(Clone)]
pub struct WebFetchTool {
    fetcher: Arc<dyn Fetcher>,
}

impl std::fmt::Debug for WebFetchTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebFetchTool")
    }
}

impl WebFetchTool {
    /// A `WebFetch` tool over the public internet.
    ///
    /// # Errors
    /// When the HTTP client cannot be built.
    pub fn new() -> Result<Self, FetchError> {
        Ok(Self::with_fetcher(Arc::new(HttpFetcher::new()?)))
    }

    /// A `WebFetch` tool over another fetcher.
    #[must_use]
    pub fn with_fetcher(fetcher: Arc<dyn Fetcher>) -> Self {
        Self { fetcher }
    }
}

impl TypedTool for WebFetchTool {
    type Input = WebFetchInput;

    fn name(&self) -> &str {
        "WebFetch"
    }

    fn description(&self) -> &str {
        "Fetches a public http(s) URL and returns the page as Markdown (HTML converted, scripts and \
         styles removed), at most 500000 characters. Local and private network addresses are refused."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only().with_title("Fetch web page").with_open_world(true).with_idempotent(true)
    }

    fn preview(&self, input: &WebFetchInput) -> Option<ToolPreview> {
        Some(ToolPreview::new(format!("Fetch {}", input.url)))
    }

    async fn call(&self, input: WebFetchInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        let url = match Url::parse(input.url.trim()) {
            Ok(u) => u,
            Err(e) => return Ok(ToolResult::error(format!("invalid URL {:?}: {e}", input.url))),
        };
        let page = match self.fetcher.fetch(&url).await {
            Ok(p) => p,
            Err(e) => return Ok(ToolResult::error(e.to_string())),
        };
        let is_html = page.content_type.as_deref().is_some_and(|t| t.contains("html"))
            || (page.content_type.is_none() && page.body.trim_start().starts_with('<'));
        let mut text = if is_html { html_to_markdown(&page.body) } else { page.body };
        let cut = truncate_chars(&mut text, MAX_FETCH_CHARS) || page.truncated;
        let mut out = format!("URL: {}\n\n{text}", page.final_url);
        if cut {
            out.push_str(&format!("\n\n[content truncated at {MAX_FETCH_CHARS} characters]"));
        }
        Ok(ToolResult::text(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_html() {
        let md = html_to_markdown(
            "<html><head><style>p{}</style></head><body><h1>Hi</h1><script>x()</script><p>a <b>b</b></p></body></html>",
        );
        assert_eq!(md, "# Hi\n\na **b**");
    }
}
