//! OAuth 2.1 with PKCE for streamable HTTP servers, on rmcp's authorization state machine
//! (protected-resource and authorization-server discovery, dynamic client registration,
//! S256 PKCE, RFC 9207 issuer checks, refresh) with the tokens in files of their own.
//!
//! The flow is suspendable: connecting to a server that answers 401 fails with
//! [`McpError::AuthorizationRequired`]; the application starts an [`Authorization`], sends
//! the user to [`Authorization::url`] however it likes (a browser, a link in a chat), and
//! hands the redirect it receives to [`Authorization::complete`], which stores the tokens.
//! The next connect uses them and refreshes them when they expire.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use dive_mcp::oauth::{Authorization, CallbackListener, OAuth};
//! use dive_mcp::{ConnectOptions, HttpConfig, McpClient, McpError, ServerConfig};
//! let oauth = OAuth::new("/home/me/.dive/mcp-tokens");
//! let server = ServerConfig::http("docs", HttpConfig::new("https://mcp.example.com/mcp"));
//! let options = ConnectOptions::default().with_oauth(oauth.clone());
//! let client = match McpClient::connect(&server, &options).await {
//!     Err(McpError::AuthorizationRequired { .. }) => {
//!         let callback = CallbackListener::bind(None).await?;
//!         let authorization = Authorization::start(&server, &oauth, &callback.redirect_uri()).await?;
//!         println!("open {}", authorization.url());
//!         let redirect = callback.wait(std::time::Duration::from_secs(300)).await?;
//!         authorization.complete(&redirect).await?;
//!         McpClient::connect(&server, &options).await?
//!     }
//!     other => other?,
//! };
//! # drop(client); Ok(()) }
//! ```

mod callback;
mod http;
mod store;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::transport::auth::{AuthClient, AuthError, AuthorizationManager, AuthorizationRequest, OAuthState};

pub use callback::CallbackListener;

use crate::config::{HttpConfig, ServerConfig, Transport};
use crate::error::McpError;
use http::OAuthHttp;
use store::TokenFile;

/// Where tokens are kept and how this client introduces itself to authorization servers.
///
/// ```
/// let oauth = dive_mcp::oauth::OAuth::new("/tmp/tokens").with_client_name("my-app");
/// assert_eq!(oauth.client_name(), "my-app");
/// ```
#[derive(Clone)]
pub struct OAuth {
    token_dir: PathBuf,
    client_name: String,
    http: dive_provider::HttpOptions,
}

impl OAuth {
    /// Tokens in `token_dir` (created mode 0700; each server's file 0600); the client
    /// registers itself as `dive`.
    pub fn new(token_dir: impl Into<PathBuf>) -> Self {
        Self {
            token_dir: token_dir.into(),
            client_name: "dive".into(),
            http: dive_provider::HttpOptions::default(),
        }
    }

    /// The `client_name` sent with dynamic client registration.
    #[must_use]
    pub fn with_client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The registered client name.
    #[must_use]
    pub fn client_name(&self) -> &str {
        &self.client_name
    }

    /// The directory of the token files.
    #[must_use]
    pub fn token_dir(&self) -> &Path {
        &self.token_dir
    }

    /// The file holding `http`'s tokens (whether or not it exists yet).
    #[must_use]
    pub fn token_path(&self, http: &HttpConfig) -> PathBuf {
        self.token_dir.join(store::file_name(&http.url))
    }

    /// Whether tokens are stored for `http` (they may still have expired).
    #[must_use]
    pub fn has_tokens(&self, http: &HttpConfig) -> bool {
        self.token_path(http).is_file()
    }

    /// Deletes `http`'s tokens; `false` when there were none.
    ///
    /// # Errors
    /// The file exists but cannot be removed.
    pub fn forget(&self, http: &HttpConfig) -> std::io::Result<bool> {
        store::remove(&self.token_path(http))
    }

    /// An authorization manager for `url` reading and refreshing `url`'s token file.
    async fn manager(&self, server: &str, url: &str) -> Result<AuthorizationManager, McpError> {
        let client = OAuthHttp::new(&self.http)
            .map_err(|message| McpError::Setup { server: server.into(), message })?;
        let mut manager = AuthorizationManager::new_with_oauth_http_client(url, Arc::new(client))
            .await
            .map_err(|e| auth_error(server, &e))?;
        manager.set_credential_store(TokenFile::new(self.token_dir.join(store::file_name(url))));
        Ok(manager)
    }

    /// The streamable HTTP client for `http`: sends the stored access token (refreshed when
    /// due), or nothing when there is none, so a 401 says authorization is needed.
    pub(crate) async fn client(
        &self,
        server: &str,
        http: &HttpConfig,
        inner: reqwest::Client,
    ) -> Result<AuthClient<reqwest::Client>, McpError> {
        let mut manager = self.manager(server, &http.url).await?;
        if self.has_tokens(http) {
            manager.initialize_from_store().await.map_err(|e| auth_error(server, &e))?;
        }
        Ok(AuthClient::new(inner, manager))
    }
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("token_dir", &self.token_dir)
            .field("client_name", &self.client_name)
            .finish()
    }
}

/// A server's own OAuth settings, from the `oauth` object of its `mcpServers` entry:
/// `{"clientId": "…", "scopes": ["…"], "callbackPort": 8080}`. Without a client id the
/// client registers itself dynamically.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthSettings {
    /// A client id registered with the authorization server beforehand.
    pub client_id: Option<String>,
    /// Scopes to ask for; empty lets the server's challenge and metadata decide.
    pub scopes: Vec<String>,
    /// The loopback port the redirect comes back to (some servers allow only registered
    /// redirect URIs); any free port when `None`.
    pub callback_port: Option<u16>,
}

/// One authorization in progress: PKCE verifier and state held here until the redirect
/// comes back. Keep it while the user approves (minutes, across a web request), then call
/// [`complete`](Self::complete).
pub struct Authorization {
    server: String,
    state: OAuthState,
    url: String,
}

impl Authorization {
    /// Discovers `server`'s authorization server, registers this client (or uses the
    /// configured client id) and builds the authorization URL with a PKCE challenge and a
    /// state value; the redirect will come back to `redirect_uri`.
    ///
    /// # Errors
    /// [`McpError::Unsupported`] for a stdio server; [`McpError::Authorization`] when
    /// discovery or registration fails.
    pub async fn start(server: &ServerConfig, oauth: &OAuth, redirect_uri: &str) -> Result<Self, McpError> {
        let name = server.name.clone();
        let Transport::Http(http) = &server.transport else {
            return Err(McpError::Unsupported {
                server: name,
                message:
                    "OAuth applies to HTTP servers; a stdio server takes its credentials from its environment"
                        .into(),
            });
        };
        let mut request = AuthorizationRequest::new(redirect_uri).with_client_name(oauth.client_name.clone());
        if let Some(client_id) = &http.oauth.client_id {
            request = request.with_preregistered_client(client_id.clone());
        }
        if !http.oauth.scopes.is_empty() {
            request = request.with_scopes(http.oauth.scopes.clone());
        }
        let mut state = OAuthState::Unauthorized(oauth.manager(&name, &http.url).await?);
        state.start_authorization(request).await.map_err(|e| auth_error(&name, &e))?;
        let url = state.get_authorization_url().await.map_err(|e| auth_error(&name, &e))?;
        Ok(Self { server: name, state, url })
    }

    /// Where to send the user.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Finishes with the redirect the authorization server sent back (the whole URL, with
    /// `code` and `state`): checks the state and issuer, exchanges the code with the PKCE
    /// verifier and stores the tokens.
    ///
    /// # Errors
    /// [`McpError::Authorization`] when the user declined, the state does not match, or
    /// the token exchange fails.
    pub async fn complete(mut self, redirect: &str) -> Result<(), McpError> {
        if let Some(refusal) = refusal(redirect) {
            return Err(McpError::Authorization { server: self.server, message: refusal });
        }
        self.state.handle_callback_url(redirect).await.map_err(|e| auth_error(&self.server, &e))
    }
}

impl fmt::Debug for Authorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorization").field("server", &self.server).finish_non_exhaustive()
    }
}

/// The authorization server's `error` (and description) in a redirect, if it sent one.
fn refusal(redirect: &str) -> Option<String> {
    let url = url::Url::parse(redirect).ok()?;
    let param = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    let error = param("error")?;
    Some(match param("error_description") {
        Some(description) => format!("the authorization server refused: {error} ({description})"),
        None => format!("the authorization server refused: {error}"),
    })
}

fn auth_error(server: &str, e: &AuthError) -> McpError {
    McpError::Authorization { server: server.to_owned(), message: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_is_read_from_the_redirect() {
        let r =
            refusal("http://127.0.0.1:1/callback?error=access_denied&error_description=no%20thanks&state=x");
        assert_eq!(r.as_deref(), Some("the authorization server refused: access_denied (no thanks)"));
        assert!(refusal("http://127.0.0.1:1/callback?code=a&state=b").is_none());
    }

    #[test]
    fn debug_shows_no_secrets() {
        let oauth = OAuth::new("/t");
        assert_eq!(format!("{oauth:?}"), "OAuth { token_dir: \"/t\", client_name: \"dive\" }");
    }
}
