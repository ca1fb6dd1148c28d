//! The JSON-RPC binding: one POST endpoint, the A2A 1.0 method names, SSE for the streaming
//! methods. Every bad input is answered with a JSON-RPC error, never a panic.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream, StreamExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::Inner;
use super::tasks::{Event, Started};
use crate::types::{
    CancelTaskRequest, ErrorCode, GetTaskRequest, JsonRpcResponse, ListTasksRequest, RpcError,
    SendMessageRequest, SendMessageResponse, StreamResponse, VERSION_HEADER,
};

/// What a request resolves to: a JSON body or an event stream.
pub(crate) enum Reply {
    /// One JSON-RPC response.
    Json(JsonRpcResponse),
    /// A stream of JSON-RPC responses, one SSE event each.
    Stream(Value, Box<StreamResponse>, Option<broadcast::Receiver<Event>>, bool),
}

/// `POST /`: checks authentication, then handles the request.
pub(crate) async fn endpoint(State(inner): State<Arc<Inner>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Err(refusal) = inner.auth.check(&headers) {
        return refusal;
    }
    let traceparent = headers.get("traceparent").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let version = headers.get(VERSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned);
    match handle(&inner, &body, version.as_deref(), traceparent).await {
        Reply::Json(response) => json_response(StatusCode::OK, &response),
        Reply::Stream(id, first, events, legacy) => sse(Some(id), *first, events, legacy).into_response(),
    }
}

/// Handles one JSON-RPC request body; public to the crate so the bad-input tests can drive it
/// without HTTP.
pub(crate) async fn handle(
    inner: &Inner,
    body: &[u8],
    version: Option<&str>,
    traceparent: Option<String>,
) -> Reply {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return error(Value::Null, ErrorCode::ParseError, format!("Parse error: {e}")),
    };
    let Some(request) = value.as_object() else {
        return error(
            Value::Null,
            ErrorCode::InvalidRequest,
            "Invalid Request: the body must be a JSON-RPC object",
        );
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    if !matches!(id, Value::Null | Value::String(_) | Value::Number(_)) {
        return error(
            Value::Null,
            ErrorCode::InvalidRequest,
            "Invalid Request: id must be a string, a number or null",
        );
    }
    if request.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return error(id, ErrorCode::InvalidRequest, "Invalid Request: jsonrpc must be \"2.0\"");
    }
    let Some(method) = request.get("method").and_then(Value::as_str) else {
        return error(id, ErrorCode::InvalidRequest, "Invalid Request: method must be a string");
    };
    let params = request.get("params").cloned().unwrap_or(Value::Null);
    // A 0.3 method name, when the server speaks 0.3 too: no version header is needed.
    let legacy = inner.v03_compat.then(|| super::compat::method(method)).flatten();
    let (method, params) = match legacy {
        Some(v1) => (v1, super::compat::params_to_v1(params)),
        None => (method, params),
    };
    if !KNOWN.contains(&method) {
        return error(id, ErrorCode::MethodNotFound, "Method not found");
    }
    if legacy.is_none()
        && let Err(e) = check_version(version)
    {
        return Reply::Json(JsonRpcResponse::error(id, e));
    }
    match dispatch(inner, method, params, traceparent).await {
        Ok(Dispatched::Result(result)) if legacy.is_some() => {
            Reply::Json(JsonRpcResponse::result(id, super::compat::result_to_v03(result)))
        }
        Ok(Dispatched::Result(result)) => Reply::Json(JsonRpcResponse::result(id, result)),
        Ok(Dispatched::Stream(first, events)) => Reply::Stream(id, first, events, legacy.is_some()),
        Err(e) => Reply::Json(JsonRpcResponse::error(id, e)),
    }
}

/// Refuses a request without `A2A-Version: 1.x` (no header means 0.3, as the SDKs read it).
pub(crate) fn check_version(version: Option<&str>) -> Result<(), RpcError> {
    let version = version.filter(|v| !v.trim().is_empty()).unwrap_or("0.3");
    if version == "1" || version.starts_with("1.") {
        return Ok(());
    }
    Err(RpcError::new(
        ErrorCode::VersionNotSupported,
        format!("A2A version '{version}' is not supported by this handler. Expected version '1.0'."),
    ))
}

/// The methods this server knows.
const KNOWN: &[&str] = &[
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
];

/// What a method produced.
pub(crate) enum Dispatched {
    /// A result.
    Result(Value),
    /// A stream: its first event and the task's events.
    Stream(Box<StreamResponse>, Option<broadcast::Receiver<Event>>),
}

/// Runs one method.
pub(crate) async fn dispatch(
    inner: &Inner,
    method: &str,
    params: Value,
    traceparent: Option<String>,
) -> Result<Dispatched, RpcError> {
    let tasks = &inner.tasks;
    match method {
        "SendMessage" => {
            let request: SendMessageRequest = parse(params)?;
            let immediately = request.configuration.as_ref().is_some_and(|c| c.return_immediately);
            let history_length = request.configuration.as_ref().and_then(|c| c.history_length);
            let Started { task, mut done, .. } = tasks.send(request.message, traceparent).await?;
            let task = if immediately {
                task
            } else {
                let end = done.wait_for(Option::is_some).await.map(|t| t.clone()).ok().flatten();
                match end {
                    Some(task) => task,
                    None => tasks.get(&task.id, None).await?,
                }
            };
            let mut task = task;
            if let Some(n) = history_length {
                let drop = task.history.len().saturating_sub(usize::try_from(n.max(0)).unwrap_or(0));
                task.history.drain(..drop);
            }
            to_value(&SendMessageResponse::Task(task))
        }
        "SendStreamingMessage" => {
            let request: SendMessageRequest = parse(params)?;
            let Started { task, events, .. } = tasks.send(request.message, traceparent).await?;
            Ok(Dispatched::Stream(Box::new(StreamResponse::Task(task)), Some(events)))
        }
        "GetTask" => {
            let request: GetTaskRequest = parse(params)?;
            to_value(&tasks.get(&request.id, request.history_length).await?)
        }
        "ListTasks" => {
            let request: ListTasksRequest = parse(params)?;
            to_value(&tasks.list(&request).await?)
        }
        "CancelTask" => {
            let request: CancelTaskRequest = parse(params)?;
            to_value(&tasks.cancel(&request.id).await?)
        }
        "SubscribeToTask" => {
            let request: GetTaskRequest = parse(params)?;
            let (task, events) = tasks.subscribe(&request.id).await?;
            Ok(Dispatched::Stream(Box::new(StreamResponse::Task(task)), events))
        }
        "GetExtendedAgentCard" => {
            Err(RpcError::new(ErrorCode::Other(-32007), "Authenticated Extended Card is not configured"))
        }
        _ => Err(RpcError::new(
            ErrorCode::PushNotificationNotSupported,
            "Push notifications are not supported",
        )),
    }
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Dispatched, RpcError> {
    serde_json::to_value(value)
        .map(Dispatched::Result)
        .map_err(|e| RpcError::new(ErrorCode::Internal, format!("could not encode the result: {e}")))
}

fn parse<T: DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params)
        .map_err(|e| RpcError::new(ErrorCode::InvalidParams, format!("Invalid params: {e}")))
}

fn error(id: Value, code: ErrorCode, message: impl Into<String>) -> Reply {
    Reply::Json(JsonRpcResponse::error(id, RpcError::new(code, message)))
}

/// The SSE body: the first event, then the task's events up to its final status update;
/// each in a JSON-RPC response with `id` (JSON-RPC binding) or bare (HTTP+JSON binding).
pub(crate) fn sse(
    id: Option<Value>,
    first: StreamResponse,
    events: Option<broadcast::Receiver<Event>>,
    legacy: bool,
) -> Sse<impl Stream<Item = Result<SseEvent, std::convert::Infallible>>> {
    let head = stream::once({
        let item = encode(&id, &first, legacy);
        async move { item }
    });
    let tail = stream::unfold((events, false), |(events, finished)| async move {
        let mut receiver = events.filter(|_| !finished)?;
        loop {
            match receiver.recv().await {
                Ok(event) => return Some((event.response, (Some(receiver), event.last))),
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    })
    .map(move |response| encode(&id, &response, legacy));
    // Comment lines every 15 s keep proxies from closing a quiet stream; clients skip them.
    Sse::new(head.chain(tail)).keep_alive(axum::response::sse::KeepAlive::default())
}

/// One SSE event: a JSON-RPC response holding `response`.
fn encode(
    id: &Option<Value>,
    response: &StreamResponse,
    legacy: bool,
) -> Result<SseEvent, std::convert::Infallible> {
    let value = match serde_json::to_value(response) {
        Ok(v) if legacy => Ok(super::compat::event_to_v03(v)),
        other => other,
    };
    let text = match (id, value) {
        (Some(id), Ok(result)) => serde_json::to_string(&JsonRpcResponse::result(id.clone(), result)),
        (Some(id), Err(e)) => serde_json::to_string(&JsonRpcResponse::error(
            id.clone(),
            RpcError::new(ErrorCode::Internal, e.to_string()),
        )),
        (None, Ok(value)) => serde_json::to_string(&value),
        (None, Err(e)) => {
            Ok(json!({"error": {"code": 500, "status": "INTERNAL", "message": e.to_string()}}).to_string())
        }
    };
    Ok(SseEvent::default().data(text.unwrap_or_default()))
}

/// The answer to a request that failed authentication.
pub(crate) fn unauthorized(message: &str) -> Response {
    let body = serde_json::json!({ "error": message });
    json_response(StatusCode::UNAUTHORIZED, &body)
}

/// A JSON body (axum's `Json` needs a feature that pulls in more than this takes).
pub(crate) fn json_response<T: serde::Serialize>(status: StatusCode, body: &T) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => (status, [(http::header::CONTENT_TYPE, "application/json")], bytes).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}
