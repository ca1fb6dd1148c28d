//! Server configuration in Claude Code's `mcpServers` JSON shape: `.mcp.json`, a settings
//! file, a path or inline JSON, with `${VAR}` / `${VAR:-default}` expanded from [`Vars`],
//! per-server enable/disable and tool allow/deny lists.
//!
//! ```json
//! {"mcpServers": {
//!   "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}"],
//!             "env": {"LOG": "${LOG_LEVEL:-info}"}, "cwd": "/tmp"},
//!   "docs":  {"type": "http", "url": "https://mcp.example.com/mcp",
//!             "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"},
//!             "allowedTools": ["search"], "deniedTools": ["delete"]},
//!   "old":   {"command": "old-server", "disabled": true}
//! }}
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::error::{ConfigError, ConfigErrorKind, ConfigSource};
use crate::expand::Vars;
use crate::oauth::OAuthSettings;

/// How to reach one server.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Transport {
    /// A child process speaking JSON-RPC over stdin/stdout.
    Stdio(StdioConfig),
    /// A streamable HTTP endpoint.
    Http(HttpConfig),
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio(s) => s.fmt(f),
            Self::Http(h) => h.fmt(f),
        }
    }
}

/// A stdio server: the command, its arguments, extra environment and working directory.
/// The child inherits the parent's environment plus `env`.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdioConfig {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to the child's environment.
    pub env: BTreeMap<String, String>,
    /// The working directory (the parent's when `None`).
    pub cwd: Option<PathBuf>,
}

impl StdioConfig {
    /// `command` with no arguments.
    pub fn new(command: impl Into<String>) -> Self {
        Self { command: command.into(), args: Vec::new(), env: BTreeMap::new(), cwd: None }
    }

    /// Sets the arguments.
    #[must_use]
    pub fn with_args<S: Into<String>>(mut self, args: impl IntoIterator<Item = S>) -> Self {
        self.args = args.into_iter().map(Into::into).collect();
        self
    }

    /// Adds one environment variable.
    #[must_use]
    pub fn with_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }

    /// Sets the working directory.
    #[must_use]
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }
}

impl fmt::Debug for StdioConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Environment values are often tokens: names only.
        f.debug_struct("Stdio")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("cwd", &self.cwd)
            .finish()
    }
}

/// A streamable HTTP server: its URL and extra headers (e.g. `Authorization`).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpConfig {
    /// The MCP endpoint, e.g. `https://mcp.example.com/mcp`.
    pub url: String,
    /// Headers sent with every request.
    pub headers: BTreeMap<String, String>,
    /// OAuth settings of this server (used when the connection has an
    /// [`OAuth`](crate::oauth::OAuth) token store).
    pub oauth: OAuthSettings,
}

impl HttpConfig {
    /// The endpoint with no extra headers.
    pub fn new(url: impl Into<String>) -> Self {
        Self { url: url.into(), headers: BTreeMap::new(), oauth: OAuthSettings::default() }
    }

    /// Sets the server's OAuth settings (a pre-registered client id, scopes, a fixed
    /// callback port).
    #[must_use]
    pub fn with_oauth(mut self, oauth: OAuthSettings) -> Self {
        self.oauth = oauth;
        self
    }

    /// Adds one header.
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }
}

impl fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: BTreeMap<&str, &str> = self.headers.keys().map(|k| (k.as_str(), "[redacted]")).collect();
        f.debug_struct("Http")
            .field("url", &self.url)
            .field("headers", &headers)
            .field("oauth", &self.oauth)
            .finish()
    }
}

/// Which of a server's tools are offered: an allow-list (all when `None`) minus a deny-list.
/// Names are the server's own tool names (`echo`, not `mcp__srv__echo`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolFilter {
    /// Only these tools, when set.
    pub allow: Option<Vec<String>>,
    /// Never these tools.
    pub deny: Vec<String>,
}

impl ToolFilter {
    /// Whether the tool `name` passes.
    #[must_use]
    pub fn allows(&self, name: &str) -> bool {
        self.allow.as_ref().is_none_or(|allow| allow.iter().any(|a| a == name))
            && !self.deny.iter().any(|d| d == name)
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The server's name (the `<server>` of `mcp__<server>__<tool>`).
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// Whether it is started.
    pub enabled: bool,
    /// Which of its tools are offered.
    pub tools: ToolFilter,
    /// Its own start-up limit (the manager's default when `None`); `startupTimeoutMs` in JSON.
    pub startup_timeout: Option<Duration>,
    /// Its own per-call limit (none when `None`); `callTimeoutMs` in JSON.
    pub call_timeout: Option<Duration>,
}

impl ServerConfig {
    /// An enabled server offering all its tools.
    pub fn new(name: impl Into<String>, transport: Transport) -> Self {
        Self {
            name: name.into(),
            transport,
            enabled: true,
            tools: ToolFilter::default(),
            startup_timeout: None,
            call_timeout: None,
        }
    }

    /// A stdio server.
    pub fn stdio(name: impl Into<String>, stdio: StdioConfig) -> Self {
        Self::new(name, Transport::Stdio(stdio))
    }

    /// A streamable HTTP server.
    pub fn http(name: impl Into<String>, http: HttpConfig) -> Self {
        Self::new(name, Transport::Http(http))
    }

    /// Sets the tool filter.
    #[must_use]
    pub fn with_tools(mut self, tools: ToolFilter) -> Self {
        self.tools = tools;
        self
    }

    /// Enables or disables the server.
    #[must_use]
    pub fn with_enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// Sets the start-up limit.
    #[must_use]
    pub fn with_startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = Some(timeout);
        self
    }

    /// Sets the per-call limit.
    #[must_use]
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }
}

/// A set of servers by name, from one or more sources (later sources replace earlier
/// servers of the same name).
///
/// ```
/// use dive_mcp::{McpConfig, Vars};
/// let vars = Vars::new([("TOKEN", "t0k")]);
/// let config = McpConfig::from_arg(
///     r#"{"mcpServers": {"docs": {"type": "http", "url": "http://127.0.0.1:9/mcp",
///         "headers": {"Authorization": "Bearer ${TOKEN}"}}}}"#,
///     &vars,
/// ).unwrap();
/// let docs = config.server("docs").unwrap();
/// assert!(format!("{docs:?}").contains("[redacted]"));
/// assert!(!format!("{docs:?}").contains("t0k"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpConfig {
    servers: BTreeMap<String, ServerConfig>,
}

impl McpConfig {
    /// No servers.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) one server.
    #[must_use]
    pub fn with_server(mut self, server: ServerConfig) -> Self {
        self.servers.insert(server.name.clone(), server);
        self
    }

    /// Parses an `{"mcpServers": {…}}` document (`.mcp.json`, `--mcp-config`).
    ///
    /// # Errors
    /// [`ConfigError`] naming `source` and the server for bad JSON, a missing `mcpServers`,
    /// a server without `command` or `url`, an unknown `type`, or a `${VAR}` that is unset.
    pub fn parse(text: &str, source: &ConfigSource, vars: &Vars) -> Result<Self, ConfigError> {
        let doc: Value = serde_json::from_str(text)
            .map_err(|e| ConfigError::new(source, None, ConfigErrorKind::Json(e)))?;
        let servers = doc
            .get("mcpServers")
            .ok_or_else(|| ConfigError::new(source, None, ConfigErrorKind::NoServers))?;
        Self::from_servers_value(servers, source, vars)
    }

    /// Reads and parses a file in the `mcpServers` shape.
    ///
    /// # Errors
    /// As [`parse`](Self::parse), and when the file cannot be read.
    pub fn load(path: impl AsRef<Path>, vars: &Vars) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let source = ConfigSource::File(path.to_path_buf());
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::new(&source, None, ConfigErrorKind::Read(e)))?;
        Self::parse(&text, &source, vars)
    }

    /// A settings file (Claude Code's `settings.json` / `~/.claude.json` shape): its
    /// `mcpServers` when present (none otherwise), and its `disabledMcpjsonServers` names,
    /// returned for [`disable`](Self::disable) on the merged configuration.
    ///
    /// # Errors
    /// As [`load`](Self::load), except that a missing `mcpServers` is not an error.
    pub fn load_settings(path: impl AsRef<Path>, vars: &Vars) -> Result<(Self, Vec<String>), ConfigError> {
        let path = path.as_ref();
        let source = ConfigSource::File(path.to_path_buf());
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError::new(&source, None, ConfigErrorKind::Read(e)))?;
        let doc: Value = serde_json::from_str(&text)
            .map_err(|e| ConfigError::new(&source, None, ConfigErrorKind::Json(e)))?;
        let config = match doc.get("mcpServers") {
            Some(servers) => Self::from_servers_value(servers, &source, vars)?,
            None => Self::new(),
        };
        let disabled = match doc.get("disabledMcpjsonServers") {
            None => Vec::new(),
            Some(v) => serde_json::from_value::<Vec<String>>(v.clone()).map_err(|e| {
                ConfigError::new(
                    &source,
                    None,
                    ConfigErrorKind::Invalid(format!(
                        "`disabledMcpjsonServers` must be a list of names: {e}"
                    )),
                )
            })?,
        };
        Ok((config, disabled))
    }

    /// What `--mcp-config` takes: inline JSON when the text starts with `{`, else a path.
    ///
    /// # Errors
    /// As [`parse`](Self::parse) or [`load`](Self::load).
    pub fn from_arg(arg: &str, vars: &Vars) -> Result<Self, ConfigError> {
        if arg.trim_start().starts_with('{') {
            Self::parse(arg, &ConfigSource::Inline, vars)
        } else {
            Self::load(arg, vars)
        }
    }

    fn from_servers_value(servers: &Value, source: &ConfigSource, vars: &Vars) -> Result<Self, ConfigError> {
        let Value::Object(servers) = servers else {
            return Err(ConfigError::new(source, None, ConfigErrorKind::NoServers));
        };
        let mut out = Self::new();
        for (name, entry) in servers {
            let fail = |kind| ConfigError::new(source, Some(name), kind);
            if name.is_empty() {
                return Err(fail(ConfigErrorKind::Invalid("a server name may not be empty".into())));
            }
            let raw: RawServer =
                serde_json::from_value(entry.clone()).map_err(|e| fail(ConfigErrorKind::Json(e)))?;
            let server = raw.resolve(name, vars).map_err(fail)?;
            out.servers.insert(name.clone(), server);
        }
        Ok(out)
    }

    /// Adds every server of `other`, replacing servers of the same name.
    pub fn merge(&mut self, other: McpConfig) {
        self.servers.extend(other.servers);
    }

    /// Disables these servers (names not configured are ignored).
    pub fn disable<S: AsRef<str>>(&mut self, names: impl IntoIterator<Item = S>) {
        for name in names {
            if let Some(server) = self.servers.get_mut(name.as_ref()) {
                server.enabled = false;
            }
        }
    }

    /// One server.
    #[must_use]
    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.get(name)
    }

    /// Every server, by name.
    pub fn servers(&self) -> impl Iterator<Item = &ServerConfig> {
        self.servers.values()
    }

    /// How many servers are configured.
    #[must_use]
    pub fn len(&self) -> usize {
        self.servers.len()
    }

    /// Whether no server is configured.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }
}

/// One entry as written; unknown keys are ignored (Claude Code's files carry more).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawServer {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    oauth: Option<RawOAuth>,
    disabled: Option<bool>,
    enabled: Option<bool>,
    allowed_tools: Option<Vec<String>>,
    #[serde(default)]
    denied_tools: Vec<String>,
    startup_timeout_ms: Option<u64>,
    call_timeout_ms: Option<u64>,
}

/// A server's `oauth` object as written.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawOAuth {
    client_id: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
    callback_port: Option<u16>,
}

impl RawServer {
    fn resolve(self, name: &str, vars: &Vars) -> Result<ServerConfig, ConfigErrorKind> {
        let expand = |s: &str| vars.expand(s).map_err(ConfigErrorKind::Expand);
        let kind = self.kind.as_deref().unwrap_or(if self.url.is_some() { "http" } else { "stdio" });
        let transport = match kind {
            "stdio" => {
                let command = self.command.as_deref().filter(|c| !c.trim().is_empty()).ok_or_else(|| {
                    ConfigErrorKind::Invalid(
                        "a stdio server needs a `command` (or `\"type\": \"http\"` and a `url`)".into(),
                    )
                })?;
                Transport::Stdio(StdioConfig {
                    command: expand(command)?,
                    args: self.args.iter().map(|a| expand(a)).collect::<Result<_, _>>()?,
                    env: self
                        .env
                        .iter()
                        .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                        .collect::<Result<_, _>>()?,
                    cwd: self.cwd.as_deref().map(expand).transpose()?.map(PathBuf::from),
                })
            }
            "http" | "streamable-http" | "streamableHttp" => {
                let url = self
                    .url
                    .as_deref()
                    .filter(|u| !u.trim().is_empty())
                    .ok_or_else(|| ConfigErrorKind::Invalid("an http server needs a `url`".into()))?;
                let url = expand(url)?;
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(ConfigErrorKind::Invalid(format!(
                        "`url` must be http:// or https://, not `{url}`"
                    )));
                }
                let oauth = match &self.oauth {
                    Some(raw) => OAuthSettings {
                        client_id: raw.client_id.as_deref().map(expand).transpose()?,
                        scopes: raw.scopes.clone(),
                        callback_port: raw.callback_port,
                    },
                    None => OAuthSettings::default(),
                };
                Transport::Http(HttpConfig {
                    url,
                    headers: self
                        .headers
                        .iter()
                        .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                        .collect::<Result<_, _>>()?,
                    oauth,
                })
            }
            "sse" => {
                return Err(ConfigErrorKind::Invalid(
                    "the HTTP+SSE transport is deprecated and not supported: use `\"type\": \"http\"` \
                     (streamable HTTP) with the server's MCP endpoint"
                        .into(),
                ));
            }
            other => {
                return Err(ConfigErrorKind::Invalid(format!(
                    "unknown `type` `{other}` (expected `stdio` or `http`)"
                )));
            }
        };
        let enabled = match (self.enabled, self.disabled) {
            (Some(e), Some(d)) if e == d => {
                return Err(ConfigErrorKind::Invalid(
                    "`enabled` and `disabled` contradict each other".into(),
                ));
            }
            (Some(e), _) => e,
            (None, Some(d)) => !d,
            (None, None) => true,
        };
        Ok(ServerConfig {
            name: name.to_owned(),
            transport,
            enabled,
            tools: ToolFilter { allow: self.allowed_tools, deny: self.denied_tools },
            startup_timeout: self.startup_timeout_ms.map(Duration::from_millis),
            call_timeout: self.call_timeout_ms.map(Duration::from_millis),
        })
    }
}
