//! The crate's errors: [`ConfigError`] (a configuration that cannot be used, naming its file
//! and server) and [`McpError`] (a server that cannot be reached or answered badly).

use std::fmt;
use std::path::PathBuf;

use crate::expand::ExpandError;

/// Where a configuration came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigSource {
    /// A file (`.mcp.json`, a settings file, a `--mcp-config` path).
    File(PathBuf),
    /// JSON given inline (`--mcp-config '{"mcpServers":…}'`) or built in code.
    Inline,
}

impl fmt::Display for ConfigSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File(path) => write!(f, "{}", path.display()),
            Self::Inline => f.write_str("inline MCP config"),
        }
    }
}

/// A configuration that cannot be used. The message names the file and, when the problem
/// is in one server's entry, the server.
#[derive(Debug, thiserror::Error)]
#[error("{source_name}{}: {kind}", server.as_ref().map(|s| format!(": server `{s}`")).unwrap_or_default())]
#[non_exhaustive]
pub struct ConfigError {
    /// The file or inline text.
    pub source_name: ConfigSource,
    /// The server whose entry is wrong, when it is one entry.
    pub server: Option<String>,
    /// What is wrong.
    pub kind: ConfigErrorKind,
}

impl ConfigError {
    pub(crate) fn new(source_name: &ConfigSource, server: Option<&str>, kind: ConfigErrorKind) -> Self {
        Self { source_name: source_name.clone(), server: server.map(str::to_owned), kind }
    }
}

/// What is wrong with a configuration.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigErrorKind {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Read(#[source] std::io::Error),
    /// The text is not JSON, or a field has the wrong JSON type.
    #[error("not valid MCP config JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// The document has no `mcpServers` object.
    #[error("no `mcpServers` object (expected {{\"mcpServers\": {{\"name\": {{…}}}}}})")]
    NoServers,
    /// A server entry is not usable (no command, no url, an unknown type, …).
    #[error("{0}")]
    Invalid(String),
    /// A `${VAR}` did not expand.
    #[error("{0} (set it, or write ${{VAR:-default}})")]
    Expand(#[source] ExpandError),
}

/// A server could not be started, reached or used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The stdio server's command could not be started.
    #[error("MCP server `{server}`: cannot start `{command}`: {source} (check `command` and `PATH`)")]
    Spawn {
        /// The server.
        server: String,
        /// The command.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The server did not finish start-up (handshake and tool listing) in time.
    #[error("MCP server `{server}` did not start within {} ms{}", timeout.as_millis(), stderr_note(stderr))]
    StartupTimeout {
        /// The server.
        server: String,
        /// The limit.
        timeout: std::time::Duration,
        /// The last lines it wrote to stderr (stdio servers).
        stderr: String,
    },
    /// The MCP handshake failed.
    #[error("MCP server `{server}`: the handshake failed: {message}{}", stderr_note(stderr))]
    Handshake {
        /// The server.
        server: String,
        /// What rmcp reported.
        message: String,
        /// The last lines it wrote to stderr (stdio servers).
        stderr: String,
    },
    /// The HTTP client or a header could not be set up.
    #[error("MCP server `{server}`: {message}")]
    Setup {
        /// The server.
        server: String,
        /// What is wrong.
        message: String,
    },
    /// A request failed (the connection closed, the server answered with a JSON-RPC error, …).
    #[error("MCP server `{server}`: {method} failed: {source}")]
    Request {
        /// The server.
        server: String,
        /// The MCP method (`tools/call`, `resources/read`, …).
        method: &'static str,
        /// rmcp's error.
        #[source]
        source: rmcp::ServiceError,
    },
    /// A request took longer than its limit.
    #[error("MCP server `{server}`: {method} timed out after {} ms", timeout.as_millis())]
    Timeout {
        /// The server.
        server: String,
        /// The MCP method.
        method: &'static str,
        /// The limit.
        timeout: std::time::Duration,
    },
    /// The server answered with something this client does not handle yet (an
    /// `input_required` round trip, a task).
    #[error("MCP server `{server}`: {message}")]
    Unsupported {
        /// The server.
        server: String,
        /// What it asked for.
        message: String,
    },
    /// The server answered 401: it wants an OAuth access token this client does not have
    /// (or one that could not be refreshed). Start an
    /// [`Authorization`](crate::oauth::Authorization), then connect again.
    #[error(
        "MCP server `{server}` needs OAuth authorization{}",
        if *has_store { "" } else { " (connect with an OAuth token store: ConnectOptions::with_oauth)" }
    )]
    AuthorizationRequired {
        /// The server.
        server: String,
        /// The server's `WWW-Authenticate` challenge.
        challenge: String,
        /// Whether the connection had a token store (else the tokens had nowhere to live).
        has_store: bool,
    },
    /// An OAuth step failed: discovery, registration, the user's refusal, a state or
    /// issuer mismatch, the token exchange, the token file.
    #[error("MCP server `{server}`: OAuth: {message}")]
    Authorization {
        /// The server.
        server: String,
        /// What went wrong.
        message: String,
    },
    /// No server of that name is configured or connected.
    #[error("no connected MCP server named `{0}`")]
    UnknownServer(String),
    /// A server could not be bound or served.
    #[error("MCP server: {0}")]
    Serve(#[source] std::io::Error),
}

impl McpError {
    /// Whether the connection is gone (the manager reconnects such servers).
    #[must_use]
    pub fn is_disconnect(&self) -> bool {
        matches!(
            self,
            Self::Request {
                source: rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_),
                ..
            }
        )
    }
}

fn stderr_note(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("; its stderr ended with:\n{}", stderr.trim_end())
    }
}
