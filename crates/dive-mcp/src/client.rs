//! [`McpClient`]: one connected server (stdio child or streamable HTTP), its tools as a
//! [`Toolset`], its resources and prompts.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use std::collections::BTreeMap;

use dive_core::{
    BoxFuture, Content, Message, RunInfo, SuspendRequest, Tool, ToolContext, ToolError, ToolOutput, Toolset,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, JsonObject, Prompt, ProtocolVersion,
    ReadResourceRequestParams, Resource, ResourceTemplate, ServerNotification, ServerPeerInfo,
    SubscriptionFilter,
};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::config::{HttpConfig, ServerConfig, ToolFilter, Transport};
use crate::convert;
use crate::elicit::{Elicitation, ElicitationHandler};

/// How many times in a row a call's input requests are answered by the elicitation handler
/// before the client stops (a server that keeps asking).
const INLINE_INPUT_ROUNDS: usize = 4;
use crate::error::McpError;
use crate::handler::{Changes, Handler};
use crate::oauth::OAuth;
use crate::process::ServerProcess;
use crate::task::McpTask;
use crate::tool::McpTool;

/// What a tool call came to.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallOutcome {
    /// Finished (possibly with an error output).
    Done(ToolOutput),
    /// The server needs input first. As a tool result this suspends the turn; the
    /// application gets the answers, finishes the call with [`McpClient::answer_input`] (or
    /// [`McpManager::answer_input`](crate::McpManager::answer_input)) and resumes the turn
    /// with the output.
    InputRequired(SuspendRequest),
    /// The server started a task (the tasks extension) for a long call: wait for its output
    /// with [`McpTask::wait`]. As a tool result it is a background task.
    Task(McpTask),
}

/// An input request as kept in a suspension's metadata (`{"mcp": {…}}`).
pub(crate) struct PendingInput {
    pub(crate) server: String,
    tool: String,
    arguments: JsonObject,
    request_state: Option<String>,
}

impl PendingInput {
    pub(crate) fn from_metadata(metadata: &serde_json::Map<String, Value>) -> Option<Self> {
        let mcp = metadata.get("mcp")?;
        Some(Self {
            server: mcp["server"].as_str()?.to_owned(),
            tool: mcp["tool"].as_str()?.to_owned(),
            arguments: mcp["arguments"].as_object().cloned().unwrap_or_default(),
            request_state: mcp["requestState"].as_str().map(str::to_owned),
        })
    }
}

/// Which protocol generations a client offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProtocolChoice {
    /// Try the stateless 2026-07-28 protocol (`server/discover`) and fall back to the
    /// `initialize` handshake (2025-11-25 and older) when the server does not speak it.
    #[default]
    Auto,
    /// Only the `initialize` handshake (2025-11-25 and older); skips the probe for servers
    /// known to be old.
    Legacy,
    /// Only 2026-07-28.
    Modern,
}

/// How clients connect.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ConnectOptions {
    /// The limit on start-up (process start, handshake, first tool listing) unless a
    /// server sets its own. Default 30 s.
    pub startup_timeout: Duration,
    /// The limit on one call unless a server sets its own; `None` (default): no limit
    /// beyond the agent's own cancellation.
    pub call_timeout: Option<Duration>,
    /// Which protocol generations to offer.
    pub protocol: ProtocolChoice,
    /// Where a tool call's W3C `traceparent` comes from (sent in the request's `_meta`).
    pub traceparent: Option<TraceparentSource>,
    /// The OAuth token store for HTTP servers; `None`: a 401 is
    /// [`McpError::AuthorizationRequired`] with nowhere to keep tokens.
    pub oauth: Option<OAuth>,
    /// Who answers a 2025-11-25 server's mid-call elicitation; `None`: declined.
    pub elicitation: Option<ElicitationHandler>,
}

/// Gives the `traceparent` of the span a tool call runs under, if any (with dive-otel:
/// `dive_otel::propagation::tool_traceparent`).
#[derive(Clone)]
pub struct TraceparentSource(Arc<TraceparentFn>);

/// What a [`TraceparentSource`] calls.
type TraceparentFn = dyn Fn(&ToolContext) -> Option<String> + Send + Sync;

impl TraceparentSource {
    /// A source from a function of the call's context.
    pub fn new(source: impl Fn(&ToolContext) -> Option<String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(source))
    }

    /// The call's `traceparent`.
    #[must_use]
    pub fn of(&self, ctx: &ToolContext) -> Option<String> {
        (self.0)(ctx)
    }
}

impl std::fmt::Debug for TraceparentSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TraceparentSource")
    }
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            startup_timeout: Duration::from_secs(30),
            call_timeout: None,
            protocol: ProtocolChoice::Auto,
            traceparent: None,
            oauth: None,
            elicitation: None,
        }
    }
}

impl ConnectOptions {
    /// Sets the start-up limit.
    #[must_use]
    pub fn with_startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Sets the per-call limit.
    #[must_use]
    pub fn with_call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = Some(timeout);
        self
    }

    /// Sends each tool call's `traceparent` from `source` in the request's `_meta`, so the
    /// server's work joins the caller's trace.
    #[must_use]
    pub fn with_traceparent(mut self, source: TraceparentSource) -> Self {
        self.traceparent = Some(source);
        self
    }

    /// Authorizes HTTP servers with OAuth 2.1, the tokens kept by `oauth`: stored tokens
    /// are sent and refreshed; a server that answers 401 without them fails to connect with
    /// [`McpError::AuthorizationRequired`] (see [`crate::oauth`]).
    #[must_use]
    pub fn with_oauth(mut self, oauth: OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Answers a 2025-11-25 server that asks for input in the middle of a call (its request
    /// waits for the answer; a 2026-07-28 server suspends the turn instead).
    #[must_use]
    pub fn with_elicitation(mut self, handler: ElicitationHandler) -> Self {
        self.elicitation = Some(handler);
        self
    }

    /// Sets the protocol generations offered.
    #[must_use]
    pub fn with_protocol(mut self, protocol: ProtocolChoice) -> Self {
        self.protocol = protocol;
        self
    }

    fn lifecycle(&self) -> ClientLifecycleMode {
        match self.protocol {
            ProtocolChoice::Legacy => ClientLifecycleMode::Initialize,
            ProtocolChoice::Modern => {
                ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }
            }
            ProtocolChoice::Auto => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            },
        }
    }
}

/// One connected MCP server. Cheap to clone (shared); when the last clone is dropped the
/// connection closes and a stdio server is killed with its whole process group.
///
/// As a [`Toolset`] it offers the server's tools as `mcp__<server>__<tool>` (after its
/// [`ToolFilter`]), listed once and listed again after the server says they changed.
#[derive(Clone)]
pub struct McpClient {
    inner: Arc<Inner>,
}

/// A client as its tools hold it: weakly, so the cached tools do not keep the connection
/// (and a stdio server's process) alive once the last [`McpClient`] is dropped.
#[derive(Clone)]
pub(crate) struct WeakClient {
    inner: std::sync::Weak<Inner>,
    name: Arc<str>,
}

impl WeakClient {
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    pub(crate) fn upgrade(&self) -> Option<McpClient> {
        self.inner.upgrade().map(|inner| McpClient { inner })
    }
}

struct Inner {
    name: String,
    // Dropped before `process`: the session closes, then the process group is killed.
    service: RunningService<RoleClient, Handler>,
    listener: Option<JoinHandle<()>>,
    process: Option<ServerProcess>,
    changes: Arc<Changes>,
    filter: ToolFilter,
    call_timeout: Option<Duration>,
    tools: Mutex<Option<ToolCache>>,
    traceparent: Option<TraceparentSource>,
    has_oauth: bool,
    elicitation: Option<ElicitationHandler>,
}

/// The listed tools and the change generation they were listed at.
type ToolCache = (u64, Vec<Arc<dyn Tool>>);

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(listener) = self.listener.take() {
            listener.abort();
        }
    }
}

impl std::fmt::Debug for McpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpClient")
            .field("name", &self.inner.name)
            .field("protocol", &self.protocol_version().map(|v| v.to_string()))
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// Connects to `server`: starts a stdio server in its own process group or opens the
    /// HTTP endpoint, negotiates the protocol and lists the tools, all within the start-up
    /// limit (a stdio server still starting when it passes is killed with its tree).
    ///
    /// # Errors
    /// [`McpError::Spawn`], [`McpError::StartupTimeout`], [`McpError::Handshake`],
    /// [`McpError::Setup`] or the [`McpError::Request`] of the first tool listing.
    pub async fn connect(server: &ServerConfig, options: &ConnectOptions) -> Result<Self, McpError> {
        let timeout = server.startup_timeout.unwrap_or(options.startup_timeout);
        let name = server.name.clone();
        let changes = Changes::new();
        let handler = Handler::new(changes.clone(), &name, options.elicitation.clone());
        let lifecycle = options.lifecycle();
        let handshake =
            |message: String, stderr: String| McpError::Handshake { server: name.clone(), message, stderr };
        let (service, process) = match &server.transport {
            Transport::Stdio(stdio) => {
                let (process, stdout, stdin) = ServerProcess::spawn(&name, stdio)?;
                let stderr = process.stderr();
                match tokio::time::timeout(timeout, handler.serve_with_lifecycle((stdout, stdin), lifecycle))
                    .await
                {
                    Ok(Ok(service)) => (service, Some(process)),
                    Ok(Err(e)) => {
                        drop(process);
                        return Err(handshake(e.to_string(), stderr.text()));
                    }
                    Err(_) => {
                        drop(process);
                        return Err(McpError::StartupTimeout {
                            server: name,
                            timeout,
                            stderr: stderr.text(),
                        });
                    }
                }
            }
            Transport::Http(http) => {
                let (client, config) = http_transport(&name, http)?;
                let started = match &options.oauth {
                    Some(oauth) => {
                        let client = oauth.client(&name, http, client).await?;
                        let transport = StreamableHttpClientTransport::with_client(client, config);
                        tokio::time::timeout(timeout, handler.serve_with_lifecycle(transport, lifecycle))
                            .await
                    }
                    None => {
                        let transport = StreamableHttpClientTransport::with_client(client, config);
                        tokio::time::timeout(timeout, handler.serve_with_lifecycle(transport, lifecycle))
                            .await
                    }
                };
                match started {
                    Ok(Ok(service)) => (service, None),
                    Ok(Err(e)) => {
                        return Err(match e.auth_challenge() {
                            Some(challenge) => McpError::AuthorizationRequired {
                                server: name,
                                challenge: challenge.to_owned(),
                                has_store: options.oauth.is_some(),
                            },
                            None => handshake(e.to_string(), String::new()),
                        });
                    }
                    Err(_) => {
                        return Err(McpError::StartupTimeout {
                            server: name,
                            timeout,
                            stderr: String::new(),
                        });
                    }
                }
            }
        };
        let listener = spawn_listener(&service, &changes);
        let client = Self {
            inner: Arc::new(Inner {
                name: name.clone(),
                service,
                listener,
                process,
                changes,
                filter: server.tools.clone(),
                call_timeout: server.call_timeout.or(options.call_timeout),
                traceparent: options.traceparent.clone(),
                has_oauth: options.oauth.is_some(),
                elicitation: options.elicitation.clone(),
                tools: Mutex::new(None),
            }),
        };
        match tokio::time::timeout(timeout, client.tools()).await {
            Ok(Ok(_)) => Ok(client),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(McpError::StartupTimeout { server: name, timeout, stderr: client.stderr() }),
        }
    }

    /// The server's configured name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// What the server said about itself (protocol version, capabilities, identity,
    /// instructions).
    #[must_use]
    pub fn server_info(&self) -> Option<Arc<ServerPeerInfo>> {
        self.inner.service.peer().peer_info()
    }

    /// The negotiated protocol version.
    #[must_use]
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.server_info().map(|i| i.protocol_version.clone())
    }

    /// The stdio server's process id (its process group id too); `None` for HTTP.
    #[must_use]
    pub fn process_id(&self) -> Option<u32> {
        self.inner.process.as_ref().and_then(ServerProcess::id)
    }

    /// The last lines a stdio server wrote to stderr (empty for HTTP).
    #[must_use]
    pub fn stderr(&self) -> String {
        self.inner.process.as_ref().map(|p| p.stderr().text()).unwrap_or_default()
    }

    /// Whether the connection is gone (the server exited or the transport closed).
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.inner.service.is_closed()
            || self.inner.service.peer().is_transport_closed()
            || self.inner.process.as_ref().is_some_and(ServerProcess::has_exited)
    }

    /// A receiver that changes each time the server says its tool list changed (for UIs
    /// and tests; [`tools`](Self::tools) re-lists on its own).
    #[must_use]
    pub fn tool_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.changes.tools.subscribe()
    }

    /// The server's tools that pass its filter, as dive tools named `mcp__<server>__<tool>`.
    /// Listed once and again after each list-changed notification. The tools do not keep
    /// the connection open: once the last clone of this client is dropped they answer with
    /// an error saying so.
    ///
    /// # Errors
    /// [`McpError::Request`] when the listing fails.
    pub async fn tools(&self) -> Result<Vec<Arc<dyn Tool>>, McpError> {
        let generation = *self.inner.changes.tools.borrow();
        let mut cache = self.inner.tools.lock().await;
        if let Some((seen, tools)) = cache.as_ref()
            && *seen == generation
        {
            return Ok(tools.clone());
        }
        let listed = self.request("tools/list", self.inner.service.peer().list_all_tools()).await?;
        let tools: Vec<Arc<dyn Tool>> = listed
            .into_iter()
            .filter(|t| self.inner.filter.allows(&t.name))
            .map(|t| Arc::new(McpTool::new(self.downgrade(), t)) as Arc<dyn Tool>)
            .collect();
        *cache = Some((generation, tools.clone()));
        Ok(tools)
    }

    /// How many tools the last listing offered (0 before the first).
    pub(crate) fn cached_tool_count(&self) -> usize {
        self.inner.tools.try_lock().ok().and_then(|c| c.as_ref().map(|(_, t)| t.len())).unwrap_or(0)
    }

    /// Calls the server's tool `tool` (its own name, not the qualified one) with `arguments`
    /// (a JSON object). A tool error (`isError`) is an error output, not an `Err`.
    ///
    /// # Errors
    /// [`McpError::Request`] (connection gone, JSON-RPC error), [`McpError::Timeout`], or
    /// [`McpError::Unsupported`] when the server asks for input (use [`call`](Self::call)
    /// to get that as an [`CallOutcome::InputRequired`]) or starts a task.
    pub async fn call_tool(&self, tool: &str, arguments: JsonObject) -> Result<ToolOutput, McpError> {
        match self.call(tool, arguments).await? {
            CallOutcome::Done(output) => Ok(output),
            CallOutcome::Task(task) => Ok(task.wait().await),
            CallOutcome::InputRequired(request) => Err(self.unsupported(&format!(
                "the tool asked for input ({}); answer it with McpClient::call and answer_input",
                request.prompt
            ))),
        }
    }

    /// Calls a tool like [`call_tool`](Self::call_tool), but a server that needs input first
    /// (2026-07-28 `input_required`, e.g. an elicitation) gives
    /// [`CallOutcome::InputRequired`]: a [`SuspendRequest`] whose metadata carries everything
    /// needed to finish the call later, in this process or another
    /// ([`answer_input`](Self::answer_input)).
    ///
    /// # Errors
    /// As [`call_tool`](Self::call_tool), except for input requests.
    pub async fn call(&self, tool: &str, arguments: JsonObject) -> Result<CallOutcome, McpError> {
        self.call_traced(tool, arguments, None).await
    }

    /// [`call`](Self::call) with the W3C `traceparent` of the caller's span in the request's
    /// `_meta` (SEP-414), so the server's work joins the caller's trace.
    ///
    /// # Errors
    /// As [`call`](Self::call).
    pub async fn call_traced(
        &self,
        tool: &str,
        arguments: JsonObject,
        traceparent: Option<&str>,
    ) -> Result<CallOutcome, McpError> {
        let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments.clone());
        if let Some(traceparent) = traceparent {
            let mut meta = rmcp::model::RequestMetaObject::default();
            meta.set_traceparent(traceparent);
            params.meta = Some(meta);
        }
        self.round(tool, arguments, params).await
    }

    /// The `traceparent` this client sends for a call made in `ctx`.
    pub(crate) fn traceparent_for(&self, ctx: &ToolContext) -> Option<String> {
        self.inner.traceparent.as_ref().and_then(|source| source.of(ctx))
    }

    /// Finishes a call that needed input: sends `responses` (one per key of the request's
    /// `inputRequests`, e.g. `{"action": "accept", "content": {…}}` for an elicitation) with
    /// the server's `requestState`, retrying the original call. `metadata` is the
    /// suspension's (a [`SuspendRequest`]'s, or the turn's pending call's after a reload:
    /// `{"mcp": {"server", "tool", "arguments", "inputRequests", "requestState"}}`). The
    /// server may ask again.
    ///
    /// # Errors
    /// [`McpError::Unsupported`] when `request` is not an MCP input request of this server,
    /// else as [`call`](Self::call).
    pub async fn answer_input(
        &self,
        metadata: &serde_json::Map<String, Value>,
        responses: BTreeMap<String, Value>,
    ) -> Result<CallOutcome, McpError> {
        let pending = PendingInput::from_metadata(metadata)
            .filter(|p| p.server == self.inner.name)
            .ok_or_else(|| self.unsupported("this suspension is not an input request of this server"))?;
        let mut params = CallToolRequestParams::new(pending.tool.clone())
            .with_arguments(pending.arguments.clone())
            .with_input_responses(responses);
        if let Some(state) = pending.request_state {
            params = params.with_request_state(state);
        }
        self.round(&pending.tool, pending.arguments, params).await
    }

    async fn round(
        &self,
        tool: &str,
        arguments: JsonObject,
        mut params: CallToolRequestParams,
    ) -> Result<CallOutcome, McpError> {
        // With an elicitation handler, input a server asks for is answered now, a few rounds
        // at most; without one the call suspends with everything needed to finish it later.
        for _ in 0..=INLINE_INPUT_ROUNDS {
            let input = match self.send_call(params).await? {
                CallToolResponse::Complete(result) => {
                    return Ok(CallOutcome::Done(convert::output_from_mcp(result)));
                }
                CallToolResponse::InputRequired(input) => input,
                CallToolResponse::Task(created) => {
                    return Ok(CallOutcome::Task(McpTask::new(self.clone(), tool, &created.task)));
                }
                _ => {
                    return Err(
                        self.unsupported("the tool answered with a result type this client does not know")
                    );
                }
            };
            let requests = serde_json::to_value(&input.input_requests).unwrap_or(Value::Null);
            if let Some(responses) = self.answer_now(&requests).await {
                params = CallToolRequestParams::new(tool.to_owned())
                    .with_arguments(arguments.clone())
                    .with_input_responses(responses);
                if let Some(state) = input.request_state {
                    params = params.with_request_state(state);
                }
                continue;
            }
            return Ok(CallOutcome::InputRequired(self.suspension(
                tool,
                &arguments,
                requests,
                input.request_state,
            )));
        }
        Err(self.unsupported(&format!(
            "`{tool}` asked for input more than {INLINE_INPUT_ROUNDS} times in a row; stopped asking"
        )))
    }

    async fn send_call(&self, params: CallToolRequestParams) -> Result<CallToolResponse, McpError> {
        let call = self.inner.service.peer().call_tool_once(params);
        match self.inner.call_timeout {
            Some(limit) => {
                tokio::time::timeout(limit, self.request("tools/call", call)).await.map_err(|_| {
                    McpError::Timeout {
                        server: self.inner.name.clone(),
                        method: "tools/call",
                        timeout: limit,
                    }
                })?
            }
            None => self.request("tools/call", call).await,
        }
    }

    /// Answers every input request now through the elicitation handler, when there is one
    /// and every request is an elicitation; `None` otherwise (the call suspends).
    async fn answer_now(&self, requests: &Value) -> Option<BTreeMap<String, Value>> {
        let handler = self.inner.elicitation.as_ref()?;
        let requests = requests.as_object().filter(|m| !m.is_empty())?;
        let mut responses = BTreeMap::new();
        for (key, request) in requests {
            if request["method"] != "elicitation/create" {
                return None;
            }
            let params = &request["params"];
            let ask = Elicitation {
                server: self.inner.name.clone(),
                message: params["message"].as_str().unwrap_or_default().to_owned(),
                schema: params.get("requestedSchema").cloned(),
                url: params["url"].as_str().map(str::to_owned),
            };
            responses.insert(key.clone(), handler.answer(ask).await);
        }
        Some(responses)
    }

    /// The suspension of a call that needs input: the requests' messages as the prompt, and
    /// in the metadata everything needed to finish the call later, in any process.
    fn suspension(
        &self,
        tool: &str,
        arguments: &JsonObject,
        requests: Value,
        request_state: Option<String>,
    ) -> SuspendRequest {
        let messages: Vec<String> = requests
            .as_object()
            .into_iter()
            .flat_map(|m| m.values())
            .filter_map(|r| r["params"]["message"].as_str().map(str::to_owned))
            .collect();
        let prompt = if messages.is_empty() {
            format!("The MCP server `{}` needs input to finish `{tool}`.", self.inner.name)
        } else {
            messages.join("\n")
        };
        let metadata = json!({"mcp": {
            "server": self.inner.name,
            "tool": tool,
            "arguments": arguments,
            "inputRequests": requests,
            "requestState": request_state,
        }});
        let metadata = match metadata {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        SuspendRequest::new(prompt).with_metadata(metadata)
    }

    /// Every resource the server lists.
    ///
    /// # Errors
    /// [`McpError::Request`].
    pub async fn list_resources(&self) -> Result<Vec<Resource>, McpError> {
        self.request("resources/list", self.inner.service.peer().list_all_resources()).await
    }

    /// Every resource template the server lists.
    ///
    /// # Errors
    /// [`McpError::Request`].
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>, McpError> {
        self.request("resources/templates/list", self.inner.service.peer().list_all_resource_templates())
            .await
    }

    /// Reads a resource as content blocks (text as a text document titled by its URI, an
    /// image blob as an image, any other blob as a base64 document).
    ///
    /// # Errors
    /// [`McpError::Request`] (e.g. the URI is unknown).
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<Content>, McpError> {
        let result = self
            .request(
                "resources/read",
                self.inner.service.peer().read_resource(ReadResourceRequestParams::new(uri)),
            )
            .await?;
        Ok(result.contents.into_iter().map(convert::resource_from_mcp).collect())
    }

    /// Every prompt the server lists.
    ///
    /// # Errors
    /// [`McpError::Request`].
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>, McpError> {
        self.request("prompts/list", self.inner.service.peer().list_all_prompts()).await
    }

    /// Renders the prompt `name` with string `arguments` into messages.
    ///
    /// # Errors
    /// [`McpError::Request`] (unknown prompt, missing argument).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Vec<Message>, McpError> {
        let arguments: JsonObject = arguments.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
        let params = GetPromptRequestParams::new(name).with_arguments(arguments);
        let result = self.request("prompts/get", self.inner.service.peer().get_prompt(params)).await?;
        Ok(result.messages.into_iter().map(convert::message_from_mcp).collect())
    }

    pub(crate) fn downgrade(&self) -> WeakClient {
        WeakClient { inner: Arc::downgrade(&self.inner), name: self.inner.name.as_str().into() }
    }

    /// The raw rmcp peer, for anything this wrapper does not cover.
    #[must_use]
    pub fn peer(&self) -> &rmcp::Peer<RoleClient> {
        self.inner.service.peer()
    }

    async fn request<T>(
        &self,
        method: &'static str,
        call: impl Future<Output = Result<T, rmcp::ServiceError>>,
    ) -> Result<T, McpError> {
        let result = match &self.inner.process {
            // A dead server fails the request at once, even if a process it started still
            // holds its pipes open.
            Some(process) => {
                let exited = process.exited();
                tokio::select! {
                    result = call => result,
                    () = exited => Err(rmcp::ServiceError::TransportClosed),
                }
            }
            None => call.await,
        };
        result.map_err(|source| match source.auth_challenge() {
            // The token was revoked, or expired and could not be refreshed.
            Some(challenge) => McpError::AuthorizationRequired {
                server: self.inner.name.clone(),
                challenge: challenge.to_owned(),
                has_store: self.inner.has_oauth,
            },
            None => McpError::Request { server: self.inner.name.clone(), method, source },
        })
    }

    fn unsupported(&self, message: &str) -> McpError {
        McpError::Unsupported { server: self.inner.name.clone(), message: message.to_owned() }
    }
}

impl Toolset for McpClient {
    fn name(&self) -> &str {
        &self.inner.name
    }

    fn tools<'a>(&'a self, _run: &'a RunInfo) -> BoxFuture<'a, Result<Vec<Arc<dyn Tool>>, ToolError>> {
        Box::pin(async move { McpClient::tools(self).await.map_err(ToolError::from_error) })
    }
}

/// The streamable HTTP transport on our rustls client, with the configured headers
/// (values marked sensitive).
fn http_transport(
    name: &str,
    http: &HttpConfig,
) -> Result<(reqwest::Client, StreamableHttpClientTransportConfig), McpError> {
    let setup = |message: String| McpError::Setup { server: name.to_owned(), message };
    let client = dive_provider::HttpOptions::default()
        .build_client()
        .map_err(|e| setup(format!("cannot build the HTTP client: {e}")))?;
    let mut headers = HashMap::new();
    for (key, value) in &http.headers {
        let header = http::HeaderName::try_from(key.as_str())
            .map_err(|e| setup(format!("header `{key}` is not a valid name: {e}")))?;
        let mut value = http::HeaderValue::try_from(value.as_str())
            .map_err(|_| setup(format!("the value of header `{key}` is not a valid header value")))?;
        value.set_sensitive(true);
        headers.insert(header, value);
    }
    let config = StreamableHttpClientTransportConfig::with_uri(http.url.as_str()).custom_headers(headers);
    Ok((client, config))
}

/// On a 2026-07-28 connection list-changed notifications arrive on a `subscriptions/listen`
/// stream, not unscoped: open one and bump the same counters the handler bumps.
fn spawn_listener(
    service: &RunningService<RoleClient, Handler>,
    changes: &Arc<Changes>,
) -> Option<JoinHandle<()>> {
    let info = service.peer().peer_info()?;
    if info.protocol_version.has_initialize() {
        return None;
    }
    let caps = &info.capabilities;
    let mut filter = SubscriptionFilter::builder();
    let mut any = false;
    if caps.tools.as_ref().and_then(|t| t.list_changed) == Some(true) {
        filter = filter.tools_list_changed();
        any = true;
    }
    if caps.prompts.as_ref().and_then(|p| p.list_changed) == Some(true) {
        filter = filter.prompts_list_changed();
        any = true;
    }
    if caps.resources.as_ref().and_then(|r| r.list_changed) == Some(true) {
        filter = filter.resources_list_changed();
        any = true;
    }
    if !any {
        return None;
    }
    let peer = service.peer().clone();
    let changes = changes.clone();
    let filter = filter.build();
    Some(tokio::spawn(async move {
        let mut subscription = match peer.listen(filter).await {
            Ok(s) => s,
            Err(e) => {
                tracing::debug!(error = %e, "mcp: subscriptions/listen refused; list changes arrive unscoped only");
                return;
            }
        };
        while let Ok(Some(notification)) = subscription.next().await {
            match notification {
                ServerNotification::ToolListChangedNotification(_) => Changes::bump(&changes.tools),
                ServerNotification::PromptListChangedNotification(_) => Changes::bump(&changes.prompts),
                ServerNotification::ResourceListChangedNotification(_) => Changes::bump(&changes.resources),
                _ => {}
            }
        }
    }))
}
