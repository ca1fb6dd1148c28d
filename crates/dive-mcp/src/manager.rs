//! [`McpManager`]: many servers started in parallel, each within its own limit; a server
//! that fails is reported in its [`ServerStatus`] and skipped, and a connection that drops
//! is reconnected in the background with exponential backoff.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use dive_core::{BoxFuture, RunInfo, Tool, ToolError, Toolset};
use serde_json::Value;

use crate::client::{CallOutcome, ConnectOptions, McpClient, PendingInput};
use crate::config::{McpConfig, ServerConfig};
use crate::error::McpError;

/// How the manager connects and reconnects.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ManagerOptions {
    /// How each server connects (start-up limit, call limit, protocol).
    pub connect: ConnectOptions,
    /// The wait before the first reconnect attempt; doubled after each failure. Default 500 ms.
    pub reconnect_initial: Duration,
    /// The longest wait between attempts. Default 30 s.
    pub reconnect_max: Duration,
    /// Attempts before a dropped server stays failed (until [`McpManager::reconnect`]).
    /// Default 5; 0 turns reconnecting off.
    pub reconnect_attempts: u32,
}

impl Default for ManagerOptions {
    fn default() -> Self {
        Self {
            connect: ConnectOptions::default(),
            reconnect_initial: Duration::from_millis(500),
            reconnect_max: Duration::from_secs(30),
            reconnect_attempts: 5,
        }
    }
}

impl ManagerOptions {
    /// Sets how servers connect.
    #[must_use]
    pub fn with_connect(mut self, connect: ConnectOptions) -> Self {
        self.connect = connect;
        self
    }

    /// Sets the reconnect backoff: first wait, longest wait, attempts.
    #[must_use]
    pub fn with_reconnect(mut self, initial: Duration, max: Duration, attempts: u32) -> Self {
        self.reconnect_initial = initial;
        self.reconnect_max = max;
        self.reconnect_attempts = attempts;
        self
    }
}

/// A server's state.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerState {
    /// Disabled in its configuration; never started.
    Disabled,
    /// Connected.
    Connected {
        /// Tools offered (after its filter).
        tools: usize,
        /// The negotiated protocol version.
        protocol: String,
    },
    /// The connection dropped; reconnecting in the background.
    Reconnecting {
        /// Attempts made so far.
        attempt: u32,
        /// The last error.
        error: String,
    },
    /// The server wants an OAuth access token: authorize (see [`crate::oauth`]), then
    /// [`McpManager::reconnect`]. Not retried on its own.
    NeedsAuthorization {
        /// What the connection said, in the user's words.
        error: String,
    },
    /// Not connected: start-up failed, or reconnecting gave up.
    Failed {
        /// Why, in the user's words.
        error: String,
    },
}

/// One server's name and state (what `/mcp` lists).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServerStatus {
    /// The server's configured name.
    pub name: String,
    /// Its state.
    pub state: ServerState,
}

enum Slot {
    Disabled,
    Connected(McpClient),
    Reconnecting { attempt: u32, error: String },
    NeedsAuthorization(String),
    Failed(String),
}

impl Slot {
    /// The slot a failed connect leaves: waiting for authorization, or failed.
    fn failed(e: &McpError) -> Self {
        match e {
            McpError::AuthorizationRequired { .. } => Self::NeedsAuthorization(e.to_string()),
            _ => Self::Failed(e.to_string()),
        }
    }
}

struct Entry {
    config: ServerConfig,
    slot: Mutex<Slot>,
}

struct Inner {
    options: ManagerOptions,
    entries: Vec<Entry>,
}

/// Many MCP servers, one [`Toolset`] over all of them (each tool `mcp__<server>__<tool>`).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use dive_mcp::{ManagerOptions, McpConfig, McpManager, Vars};
/// let config = McpConfig::load(".mcp.json", &Vars::from_env())?;
/// let manager = McpManager::start(&config, ManagerOptions::default()).await;
/// for status in manager.statuses() {
///     println!("{}: {:?}", status.name, status.state);
/// }
/// // Agent::builder().toolset(manager.clone()) …
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct McpManager {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for McpManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpManager").field("servers", &self.statuses()).finish()
    }
}

impl McpManager {
    /// Starts every enabled server of `config` in parallel, each within its start-up limit,
    /// and waits for all of them to connect or fail. Never fails as a whole: a server that
    /// cannot start is [`ServerState::Failed`] with the reason.
    pub async fn start(config: &McpConfig, options: ManagerOptions) -> Self {
        let connects = config.servers().map(|server| {
            let options = options.connect.clone();
            async move {
                if !server.enabled {
                    return Slot::Disabled;
                }
                match McpClient::connect(server, &options).await {
                    Ok(client) => Slot::Connected(client),
                    Err(e) => {
                        tracing::warn!(server = %server.name, error = %e, "mcp server failed to start");
                        Slot::failed(&e)
                    }
                }
            }
        });
        let slots = futures_util::future::join_all(connects).await;
        let entries = config
            .servers()
            .zip(slots)
            .map(|(config, slot)| Entry { config: config.clone(), slot: Mutex::new(slot) })
            .collect();
        Self { inner: Arc::new(Inner { options, entries }) }
    }

    /// Every configured server and its state, by name.
    #[must_use]
    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.inner
            .entries
            .iter()
            .map(|entry| {
                let state = match &*lock(&entry.slot) {
                    Slot::Disabled => ServerState::Disabled,
                    Slot::Connected(client) => ServerState::Connected {
                        tools: client.cached_tool_count(),
                        protocol: client.protocol_version().map(|v| v.to_string()).unwrap_or_default(),
                    },
                    Slot::Reconnecting { attempt, error } => {
                        ServerState::Reconnecting { attempt: *attempt, error: error.clone() }
                    }
                    Slot::NeedsAuthorization(error) => {
                        ServerState::NeedsAuthorization { error: error.clone() }
                    }
                    Slot::Failed(error) => ServerState::Failed { error: error.clone() },
                };
                ServerStatus { name: entry.config.name.clone(), state }
            })
            .collect()
    }

    /// The connected client of server `name`.
    #[must_use]
    pub fn client(&self, name: &str) -> Option<McpClient> {
        let entry = self.inner.entries.iter().find(|e| e.config.name == name)?;
        match &*lock(&entry.slot) {
            Slot::Connected(client) => Some(client.clone()),
            _ => None,
        }
    }

    /// Every connected client.
    #[must_use]
    pub fn clients(&self) -> Vec<McpClient> {
        self.inner
            .entries
            .iter()
            .filter_map(|e| match &*lock(&e.slot) {
                Slot::Connected(client) => Some(client.clone()),
                _ => None,
            })
            .collect()
    }

    /// Connects server `name` again now (closing its current connection), e.g. after it
    /// failed and reconnecting gave up, or from a `/mcp reconnect` command.
    ///
    /// # Errors
    /// [`McpError::UnknownServer`], or why the connection failed (also kept in its status).
    pub async fn reconnect(&self, name: &str) -> Result<(), McpError> {
        let entry = self
            .inner
            .entries
            .iter()
            .find(|e| e.config.name == name)
            .ok_or_else(|| McpError::UnknownServer(name.to_owned()))?;
        *lock(&entry.slot) = Slot::Reconnecting { attempt: 1, error: "reconnect requested".into() };
        match McpClient::connect(&entry.config, &self.inner.options.connect).await {
            Ok(client) => {
                *lock(&entry.slot) = Slot::Connected(client);
                Ok(())
            }
            Err(e) => {
                *lock(&entry.slot) = Slot::failed(&e);
                Err(e)
            }
        }
    }

    /// Finishes an MCP tool call that suspended for input, on the server its metadata names
    /// (see [`McpClient::answer_input`]).
    ///
    /// # Errors
    /// [`McpError::Unsupported`] for a suspension that is not an MCP input request,
    /// [`McpError::UnknownServer`] when its server is not connected, else as
    /// [`McpClient::answer_input`].
    pub async fn answer_input(
        &self,
        metadata: &serde_json::Map<String, Value>,
        responses: BTreeMap<String, Value>,
    ) -> Result<CallOutcome, McpError> {
        let pending = PendingInput::from_metadata(metadata).ok_or_else(|| McpError::Unsupported {
            server: String::new(),
            message: "this suspension is not an MCP input request".into(),
        })?;
        let client =
            self.client(&pending.server).ok_or_else(|| McpError::UnknownServer(pending.server.clone()))?;
        client.answer_input(metadata, responses).await
    }

    /// The tools of every connected server, in configuration order (a name that two servers
    /// produce, e.g. `my server` and `my_server`, is kept from the first). A server whose
    /// connection is found closed (or whose listing fails) is left out and reconnected in
    /// the background.
    pub async fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut out = Vec::new();
        for (index, entry) in self.inner.entries.iter().enumerate() {
            let client = match &*lock(&entry.slot) {
                Slot::Connected(client) => client.clone(),
                _ => continue,
            };
            let listed = if client.is_closed() {
                Err(format!("MCP server `{}`: the connection closed", entry.config.name))
            } else {
                client.tools().await.map_err(|e| e.to_string())
            };
            match listed {
                Ok(tools) => {
                    for tool in tools {
                        // Two server names can sanitize to the same prefix: the first wins.
                        if out.iter().any(|t: &Arc<dyn Tool>| t.name() == tool.name()) {
                            tracing::warn!(tool = tool.name(), server = %entry.config.name, "mcp: duplicate tool name left out");
                        } else {
                            out.push(tool);
                        }
                    }
                }
                Err(error) => self.lost(index, error),
            }
        }
        out
    }

    /// Marks server `index` lost and starts reconnecting it (once).
    fn lost(&self, index: usize, error: String) {
        let entry = &self.inner.entries[index];
        tracing::warn!(server = %entry.config.name, %error, "mcp server lost");
        let attempts = self.inner.options.reconnect_attempts;
        {
            let mut slot = lock(&entry.slot);
            if !matches!(&*slot, Slot::Connected(_)) {
                return;
            }
            *slot = if attempts == 0 {
                Slot::Failed(error.clone())
            } else {
                Slot::Reconnecting { attempt: 0, error }
            };
        }
        if attempts > 0 {
            tokio::spawn(reconnect_loop(Arc::downgrade(&self.inner), index));
        }
    }
}

/// Reconnects server `index` with exponential backoff; stops when the manager is gone.
async fn reconnect_loop(manager: Weak<Inner>, index: usize) {
    let (mut wait, max, attempts) = match manager.upgrade() {
        Some(m) => (m.options.reconnect_initial, m.options.reconnect_max, m.options.reconnect_attempts),
        None => return,
    };
    for attempt in 1..=attempts {
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(max);
        let Some(inner) = manager.upgrade() else { return };
        let entry = &inner.entries[index];
        match McpClient::connect(&entry.config, &inner.options.connect).await {
            Ok(client) => {
                tracing::info!(server = %entry.config.name, attempt, "mcp server reconnected");
                *lock(&entry.slot) = Slot::Connected(client);
                return;
            }
            Err(e @ McpError::AuthorizationRequired { .. }) => {
                // Retrying cannot help until someone authorizes.
                *lock(&entry.slot) = Slot::failed(&e);
                return;
            }
            Err(e) => {
                let error = e.to_string();
                *lock(&entry.slot) = if attempt == attempts {
                    Slot::Failed(format!("{error} (gave up after {attempts} reconnect attempts)"))
                } else {
                    Slot::Reconnecting { attempt, error }
                };
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Toolset for McpManager {
    fn name(&self) -> &str {
        "mcp"
    }

    fn tools<'a>(&'a self, _run: &'a RunInfo) -> BoxFuture<'a, Result<Vec<Arc<dyn Tool>>, ToolError>> {
        Box::pin(async move { Ok(McpManager::tools(self).await) })
    }
}
