//! The HTTP+JSON (REST) binding under `/rest`: `POST /message:send`, `POST /message:stream`,
//! `GET /tasks`, `GET /tasks/{id}`, `POST /tasks/{id}:cancel`, `GET|POST /tasks/{id}:subscribe`,
//! the same methods as the JSON-RPC binding, with errors as `google.rpc.Status` bodies.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::Inner;
use super::jsonrpc::{Dispatched, check_version, dispatch, json_response, sse};
use crate::types::{ErrorCode, RpcError, VERSION_HEADER};

/// `POST /rest/message:send` and `POST /rest/message:stream`.
pub(crate) async fn message(
    State(inner): State<Arc<Inner>>,
    Path(action): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let method = match action.as_str() {
        "message:send" => "SendMessage",
        "message:stream" => "SendStreamingMessage",
        _ => return status(&RpcError::new(ErrorCode::MethodNotFound, "Method not found")),
    };
    let params = match serde_json::from_slice::<Value>(&body) {
        Ok(v) if v.is_object() => v,
        Ok(_) => return status(&RpcError::new(ErrorCode::InvalidParams, "the body must be a JSON object")),
        Err(e) => return status(&RpcError::new(ErrorCode::ParseError, format!("the body is not JSON: {e}"))),
    };
    run(&inner, &headers, method, params).await
}

/// `GET /rest/tasks`.
pub(crate) async fn list(
    State(inner): State<Arc<Inner>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    run(&inner, &headers, "ListTasks", Value::Object(query_params(query))).await
}

/// `GET /rest/tasks/{id}`, `POST /rest/tasks/{id}:cancel`, `GET|POST /rest/tasks/{id}:subscribe`.
pub(crate) async fn task(
    State(inner): State<Arc<Inner>>,
    method: Method,
    Path(target): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    let (id, action) = match target.rsplit_once(':') {
        Some((id, action)) => (id.to_owned(), Some(action)),
        None => (target.clone(), None),
    };
    let mut params = query_params(query);
    if method == Method::POST && !body.is_empty() {
        match serde_json::from_slice::<Value>(&body) {
            Ok(Value::Object(map)) => params.extend(map),
            Ok(_) => {
                return status(&RpcError::new(ErrorCode::InvalidParams, "the body must be a JSON object"));
            }
            Err(e) => {
                return status(&RpcError::new(ErrorCode::ParseError, format!("the body is not JSON: {e}")));
            }
        }
    }
    params.insert("id".into(), Value::String(id));
    let rpc = match (&method, action) {
        (&Method::GET, None) => "GetTask",
        (&Method::POST, Some("cancel")) => "CancelTask",
        (&Method::GET | &Method::POST, Some("subscribe")) => "SubscribeToTask",
        _ => return status(&RpcError::new(ErrorCode::MethodNotFound, "Method not found")),
    };
    run(&inner, &headers, rpc, Value::Object(params)).await
}

async fn run(inner: &Inner, headers: &HeaderMap, method: &str, params: Value) -> Response {
    if let Err(refusal) = inner.auth.check(headers) {
        return refusal;
    }
    if let Err(e) = check_version(headers.get(VERSION_HEADER).and_then(|v| v.to_str().ok())) {
        return status(&e);
    }
    let traceparent = headers.get("traceparent").and_then(|v| v.to_str().ok()).map(str::to_owned);
    match dispatch(inner, method, params, traceparent).await {
        Ok(Dispatched::Result(value)) => json_response(StatusCode::OK, &value),
        Ok(Dispatched::Stream(first, events)) => sse(None, *first, events, false).into_response(),
        Err(e) => status(&e),
    }
}

/// Query parameters as the request's JSON: numbers and booleans where the fields are.
fn query_params(query: Option<String>) -> Map<String, Value> {
    url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .map(|(key, value)| {
            let typed = match key.as_str() {
                "pageSize" | "historyLength" => {
                    value.parse::<i64>().map(Value::from).unwrap_or(Value::String(value))
                }
                "includeArtifacts" => match value.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => Value::String(value),
                },
                _ => Value::String(value),
            };
            (key, typed)
        })
        .collect()
}

/// An error as the SDKs' REST binding writes it: `{"error": {code, status, message, details}}`.
pub(crate) fn status(error: &RpcError) -> Response {
    let (http, name) = match error.kind() {
        ErrorCode::TaskNotFound | ErrorCode::MethodNotFound => (StatusCode::NOT_FOUND, "NOT_FOUND"),
        ErrorCode::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL"),
        ErrorCode::InvalidParams
        | ErrorCode::InvalidRequest
        | ErrorCode::ParseError
        | ErrorCode::ContentTypeNotSupported => (StatusCode::BAD_REQUEST, "INVALID_ARGUMENT"),
        _ => (StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
    };
    let details = error.data.clone().unwrap_or_else(|| match error.kind().reason() {
        Some(reason) => json!([{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": reason,
            "domain": "a2a-protocol.org",
            "metadata": {},
        }]),
        None => json!([]),
    });
    let body = json!({"error": {"code": http.as_u16(), "status": name, "message": error.message, "details": details}});
    json_response(http, &body)
}
