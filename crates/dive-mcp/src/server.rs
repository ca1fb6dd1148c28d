//! [`McpServer`]: any set of dive tools served over MCP, on stdio, any byte stream or
//! streamable HTTP. An agent is served as one tool by wrapping it as a tool first (e.g.
//! `dive_subagent::AgentAsTool`).

use std::net::SocketAddr;
use std::sync::Arc;

use dive_core::{RunInfo, Tool, ToolContext, ToolResult, Toolset, Values};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::service::TowerToHyperService;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock,
    CreateTaskResult, ErrorData, GetTaskParams, GetTaskResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskExit, TaskManager, TaskOptions};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::convert;
use crate::error::McpError;

/// How often a client is asked to poll a served task, in milliseconds.
const TASK_POLL_MS: u64 = 200;

/// Dive tools as an MCP server.
///
/// Each `tools/call` runs the tool with a detached [`ToolContext`]; an `Err` from the tool
/// or an error output becomes an `isError` result the caller's model can read, a
/// suspension becomes an error result saying input is needed, and a background task becomes
/// an MCP task (the tasks extension) for a client that declares it — polled with
/// `tasks/get`, stopped with `tasks/cancel` — and is awaited for one that does not. An
/// unknown tool name is a JSON-RPC `invalid params` error.
///
/// ```no_run
/// # async fn demo() -> Result<(), dive_mcp::McpError> {
/// use std::sync::Arc;
/// use dive_core::{FunctionTool, ToolError};
/// let hello = FunctionTool::new("hello", "Says hello.", |_: serde_json::Value, _ctx| async {
///     Ok::<_, ToolError>("hello")
/// });
/// dive_mcp::McpServer::new("demo").with_tool(Arc::new(hello)).serve_stdio().await
/// # }
/// ```
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<ServerInner>,
}

struct ServerInner {
    name: String,
    version: String,
    instructions: Option<String>,
    tools: Vec<Arc<dyn Tool>>,
    toolsets: Vec<Arc<dyn Toolset>>,
    run_values: Option<Arc<RunValuesFn>>,
    /// Background calls served as MCP tasks (to clients that declare the extension).
    tasks: TaskManager,
}

/// Makes the values a served call runs with from the request's W3C `traceparent`, if any.
type RunValuesFn = dyn Fn(Option<&str>) -> Values + Send + Sync;

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tools: Vec<&str> = self.inner.tools.iter().map(|t| t.name()).collect();
        f.debug_struct("McpServer").field("name", &self.inner.name).field("tools", &tools).finish()
    }
}

impl McpServer {
    /// A server called `name` with no tools yet.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            inner: Arc::new(ServerInner {
                name: name.into(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
                instructions: None,
                tools: Vec::new(),
                toolsets: Vec::new(),
                run_values: None,
                tasks: TaskManager::new(),
            }),
        }
    }

    fn edit(mut self, f: impl FnOnce(&mut ServerInner)) -> Self {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            f(inner);
        } else {
            let mut inner = ServerInner {
                name: self.inner.name.clone(),
                version: self.inner.version.clone(),
                instructions: self.inner.instructions.clone(),
                tools: self.inner.tools.clone(),
                toolsets: self.inner.toolsets.clone(),
                run_values: self.inner.run_values.clone(),
                tasks: TaskManager::new(),
            };
            f(&mut inner);
            self.inner = Arc::new(inner);
        }
        self
    }

    /// Adds a tool.
    #[must_use]
    pub fn with_tool(self, tool: Arc<dyn Tool>) -> Self {
        self.edit(|s| s.tools.push(tool))
    }

    /// Adds tools.
    #[must_use]
    pub fn with_tools(self, tools: impl IntoIterator<Item = Arc<dyn Tool>>) -> Self {
        self.edit(|s| s.tools.extend(tools))
    }

    /// Adds a toolset, resolved on every `tools/list` and `tools/call` (so a dynamic set is
    /// served as it is now). Its resolution error is a JSON-RPC internal error.
    #[must_use]
    pub fn with_toolset(self, toolset: Arc<dyn Toolset>) -> Self {
        self.edit(|s| s.toolsets.push(toolset))
    }

    /// Sets the version the server reports (this crate's by default).
    #[must_use]
    pub fn with_version(self, version: impl Into<String>) -> Self {
        let version = version.into();
        self.edit(|s| s.version = version)
    }

    /// Sets the instructions the server gives clients.
    #[must_use]
    pub fn with_instructions(self, instructions: impl Into<String>) -> Self {
        let instructions = instructions.into();
        self.edit(|s| s.instructions = Some(instructions))
    }

    /// The values each served call runs with, made from the request's W3C `traceparent`
    /// (`_meta.traceparent`, SEP-414) when the client sent one: with dive-otel,
    /// `dive_otel::propagation::values_from_traceparent`, so the served tool's spans join the
    /// caller's trace.
    #[must_use]
    pub fn with_run_values(self, make: impl Fn(Option<&str>) -> Values + Send + Sync + 'static) -> Self {
        let make: Arc<RunValuesFn> = Arc::new(make);
        self.edit(|s| s.run_values = Some(make))
    }

    /// The tools served now: the fixed ones, then each toolset's (a name already taken is
    /// left out).
    ///
    /// # Errors
    /// A toolset's resolution error, as a JSON-RPC internal error.
    pub async fn tools(&self) -> Result<Vec<Arc<dyn Tool>>, ErrorData> {
        let mut tools = self.inner.tools.clone();
        let run = RunInfo::detached();
        for toolset in &self.inner.toolsets {
            let more = toolset.tools(&run).await.map_err(|e| {
                ErrorData::internal_error(format!("toolset `{}`: {}", toolset.name(), e.message), None)
            })?;
            for tool in more {
                if tools.iter().all(|t| t.name() != tool.name()) {
                    tools.push(tool);
                }
            }
        }
        Ok(tools)
    }

    /// Serves over this process's stdin/stdout until the client closes stdin.
    ///
    /// # Errors
    /// [`McpError::Serve`] when the client's first message is not a valid start.
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves over any byte stream pair (a socket, an in-process duplex pipe) until it closes.
    ///
    /// # Errors
    /// [`McpError::Serve`] when the client's first message is not a valid start.
    pub async fn serve_io<R, W>(self, read: R, write: W) -> Result<(), McpError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let running =
            self.serve((read, write)).await.map_err(|e| McpError::Serve(std::io::Error::other(e)))?;
        running.waiting().await.map_err(|e| McpError::Serve(std::io::Error::other(e)))?;
        Ok(())
    }

    /// Serves streamable HTTP on `addr` (port 0 picks a free one) with rmcp's default server
    /// settings: loopback `Host` names only (DNS-rebinding protection), sessions for
    /// 2025-11-25 clients, stateless 2026-07-28. The endpoint is `http://<addr>/mcp` (any
    /// path is served).
    ///
    /// # Errors
    /// [`McpError::Serve`] when the address cannot be bound.
    pub async fn serve_http(self, addr: SocketAddr) -> Result<HttpServerHandle, McpError> {
        self.serve_http_with(addr, StreamableHttpServerConfig::default()).await
    }

    /// As [`serve_http`](Self::serve_http) with rmcp's server settings (allowed hosts for a
    /// public deployment, JSON responses, …). Its cancellation token is replaced by the
    /// handle's.
    ///
    /// # Errors
    /// [`McpError::Serve`] when the address cannot be bound.
    pub async fn serve_http_with(
        self,
        addr: SocketAddr,
        config: StreamableHttpServerConfig,
    ) -> Result<HttpServerHandle, McpError> {
        let listener = TcpListener::bind(addr).await.map_err(McpError::Serve)?;
        let local_addr = listener.local_addr().map_err(McpError::Serve)?;
        let cancel = CancellationToken::new();
        let config = config.with_cancellation_token(cancel.child_token());
        let server = self.clone();
        let service = TowerToHyperService::new(StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        ));
        let stop = cancel.clone();
        let task = tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    () = stop.cancelled() => break,
                    accepted = listener.accept() => accepted,
                };
                let Ok((stream, _)) = accepted else { continue };
                let service = service.clone();
                let stop = stop.clone();
                tokio::spawn(async move {
                    let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                    let conn = builder.serve_connection(TokioIo::new(stream), service);
                    tokio::select! {
                        result = conn => if let Err(e) = result {
                            tracing::debug!(error = %e, "mcp http connection ended with an error");
                        },
                        () = stop.cancelled() => {}
                    }
                });
            }
        });
        Ok(HttpServerHandle { addr: local_addr, cancel, task: Some(task) })
    }

    async fn run_tool(
        &self,
        request: CallToolRequestParams,
        traceparent: Option<&str>,
        as_task: bool,
    ) -> Result<CallToolResponse, ErrorData> {
        let tools = self.tools().await?;
        let Some(tool) = tools.iter().find(|t| t.name() == request.name) else {
            return Err(ErrorData::invalid_params(format!("unknown tool `{}`", request.name), None));
        };
        let input = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let text_error = |text: String| CallToolResult::error(vec![ContentBlock::text(text)]);
        let mut ctx = ToolContext::detached(tool.name());
        if let Some(make) = &self.inner.run_values {
            ctx.run.values = make(traceparent);
        }
        let result = match tool.call(input, ctx).await {
            Ok(ToolResult::Output(output)) => convert::output_to_mcp(output),
            Ok(ToolResult::Background(task)) if as_task => {
                // A task: the client polls `tasks/get`; `tasks/cancel` drops the work.
                let options = TaskOptions::new()
                    .with_poll_interval_ms(TASK_POLL_MS)
                    .with_status_message(task.description);
                let work = task.future;
                let created = self.inner.tasks.spawn(options, move |context| {
                    Box::pin(async move {
                        tokio::select! {
                            output = work => Ok(convert::output_to_mcp(output)),
                            () = context.cancelled() => Err(TaskExit::Cancelled),
                        }
                    })
                });
                return Ok(CallToolResponse::Task(CreateTaskResult::new(created)));
            }
            Ok(ToolResult::Background(task)) => convert::output_to_mcp(task.future.await),
            Ok(ToolResult::Suspend(request)) => {
                text_error(format!("the tool needs input before it can finish: {}", request.prompt))
            }
            Ok(_) => text_error("the tool returned a result this server cannot send".to_owned()),
            Err(e) => text_error(e.message),
        };
        Ok(CallToolResponse::Complete(result))
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tasks().build())
            .with_server_info(Implementation::new(self.inner.name.clone(), self.inner.version.clone()));
        if let Some(instructions) = &self.inner.instructions {
            info = info.with_instructions(instructions.clone());
        }
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.tools().await?.iter().map(|t| tool_to_mcp(t.as_ref())).collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        // Fixed tools only: this is a synchronous lookup (rmcp uses it for input checks).
        self.inner.tools.iter().find(|t| t.name() == name).map(|t| tool_to_mcp(t.as_ref()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let traceparent = request
            .meta
            .as_ref()
            .and_then(|m| m.get_traceparent())
            .or_else(|| context.meta.get_traceparent())
            .map(str::to_owned);
        let as_task = context.client_capabilities().is_some_and(|c| c.supports_tasks());
        self.run_tool(request, traceparent.as_deref(), as_task).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.inner.tasks.get_task(&request.task_id).map(GetTaskResult::new)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.tasks.cancel_task(&request.task_id)
    }
}

/// A dive tool's definition as MCP's: name, description, the schema as given (a
/// non-object schema is wrapped as `{"type": "object"}`), annotations.
fn tool_to_mcp(tool: &dyn Tool) -> rmcp::model::Tool {
    let schema = match tool.input_schema() {
        serde_json::Value::Object(map) => map.clone(),
        _ => serde_json::Map::from_iter([("type".to_owned(), serde_json::Value::String("object".into()))]),
    };
    let mut out = rmcp::model::Tool::new_with_raw(
        tool.name().to_owned(),
        Some(tool.description().to_owned().into()),
        Arc::new(schema),
    );
    if let Some(annotations) = convert::annotations_to_mcp(tool.annotations()) {
        if let Some(title) = &annotations.title {
            out = out.with_title(title.clone());
        }
        out = out.with_annotations(annotations);
    }
    out
}

/// A running streamable HTTP server; dropping it (or [`shutdown`](Self::shutdown)) stops it.
#[derive(Debug)]
pub struct HttpServerHandle {
    addr: SocketAddr,
    cancel: CancellationToken,
    task: Option<JoinHandle<()>>,
}

impl HttpServerHandle {
    /// The bound address.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint URL, `http://<addr>/mcp`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stops accepting, closes the sessions and waits for the accept loop to end.
    pub async fn shutdown(mut self) {
        self.cancel.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for HttpServerHandle {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}
