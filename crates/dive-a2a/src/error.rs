//! Typed errors of the server set-up and of the client.

use crate::types::{ErrorCode, RpcError};

/// Why a server could not be built or started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The configuration cannot work.
    #[error("invalid A2A server configuration: {0}")]
    Config(String),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source} (pick another port, or 0 for any free one)")]
    Bind {
        /// The address.
        addr: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The task store failed while the server started.
    #[error("the A2A task store failed: {0}")]
    Store(#[from] dive_core::SessionError),
}

/// Why a call to a remote agent failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The request did not reach the agent, or its answer did not arrive.
    #[error("cannot reach the A2A agent at {url}: {source}")]
    Http {
        /// The URL.
        url: String,
        /// Why.
        #[source]
        source: reqwest::Error,
    },
    /// The agent answered with an HTTP error status.
    #[error("the A2A agent at {url} answered HTTP {status}: {body}")]
    Status {
        /// The URL.
        url: String,
        /// The status.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The agent answered with a JSON-RPC error.
    #[error("the A2A agent refused the call ({}): {}", .0.code, .0.message)]
    Rpc(RpcError),
    /// The agent's answer is not what A2A 1.0 defines.
    #[error("the A2A agent sent an answer this client cannot read: {0}")]
    Protocol(String),
    /// The card offers no interface this client speaks.
    #[error(
        "agent card {0:?} offers no JSON-RPC interface for protocol 1.0 (this client speaks A2A 1.0 over JSON-RPC)"
    )]
    NoInterface(String),
    /// The client is configured wrongly.
    #[error("invalid A2A client configuration: {0}")]
    Config(String),
}

impl ClientError {
    /// The JSON-RPC error code, when the agent answered with one.
    #[must_use]
    pub fn rpc_code(&self) -> Option<ErrorCode> {
        match self {
            Self::Rpc(e) => Some(e.kind()),
            _ => None,
        }
    }
}
