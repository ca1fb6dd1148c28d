//! [`RemoteAgent`]: a client of a remote A2A 1.0 agent over the JSON-RPC binding.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use dive_core::{BoxStream, Secret};
use futures_util::StreamExt;
use http::{HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ClientError;
use crate::types::{
    AGENT_CARD_PATH, AgentCard, CancelTaskRequest, GetTaskRequest, JsonRpcRequest, JsonRpcResponse,
    ListTasksRequest, ListTasksResponse, Message, PROTOCOL_VERSION, SendMessageRequest, SendMessageResponse,
    StreamResponse, Task, TaskState, VERSION_HEADER,
};

/// What a remote task came to.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskResult {
    /// The task id (empty when the agent answered with a message and no task).
    pub id: String,
    /// The context id.
    pub context_id: String,
    /// The state.
    pub state: TaskState,
    /// The answer: the artifacts' text, else the status message's (a question when input
    /// is required).
    pub text: String,
    /// The whole task, when there is one.
    pub task: Option<Task>,
}

impl TaskResult {
    fn from_response(response: SendMessageResponse) -> Self {
        match response {
            SendMessageResponse::Task(task) => Self {
                id: task.id.clone(),
                context_id: task.context_id.clone(),
                state: task.status.state.clone(),
                text: task.text(),
                task: Some(task),
            },
            SendMessageResponse::Message(message) => Self {
                id: message.task_id.clone().unwrap_or_default(),
                context_id: message.context_id.clone().unwrap_or_default(),
                state: TaskState::Completed,
                text: message.text(),
                task: None,
            },
        }
    }

    /// The task completed.
    #[must_use]
    pub fn is_completed(&self) -> bool {
        self.state == TaskState::Completed
    }

    /// The task waits for input (answer with [`RemoteAgent::send_text_on_task`]).
    #[must_use]
    pub fn is_input_required(&self) -> bool {
        self.state.is_interrupted()
    }

    /// The task failed.
    #[must_use]
    pub fn is_failed(&self) -> bool {
        self.state == TaskState::Failed
    }

    /// The task was cancelled.
    #[must_use]
    pub fn is_canceled(&self) -> bool {
        self.state == TaskState::Canceled
    }
}

/// A remote A2A agent.
///
/// ```no_run
/// # async fn demo() -> Result<(), dive_a2a::ClientError> {
/// let agent = dive_a2a::RemoteAgent::from_url("http://127.0.0.1:9999").await?;
/// let result = agent.send_text("What is A2A?").await?;
/// println!("{:?}: {}", result.state, result.text);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RemoteAgent {
    http: reqwest::Client,
    card: AgentCard,
    endpoint: String,
    headers: HeaderMap,
    next_id: AtomicU64,
    context_id: Mutex<Option<String>>,
    last_task: Mutex<Option<String>>,
}

fn client() -> Result<reqwest::Client, ClientError> {
    dive_provider::HttpOptions::default()
        .build_client()
        .map_err(|e| ClientError::Config(format!("cannot build the HTTP client: {e}")))
}

fn http_error(url: &str) -> impl FnOnce(reqwest::Error) -> ClientError + '_ {
    move |source| ClientError::Http { url: url.to_owned(), source }
}

impl RemoteAgent {
    /// Fetches the card at `base_url` + `/.well-known/agent-card.json` and connects to its
    /// JSON-RPC interface.
    ///
    /// # Errors
    /// [`ClientError::Http`]/[`ClientError::Status`] when the card cannot be fetched,
    /// [`ClientError::Protocol`] when it is not a card, [`ClientError::NoInterface`] when it
    /// offers no JSON-RPC 1.0 interface.
    pub async fn from_url(base_url: &str) -> Result<Self, ClientError> {
        let http = client()?;
        let url = format!("{}{AGENT_CARD_PATH}", base_url.trim_end_matches('/'));
        let response = http.get(&url).send().await.map_err(http_error(&url))?;
        let response = check_status(&url, response).await?;
        let bytes = response.bytes().await.map_err(http_error(&url))?;
        let card: AgentCard = serde_json::from_slice(&bytes)
            .map_err(|e| ClientError::Protocol(format!("the agent card at {url} is not valid: {e}")))?;
        Self::with_client(card, http)
    }

    /// Connects to the JSON-RPC interface of `card`.
    ///
    /// # Errors
    /// [`ClientError::NoInterface`] when it offers none; [`ClientError::Config`] when the
    /// HTTP client cannot be built.
    pub fn from_card(card: AgentCard) -> Result<Self, ClientError> {
        Self::with_client(card, client()?)
    }

    /// Like [`from_card`](Self::from_card) on an HTTP client of your own.
    ///
    /// # Errors
    /// [`ClientError::NoInterface`] when the card offers no JSON-RPC 1.0 interface.
    pub fn with_client(card: AgentCard, http: reqwest::Client) -> Result<Self, ClientError> {
        let endpoint = card
            .jsonrpc_interface()
            .map(|i| i.url.clone())
            .ok_or_else(|| ClientError::NoInterface(card.name.clone()))?;
        let mut headers = HeaderMap::new();
        headers.insert(VERSION_HEADER, HeaderValue::from_static(PROTOCOL_VERSION));
        Ok(Self {
            http,
            card,
            endpoint,
            headers,
            next_id: AtomicU64::new(1),
            context_id: Mutex::new(None),
            last_task: Mutex::new(None),
        })
    }

    /// Sends this header on every call (marked sensitive, never logged).
    ///
    /// # Errors
    /// [`ClientError::Config`] when the name or value is not a valid header.
    pub fn with_header(mut self, name: &str, value: &Secret) -> Result<Self, ClientError> {
        let header = HeaderName::try_from(name)
            .map_err(|e| ClientError::Config(format!("header `{name}` is not a valid name: {e}")))?;
        let mut value = HeaderValue::try_from(value.expose()).map_err(|_| {
            ClientError::Config(format!("the value of header `{name}` is not a valid header value"))
        })?;
        value.set_sensitive(true);
        self.headers.insert(header, value);
        Ok(self)
    }

    /// Sends `Authorization: Bearer <token>`.
    ///
    /// # Errors
    /// [`ClientError::Config`] when the token is not a valid header value.
    pub fn with_bearer_token(self, token: &Secret) -> Result<Self, ClientError> {
        self.with_header("authorization", &Secret::new(format!("Bearer {}", token.expose())))
    }

    /// Sends a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`) on every call, so the
    /// remote agent's work joins the caller's trace.
    ///
    /// # Errors
    /// [`ClientError::Config`] when it is not a valid header value.
    pub fn with_traceparent(mut self, traceparent: &str) -> Result<Self, ClientError> {
        let value = HeaderValue::try_from(traceparent)
            .map_err(|_| ClientError::Config("traceparent is not a valid header value".into()))?;
        self.headers.insert("traceparent", value);
        Ok(self)
    }

    /// The card.
    #[must_use]
    pub fn card(&self) -> &AgentCard {
        &self.card
    }

    /// The context of the conversation so far (set by the first answer, sent on every text
    /// message after it).
    #[must_use]
    pub fn context_id(&self) -> Option<String> {
        self.context_id.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The id of the last task an answer named.
    #[must_use]
    pub fn last_task_id(&self) -> Option<String> {
        self.last_task.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Sends a text message in the tracked context and waits for the task to end or to need
    /// input.
    ///
    /// # Errors
    /// Any [`ClientError`].
    pub async fn send_text(&self, text: &str) -> Result<TaskResult, ClientError> {
        self.send_text_in(text, None, None).await
    }

    /// [`send_text`](Self::send_text) or, with a task id, [`send_text_on_task`](Self::send_text_on_task),
    /// with this call's own `traceparent` (the tool's, for a remote agent used as a tool).
    pub(crate) async fn send_text_in(
        &self,
        text: &str,
        task_id: Option<&str>,
        traceparent: Option<&str>,
    ) -> Result<TaskResult, ClientError> {
        let mut message = Message::user_text(text);
        match task_id {
            Some(task) => message.task_id = Some(task.to_owned()),
            None => message.context_id = self.context_id(),
        }
        self.send_and_track(message, traceparent).await
    }

    /// Answers a task that waits for input with text (or resumes it in any other way the
    /// remote agent accepts text).
    ///
    /// # Errors
    /// Any [`ClientError`].
    pub async fn send_text_on_task(&self, task_id: &str, text: &str) -> Result<TaskResult, ClientError> {
        self.send_text_in(text, Some(task_id), None).await
    }

    async fn send_and_track(
        &self,
        message: Message,
        traceparent: Option<&str>,
    ) -> Result<TaskResult, ClientError> {
        let request = SendMessageRequest::new(message);
        let result = TaskResult::from_response(self.call_with("SendMessage", &request, traceparent).await?);
        if !result.context_id.is_empty() {
            *self.context_id.lock().unwrap_or_else(PoisonError::into_inner) = Some(result.context_id.clone());
        }
        if !result.id.is_empty() {
            *self.last_task.lock().unwrap_or_else(PoisonError::into_inner) = Some(result.id.clone());
        }
        Ok(result)
    }

    /// `SendMessage`.
    ///
    /// # Errors
    /// Any [`ClientError`].
    pub async fn send(&self, request: SendMessageRequest) -> Result<SendMessageResponse, ClientError> {
        self.call("SendMessage", &request).await
    }

    /// `SendStreamingMessage`: the task's events as they happen, up to its final status.
    ///
    /// # Errors
    /// Any [`ClientError`], before the first event or as an item of the stream.
    pub async fn stream(
        &self,
        request: SendMessageRequest,
    ) -> Result<BoxStream<Result<StreamResponse, ClientError>>, ClientError> {
        self.call_stream("SendStreamingMessage", &request).await
    }

    /// `SubscribeToTask`: the events of a running task.
    ///
    /// # Errors
    /// Any [`ClientError`].
    pub async fn subscribe(
        &self,
        task_id: &str,
    ) -> Result<BoxStream<Result<StreamResponse, ClientError>>, ClientError> {
        self.call_stream("SubscribeToTask", &GetTaskRequest::new(task_id)).await
    }

    /// `GetTask`.
    ///
    /// # Errors
    /// Any [`ClientError`]; a task the agent does not have is [`ClientError::Rpc`] with
    /// code `TaskNotFound`.
    pub async fn get_task(&self, task_id: &str) -> Result<Task, ClientError> {
        self.call("GetTask", &GetTaskRequest::new(task_id)).await
    }

    /// `ListTasks`.
    ///
    /// # Errors
    /// Any [`ClientError`].
    pub async fn list_tasks(&self, request: &ListTasksRequest) -> Result<ListTasksResponse, ClientError> {
        self.call("ListTasks", request).await
    }

    /// `CancelTask`.
    ///
    /// # Errors
    /// Any [`ClientError`]; a finished task is [`ClientError::Rpc`] with code
    /// `TaskNotCancelable`.
    pub async fn cancel_task(&self, task_id: &str) -> Result<Task, ClientError> {
        self.call("CancelTask", &CancelTaskRequest::new(task_id)).await
    }

    fn request<P: Serialize>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<reqwest::RequestBuilder, ClientError> {
        let params = serde_json::to_value(params)
            .map_err(|e| ClientError::Config(format!("cannot encode the {method} parameters: {e}")))?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = JsonRpcRequest::new(id, method, params);
        Ok(self.http.post(&self.endpoint).headers(self.headers.clone()).json(&body))
    }

    async fn call<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, ClientError> {
        self.call_with(method, params, None).await
    }

    async fn call_with<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
        traceparent: Option<&str>,
    ) -> Result<R, ClientError> {
        let mut request = self.request(method, params)?;
        if let Some(tp) = traceparent.and_then(|tp| HeaderValue::try_from(tp).ok()) {
            request = request.header("traceparent", tp);
        }
        let response = request.send().await.map_err(http_error(&self.endpoint))?;
        let response = check_status(&self.endpoint, response).await?;
        let bytes = response.bytes().await.map_err(http_error(&self.endpoint))?;
        decode(&bytes)
    }

    async fn call_stream<P: Serialize>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<BoxStream<Result<StreamResponse, ClientError>>, ClientError> {
        let request = self.request(method, params)?.header(http::header::ACCEPT, "text/event-stream");
        let response = request.send().await.map_err(http_error(&self.endpoint))?;
        let response = check_status(&self.endpoint, response).await?;
        let is_sse = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_sse {
            // An error before the stream began comes as one JSON-RPC response.
            let bytes = response.bytes().await.map_err(http_error(&self.endpoint))?;
            let first: Result<StreamResponse, ClientError> = decode(&bytes);
            return Ok(futures_util::stream::once(async move { first }).boxed());
        }
        let events = dive_provider::response_sse("a2a", response).filter_map(|event| async move {
            match event {
                Ok(event) if event.data.is_empty() => None,
                Ok(event) => Some(decode::<StreamResponse>(&event.data)),
                Err(e) => Some(Err(ClientError::Protocol(format!("the event stream broke: {e}")))),
            }
        });
        Ok(events.boxed())
    }
}

fn decode<R: DeserializeOwned>(bytes: &[u8]) -> Result<R, ClientError> {
    let envelope: JsonRpcResponse = serde_json::from_slice(bytes)
        .map_err(|e| ClientError::Protocol(format!("not a JSON-RPC response: {e}")))?;
    if let Some(error) = envelope.error {
        return Err(ClientError::Rpc(error));
    }
    let result = envelope.result.unwrap_or(Value::Null);
    serde_json::from_value(result).map_err(|e| ClientError::Protocol(format!("unexpected result: {e}")))
}

async fn check_status(url: &str, response: reqwest::Response) -> Result<reqwest::Response, ClientError> {
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let body = response.text().await.unwrap_or_default();
    Err(ClientError::Status {
        url: url.to_owned(),
        status: status.as_u16(),
        body: body.chars().take(500).collect(),
    })
}
