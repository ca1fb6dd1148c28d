//! [`WebSearchTool`] (`WebSearch`) over a pluggable [`Searcher`], with two real backends:
//! [`BraveSearcher`] (Brave Search API) and [`TavilySearcher`] (Tavily).

use std::sync::Arc;
use std::time::Duration;

use dive_core::{
    BoxFuture, Secret, ToolAnnotations, ToolContext, ToolError, ToolPreview, ToolResult, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// Results returned when no limit is given.
pub const DEFAULT_SEARCH_LIMIT: usize = 10;
/// Most results a call may ask for.
pub const MAX_SEARCH_LIMIT: usize = 20;
const SEARCH_TIMEOUT: Duration = Duration::from_secs(20);

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SearchResult {
    /// The page title.
    pub title: String,
    /// The page URL.
    pub url: String,
    /// A snippet or description.
    pub snippet: String,
}

impl SearchResult {
    /// A hit.
    #[must_use]
    pub fn new(title: impl Into<String>, url: impl Into<String>, snippet: impl Into<String>) -> Self {
        Self { title: title.into(), url: url.into(), snippet: snippet.into() }
    }
}

/// Why a search failed. API keys never appear in it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// No API key is configured.
    #[error("no API key: set {0}")]
    MissingKey(&'static str),
    /// The service refused or failed.
    #[error("search service returned HTTP {status}: {message}")]
    Status {
        /// The status code.
        status: u16,
        /// The service's message (truncated).
        message: String,
    },
    /// The network failed or the answer was not understood.
    #[error("search failed: {0}")]
    Network(String),
}

/// A web search backend.
pub trait Searcher: Send + Sync {
    /// The backend's name.
    fn name(&self) -> &str;
    /// Searches for `query`, at most `limit` results.
    fn search<'a>(
        &'a self,
        query: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<SearchResult>, SearchError>>;
}

fn client() -> Result<reqwest::Client, SearchError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(SEARCH_TIMEOUT)
        .build()
        .map_err(|e| SearchError::Network(e.to_string()))
}

async fn json_or_status(response: reqwest::Response, key: &Secret) -> Result<Value, SearchError> {
    let status = response.status();
    let text = response.text().await.map_err(|e| SearchError::Network(e.to_string()))?;
    if !status.is_success() {
        let mut message = dive_core::redact(&text, &[key]);
        crate::util::truncate_chars(&mut message, 300);
        return Err(SearchError::Status { status: status.as_u16(), message });
    }
    serde_json::from_str(&text).map_err(|e| SearchError::Network(format!("unexpected answer: {e}")))
}

fn network(e: &reqwest::Error, key: &Secret) -> SearchError {
    SearchError::Network(dive_core::redact(&e.to_string(), &[key]))
}

fn str_field(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

/// What every HTTP search backend holds: its key, its base URL and a client.
#[derive(Debug, Clone)]
struct SearchApi {
    key: Secret,
    base_url: String,
    client: reqwest::Client,
}

impl SearchApi {
    fn new(key: Secret, base_url: &str) -> Result<Self, SearchError> {
        Ok(Self { key, base_url: base_url.into(), client: client()? })
    }

    #[allow(clippy::disallowed_methods)] // a from_env-style constructor
    fn key_from_env(var: &'static str) -> Result<Secret, SearchError> {
        std::env::var(var).ok().filter(|k| !k.is_empty()).map(Secret::new).ok_or(SearchError::MissingKey(var))
    }

    fn set_base_url(&mut self, url: String) {
        self.base_url = url.trim_end_matches('/').to_string();
    }

    /// Sends a request and decodes the JSON answer, keeping the key out of any error.
    async fn send(&self, request: reqwest::RequestBuilder) -> Result<Value, SearchError> {
        let response = request.send().await.map_err(|e| network(&e, &self.key))?;
        json_or_status(response, &self.key).await
    }
}

/// Maps a JSON array of hits (`title`, `url` and the snippet field) to results.
fn hits_to_results(hits: Option<&Value>, snippet_field: &str, limit: usize) -> Vec<SearchResult> {
    let hits = hits.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    hits.iter()
        .take(limit)
        .map(|h| SearchResult::new(str_field(h, "title"), str_field(h, "url"), str_field(h, snippet_field)))
        .collect()
}

/// Declares an HTTP search backend: the type, its key variable and its constructors.
macro_rules! http_searcher {
    ($(#[$doc:meta])* $name:ident, $var:literal, $base:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name(SearchApi);

        impl $name {
            /// The environment variable holding the key.
            pub const KEY_VAR: &'static str = $var;

            /// A searcher with this key.
            ///
            /// # Errors
            /// When the HTTP client cannot be built.
            pub fn new(key: Secret) -> Result<Self, SearchError> {
                SearchApi::new(key, $base).map(Self)
            }

            #[doc = concat!("A searcher with the key from `", $var, "`.")]
            ///
            /// # Errors
            /// [`SearchError::MissingKey`] when the variable is unset or empty.
            pub fn from_env() -> Result<Self, SearchError> {
                Self::new(SearchApi::key_from_env(Self::KEY_VAR)?)
            }

            /// Points at another server (tests, proxies).
            #[must_use]
            pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
                self.0.set_base_url(url.into());
                self
            }
        }
    };
}

http_searcher!(
    /// The Brave Search API (`BRAVE_SEARCH_API_KEY`).
    BraveSearcher,
    "BRAVE_SEARCH_API_KEY",
    "https://api.search.brave.com"
);

http_searcher!(
    /// The Tavily search API (`TAVILY_API_KEY`).
    TavilySearcher,
    "TAVILY_API_KEY",
    "https://api.tavily.com"
);

impl Searcher for BraveSearcher {
    fn name(&self) -> &str {
        "brave"
    }

    fn search<'a>(
        &'a self,
        query: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<SearchResult>, SearchError>> {
        Box::pin(async move {
            let mut url = url::Url::parse(&format!("{}/res/v1/web/search", self.0.base_url))
                .map_err(|e| SearchError::Network(format!("bad base URL: {e}")))?;
            url.query_pairs_mut().append_pair("q", query).append_pair("count", &limit.to_string());
            let request = self
                .0
                .client
                .get(url)
                .header("Accept", "application/json")
                .header("X-Subscription-Token", self.0.key.expose());
            let body = self.0.send(request).await?;
            Ok(hits_to_results(body.pointer("/web/results"), "description", limit))
        })
    }
}

impl Searcher for TavilySearcher {
    fn name(&self) -> &str {
        "tavily"
    }

    fn search<'a>(
        &'a self,
        query: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<SearchResult>, SearchError>> {
        Box::pin(async move {
            let request = self
                .0
                .client
                .post(format!("{}/search", self.0.base_url))
                .bearer_auth(self.0.key.expose())
                .json(&serde_json::json!({"query": query, "max_results": limit, "search_depth": "basic"}));
            let body = self.0.send(request).await?;
            Ok(hits_to_results(body.get("results"), "content", limit))
        })
    }
}

/// Input of [`WebSearchTool`].
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct WebSearchInput {
    /// What to search for.
    pub query: String,
    /// Most results (default 10, at most 20).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Only keep results from these domains (or their subdomains).
    #[serde(default)]
    pub allowed_domains: Option<Vec<String>>,
    /// Drop results from these domains (or their subdomains).
    #[serde(default)]
    pub blocked_domains: Option<Vec<String>>,
}

/// Searches the web through a [`Searcher`].
#[derive(Clone)]
pub struct WebSearchTool {
    searcher: Arc<dyn Searcher>,
}

impl std::fmt::Debug for WebSearchTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebSearchTool").field("searcher", &self.searcher.name()).finish()
    }
}

impl WebSearchTool {
    /// A `WebSearch` tool over `searcher`.
    #[must_use]
    pub fn new(searcher: Arc<dyn Searcher>) -> Self {
        Self { searcher }
    }

    /// A tool over the first backend whose key is in the environment (Brave, then Tavily).
    ///
    /// # Errors
    /// [`SearchError::MissingKey`] when neither key is set.
    pub fn from_env() -> Result<Self, SearchError> {
        if let Ok(brave) = BraveSearcher::from_env() {
            return Ok(Self::new(Arc::new(brave)));
        }
        match TavilySearcher::from_env() {
            Ok(tavily) => Ok(Self::new(Arc::new(tavily))),
            Err(_) => Err(SearchError::MissingKey("BRAVE_SEARCH_API_KEY or TAVILY_API_KEY")),
        }
    }
}

fn host_in(url: &str, domains: &[String]) -> bool {
    let Some(host) = url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)) else {
        return false;
    };
    domains
        .iter()
        .map(|d| d.trim().to_ascii_lowercase())
        .any(|d| host == d || host.ends_with(&format!(".{d}")))
}

impl TypedTool for WebSearchTool {
    type Input = WebSearchInput;

    fn name(&self) -> &str {
        "WebSearch"
    }

    fn description(&self) -> &str {
        "Searches the web and returns titles, URLs and snippets. Use WebFetch to read a result."
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::read_only().with_title("Search the web").with_open_world(true)
    }

    fn preview(&self, input: &WebSearchInput) -> Option<ToolPreview> {
        Some(ToolPreview::new(format!("Search the web for {:?}", input.query)))
    }

    async fn call(&self, input: WebSearchInput, _ctx: ToolContext) -> Result<ToolResult, ToolError> {
        if input.query.trim().is_empty() {
            return Ok(ToolResult::error("the query is empty"));
        }
        let limit = input.limit.unwrap_or(DEFAULT_SEARCH_LIMIT).clamp(1, MAX_SEARCH_LIMIT);
        let results = match self.searcher.search(&input.query, limit).await {
            Ok(r) => r,
            Err(e) => return Ok(ToolResult::error(e.to_string())),
        };
        let results: Vec<SearchResult> = results
            .into_iter()
            .filter(|r| input.allowed_domains.as_ref().is_none_or(|d| host_in(&r.url, d)))
            .filter(|r| input.blocked_domains.as_ref().is_none_or(|d| !host_in(&r.url, d)))
            .collect();
        if results.is_empty() {
            return Ok(ToolResult::text(format!("No results for {:?}", input.query)));
        }
        let mut out = String::new();
        for (i, r) in results.iter().enumerate() {
            out.push_str(&format!("{}. [{}]({})\n   {}\n", i + 1, r.title, r.url, r.snippet.trim()));
        }
        Ok(ToolResult::text(out))
    }
}
