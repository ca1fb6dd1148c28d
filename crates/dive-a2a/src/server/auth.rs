//! Authentication of requests: a bearer token, an API key header, or a check of your own.
//! The agent card stays public (clients read it to learn how to authenticate).

use std::fmt;
use std::sync::Arc;

use axum::http::HeaderMap;
use axum::response::Response;
use dive_core::Secret;

use crate::types::{AgentCard, ApiKeyScheme, HttpAuthScheme, SecurityRequirement, SecurityScheme};

/// A check of your own: `true` lets the request in.
pub type AuthCheck = Arc<dyn Fn(&HeaderMap) -> bool + Send + Sync>;

/// How requests authenticate.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Auth {
    /// Every request is let in.
    #[default]
    None,
    /// `Authorization: Bearer <token>`.
    Bearer(Secret),
    /// `<header>: <key>`.
    ApiKey {
        /// The header name (`X-API-Key`).
        header: String,
        /// The key.
        key: Secret,
    },
    /// Your own check, with the security scheme the card announces for it.
    Custom {
        /// The check.
        check: AuthCheck,
        /// The scheme name and scheme put on the card.
        scheme: Option<(String, SecurityScheme)>,
    },
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::None => f.write_str("None"),
            Self::Bearer(_) => f.write_str("Bearer([redacted])"),
            Self::ApiKey { header, .. } => write!(f, "ApiKey {{ header: {header:?}, key: [redacted] }}"),
            Self::Custom { scheme, .. } => {
                write!(f, "Custom {{ scheme: {:?} }}", scheme.as_ref().map(|s| &s.0))
            }
        }
    }
}

/// Compares without stopping at the first difference, so timing tells nothing of the secret.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Auth {
    /// Lets the request in, or answers 401.
    #[allow(clippy::result_large_err)]
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), Response> {
        let ok = match self {
            Self::None => true,
            Self::Bearer(token) => headers
                .get(http::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
                .is_some_and(|given| same(given.trim().as_bytes(), token.expose().as_bytes())),
            Self::ApiKey { header, key } => headers
                .get(header.as_str())
                .is_some_and(|given| same(given.as_bytes(), key.expose().as_bytes())),
            Self::Custom { check, .. } => check(headers),
        };
        if ok {
            Ok(())
        } else {
            Err(super::jsonrpc::unauthorized(
                "authentication required: see the securitySchemes of the agent card",
            ))
        }
    }

    /// Announces the scheme on the card.
    pub(crate) fn describe(&self, card: &mut AgentCard) {
        let (name, scheme) = match self {
            Self::None => return,
            Self::Bearer(_) => (
                "bearer".to_owned(),
                SecurityScheme::HttpAuthSecurityScheme(HttpAuthScheme {
                    description: None,
                    scheme: "Bearer".into(),
                    bearer_format: None,
                }),
            ),
            Self::ApiKey { header, .. } => (
                "apiKey".to_owned(),
                SecurityScheme::ApiKeySecurityScheme(ApiKeyScheme {
                    description: None,
                    location: "header".into(),
                    name: header.clone(),
                }),
            ),
            Self::Custom { scheme: Some((name, scheme)), .. } => (name.clone(), scheme.clone()),
            Self::Custom { scheme: None, .. } => return,
        };
        card.security_requirements.push(SecurityRequirement::scheme(&name));
        card.security_schemes.insert(name, scheme);
    }
}
