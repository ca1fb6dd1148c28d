//! [`A2aServer`]: an [`Agent`] served over A2A 1.0 (JSON-RPC and HTTP+JSON bindings, SSE streaming), its
//! tasks kept in a session store.

mod auth;
mod card;
mod compat;
pub(crate) mod jsonrpc;
mod outcome;
mod rest;
mod tasks;

use std::net::SocketAddr;
use std::sync::{Arc, PoisonError, RwLock};

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use dive_agent::{Agent, CancellationToken};
use dive_core::{Secret, SessionStore};
use tokio::net::TcpListener;
use tracing::Instrument;

pub use auth::{Auth, AuthCheck};
pub use outcome::{ANSWER_ARTIFACT, SUSPENSION_KEY};
pub use tasks::RunValues;

use crate::error::ServerError;
use crate::store::TaskStore;
use crate::types::{AGENT_CARD_PATH, AgentCard, AgentInterface};

/// The largest request body accepted by default (1 MiB).
pub const DEFAULT_BODY_LIMIT: usize = 1024 * 1024;

/// What the handlers share.
pub(crate) struct Inner {
    pub(crate) tasks: tasks::Tasks,
    pub(crate) auth: Auth,
    /// Also answer the 0.3 method names.
    pub(crate) v03_compat: bool,
    card: RwLock<AgentCard>,
}

/// An [`Agent`] served over A2A 1.0.
///
/// Each task runs the agent on its own session of the store (the session id is the task id),
/// and the task record lives in that session's metadata, so a server restarted on the same
/// store answers `GetTask` and `ListTasks` for every task it ever had. A turn that suspends
/// makes the task `input-required` (or `auth-required`); a new message on the task resumes
/// it: a data part `{"toolResults": {"<call id>": "<answer>"}}`, or text given to every
/// pending call.
///
/// ```no_run
/// # async fn demo(agent: dive_agent::Agent) -> Result<(), dive_a2a::ServerError> {
/// use std::sync::Arc;
/// let store = Arc::new(dive_session::MemoryStore::new());
/// let server = dive_a2a::A2aServer::builder(Arc::new(agent)).store(store).build()?;
/// let running = server.bind("127.0.0.1:0").await?;
/// println!("serving {}", running.url());
/// running.shutdown().await;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct A2aServer {
    inner: Arc<Inner>,
    body_limit: usize,
    interface_given: bool,
}

impl std::fmt::Debug for A2aServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aServer")
            .field("auth", &self.inner.auth)
            .field("body_limit", &self.body_limit)
            .finish()
    }
}

/// Builds an [`A2aServer`].
#[must_use]
pub struct A2aServerBuilder {
    agent: Arc<Agent>,
    store: Option<Arc<dyn SessionStore>>,
    card: Option<AgentCard>,
    url: Option<String>,
    auth: Auth,
    body_limit: usize,
    v03_compat: bool,
    run_values: Option<RunValues>,
}

impl std::fmt::Debug for A2aServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2aServerBuilder")
            .field("url", &self.url)
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

impl A2aServerBuilder {
    /// Where tasks are kept (required): `MemoryStore`, `FileStore` or `SqliteStore` of
    /// `dive-session`, or any store whose sessions offer the history interface. Give the
    /// server a store of its own: it lists every session that holds a task.
    pub fn store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// A card of your own instead of the computed one (name, description and version from
    /// the agent, one skill per tool). Its interfaces, when empty, get the server's URL.
    pub fn card(mut self, card: AgentCard) -> Self {
        self.card = Some(card);
        self
    }

    /// The public URL the card announces (default: `http://<bound address>/`).
    pub fn url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    /// Requires `Authorization: Bearer <token>` (announced on the card).
    pub fn bearer_token(mut self, token: Secret) -> Self {
        self.auth = Auth::Bearer(token);
        self
    }

    /// Requires the key in this header (announced on the card).
    pub fn api_key(mut self, header: impl Into<String>, key: Secret) -> Self {
        self.auth = Auth::ApiKey { header: header.into(), key };
        self
    }

    /// Any authentication of your own.
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth = auth;
        self
    }

    /// The largest request body (default [`DEFAULT_BODY_LIMIT`]); a larger one is refused
    /// with HTTP 413.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Also answers the A2A 0.3 method names on the JSON-RPC endpoint (`message/send`,
    /// `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`) in 0.3's shapes,
    /// without the version header, and lists a 0.3 JSON-RPC interface on the computed card.
    /// Off by default.
    pub fn v03_compat(mut self, on: bool) -> Self {
        self.v03_compat = on;
        self
    }

    /// Builds each task run's values from the request's W3C `traceparent` (see
    /// [`RunValues`]), so a tracer can continue the caller's trace.
    pub fn run_values(mut self, make: RunValues) -> Self {
        self.run_values = Some(make);
        self
    }

    /// The server.
    ///
    /// # Errors
    /// [`ServerError::Config`] without a store, or with a store that cannot keep metadata.
    pub fn build(self) -> Result<A2aServer, ServerError> {
        let store = self.store.ok_or_else(|| {
            ServerError::Config("no task store: call .store(...) with a session store".into())
        })?;
        let store = TaskStore::new(store).map_err(ServerError::Config)?;
        let mut card = self.card.unwrap_or_else(|| card::from_agent(&self.agent));
        let interface_given = !card.supported_interfaces.is_empty() || self.url.is_some();
        if let Some(url) = &self.url
            && card.supported_interfaces.is_empty()
        {
            card.supported_interfaces = interfaces(url, self.v03_compat);
        }
        self.auth.describe(&mut card);
        let inner = Inner {
            tasks: tasks::Tasks::new(self.agent, store, self.run_values),
            auth: self.auth,
            v03_compat: self.v03_compat,
            card: RwLock::new(card),
        };
        Ok(A2aServer { inner: Arc::new(inner), body_limit: self.body_limit, interface_given })
    }
}

impl A2aServer {
    /// A builder for a server of this agent.
    pub fn builder(agent: Arc<Agent>) -> A2aServerBuilder {
        A2aServerBuilder {
            agent,
            store: None,
            card: None,
            url: None,
            auth: Auth::None,
            body_limit: DEFAULT_BODY_LIMIT,
            v03_compat: false,
            run_values: None,
        }
    }

    /// The card as served.
    #[must_use]
    pub fn card(&self) -> AgentCard {
        self.inner.card.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The routes (`GET /.well-known/agent-card.json`, the JSON-RPC binding at `POST /`, the
    /// HTTP+JSON binding under `/rest`), to mount in an axum app of
    /// your own. Call [`recover`](Self::recover) once before serving them.
    pub fn router(&self) -> Router {
        Router::new()
            .route(AGENT_CARD_PATH, get(serve_card))
            .route("/", post(jsonrpc::endpoint))
            .route("/rest/{action}", post(rest::message))
            .route("/rest/tasks", get(rest::list))
            .route("/rest/tasks/{target}", get(rest::task).post(rest::task))
            .layer(DefaultBodyLimit::max(self.body_limit))
            .layer(middleware::from_fn(echo_traceparent))
            .with_state(self.inner.clone())
    }

    /// Marks tasks the store holds as submitted or working, that no run of this server
    /// holds, as `failed` (a server stopped while they ran); returns how many. [`bind`]
    /// calls it.
    ///
    /// [`bind`]: Self::bind
    ///
    /// # Errors
    /// [`ServerError::Store`] when the store fails.
    pub async fn recover(&self) -> Result<usize, ServerError> {
        Ok(self.inner.tasks.recover().await?)
    }

    /// Recovers interrupted tasks, binds `addr` (`127.0.0.1:0` for any free port) and serves
    /// until [`RunningServer::shutdown`].
    ///
    /// # Errors
    /// [`ServerError::Bind`] when the address cannot be bound, [`ServerError::Store`] when
    /// the store fails.
    pub async fn bind(self, addr: &str) -> Result<RunningServer, ServerError> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServerError::Bind { addr: addr.to_owned(), source })?;
        self.serve(listener).await
    }

    /// Like [`bind`](Self::bind) on a listener of your own.
    ///
    /// # Errors
    /// [`ServerError::Bind`] when the listener has no address, [`ServerError::Store`] when
    /// the store fails.
    pub async fn serve(self, listener: TcpListener) -> Result<RunningServer, ServerError> {
        let addr = listener
            .local_addr()
            .map_err(|source| ServerError::Bind { addr: "the given listener".into(), source })?;
        if !self.interface_given {
            let mut card = self.inner.card.write().unwrap_or_else(PoisonError::into_inner);
            card.supported_interfaces = interfaces(&format!("http://{addr}/"), self.inner.v03_compat);
        }
        self.recover().await?;
        let stop = CancellationToken::new();
        let router = self.router();
        let signal = stop.clone();
        let task = tokio::spawn(async move {
            let served = axum::serve(listener, router).with_graceful_shutdown(signal.cancelled_owned()).await;
            if let Err(e) = served {
                tracing::error!(error = %e, "the A2A server stopped");
            }
        });
        Ok(RunningServer { addr, stop, task })
    }
}

/// A server accepting requests.
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl RunningServer {
    /// The bound address.
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL (`http://127.0.0.1:PORT`), where the card and the endpoint are.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting requests and waits for open ones (streams included) to end.
    pub async fn shutdown(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }
}

/// The interfaces at `base`: JSON-RPC 1.0, HTTP+JSON 1.0 under `/rest`, and JSON-RPC 0.3 when
/// the 0.3 names are answered too.
fn interfaces(base: &str, v03: bool) -> Vec<AgentInterface> {
    let mut all = vec![
        AgentInterface::jsonrpc(base),
        AgentInterface::http_json(format!("{}/rest", base.trim_end_matches('/'))),
    ];
    if v03 {
        let mut legacy = AgentInterface::jsonrpc(base);
        legacy.protocol_version = "0.3".into();
        all.push(legacy);
    }
    all
}

async fn serve_card(State(inner): State<Arc<Inner>>) -> Response {
    let card = inner.card.read().unwrap_or_else(PoisonError::into_inner).clone();
    jsonrpc::json_response(axum::http::StatusCode::OK, &card)
}

/// Answers with the request's W3C `traceparent`, so a caller can tie the two ends together.
async fn echo_traceparent(request: Request, next: Next) -> Response {
    let traceparent = request.headers().get("traceparent").cloned();
    let span =
        tracing::debug_span!("a2a_request", traceparent = traceparent.as_ref().and_then(|v| v.to_str().ok()));
    let mut response = next.run(request).instrument(span).await;
    if let Some(value) = traceparent {
        response.headers_mut().insert("traceparent", value);
    }
    response
}
