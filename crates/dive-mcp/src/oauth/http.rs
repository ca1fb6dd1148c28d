//! The HTTP client rmcp's OAuth state machine sends discovery, registration and token
//! requests through: our rustls client (no process-wide crypto provider needed), honouring
//! each request's redirect policy, with a bounded response body.

use std::time::Duration;

use futures_util::StreamExt;
use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRedirectPolicy, OAuthHttpRequest,
};

/// Larger than any metadata document or token response.
const MAX_BODY: usize = 1 << 20;

pub(crate) struct OAuthHttp {
    follow: reqwest::Client,
    stop: reqwest::Client,
}

impl OAuthHttp {
    pub(crate) fn new(options: &dive_provider::HttpOptions) -> Result<Self, String> {
        let build = |policy: reqwest::redirect::Policy| {
            options
                .client_builder()
                .map_err(|e| e.to_string())?
                .timeout(Duration::from_secs(30))
                .redirect(policy)
                .build()
                .map_err(|e| format!("cannot build the OAuth HTTP client: {e}"))
        };
        Ok(Self {
            follow: build(reqwest::redirect::Policy::limited(5))?,
            stop: build(reqwest::redirect::Policy::none())?,
        })
    }
}

impl OAuthHttpClient for OAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let client = match request.redirect_policy {
                OAuthHttpRedirectPolicy::Stop => &self.stop,
                _ => &self.follow,
            };
            let request = reqwest::Request::try_from(request.request).map_err(boxed)?;
            let response = client.execute(request).await.map_err(boxed)?;
            let mut builder = http::Response::builder().status(response.status()).version(response.version());
            for (name, value) in response.headers() {
                builder = builder.header(name, value);
            }
            let mut body = Vec::new();
            let mut chunks = response.bytes_stream();
            while let Some(chunk) = chunks.next().await {
                let chunk = chunk.map_err(boxed)?;
                if body.len() + chunk.len() > MAX_BODY {
                    return Err(format!("an OAuth response larger than {MAX_BODY} bytes").into());
                }
                body.extend_from_slice(&chunk);
            }
            builder.body(body).map_err(boxed)
        })
    }
}

fn boxed(e: impl std::error::Error + Send + Sync + 'static) -> OAuthHttpClientError {
    Box::new(e)
}
