//! The JSON-RPC 2.0 envelope and the A2A error codes.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A JSON-RPC request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JsonRpcRequest {
    /// Always `2.0`.
    pub jsonrpc: String,
    /// The request id (string or number).
    pub id: Value,
    /// The method (`SendMessage`, `GetTask`, ...).
    pub method: String,
    /// The parameters.
    #[serde(default)]
    pub params: Value,
}

impl JsonRpcRequest {
    /// A request.
    #[must_use]
    pub fn new(id: impl Into<Value>, method: impl Into<String>, params: Value) -> Self {
        Self { jsonrpc: "2.0".into(), id: id.into(), method: method.into(), params }
    }
}

/// A JSON-RPC response: a result or an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JsonRpcResponse {
    /// Always `2.0`.
    pub jsonrpc: String,
    /// The request's id (`null` when it could not be read).
    #[serde(default)]
    pub id: Value,
    /// The result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RpcError>,
}

impl JsonRpcResponse {
    /// A success.
    #[must_use]
    pub fn result(id: Value, result: Value) -> Self {
        Self { jsonrpc: "2.0".into(), id, result: Some(result), error: None }
    }

    /// A failure.
    #[must_use]
    pub fn error(id: Value, error: RpcError) -> Self {
        Self { jsonrpc: "2.0".into(), id, result: None, error: Some(error) }
    }
}

/// The error codes of JSON-RPC and A2A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// -32700: the body is not JSON.
    ParseError,
    /// -32600: not a JSON-RPC request.
    InvalidRequest,
    /// -32601: no such method.
    MethodNotFound,
    /// -32602: the parameters do not fit the method.
    InvalidParams,
    /// -32603: the server failed.
    Internal,
    /// -32001: no such task.
    TaskNotFound,
    /// -32002: the task cannot be cancelled.
    TaskNotCancelable,
    /// -32003: push notifications are not supported.
    PushNotificationNotSupported,
    /// -32004: the operation is not supported.
    UnsupportedOperation,
    /// -32005: a content type is not supported.
    ContentTypeNotSupported,
    /// -32009: the protocol version is not supported.
    VersionNotSupported,
    /// Any other code.
    Other(i64),
}

impl ErrorCode {
    /// The numeric code.
    #[must_use]
    pub fn code(self) -> i64 {
        match self {
            Self::ParseError => -32700,
            Self::InvalidRequest => -32600,
            Self::MethodNotFound => -32601,
            Self::InvalidParams => -32602,
            Self::Internal => -32603,
            Self::TaskNotFound => -32001,
            Self::TaskNotCancelable => -32002,
            Self::PushNotificationNotSupported => -32003,
            Self::UnsupportedOperation => -32004,
            Self::ContentTypeNotSupported => -32005,
            Self::VersionNotSupported => -32009,
            Self::Other(c) => c,
        }
    }

    /// The code for a number.
    #[must_use]
    pub fn from_code(code: i64) -> Self {
        [
            Self::ParseError,
            Self::InvalidRequest,
            Self::MethodNotFound,
            Self::InvalidParams,
            Self::Internal,
            Self::TaskNotFound,
            Self::TaskNotCancelable,
            Self::PushNotificationNotSupported,
            Self::UnsupportedOperation,
            Self::ContentTypeNotSupported,
            Self::VersionNotSupported,
        ]
        .into_iter()
        .find(|c| c.code() == code)
        .unwrap_or(Self::Other(code))
    }

    /// The `google.rpc.ErrorInfo` reason the SDKs attach (`TASK_NOT_FOUND`, ...).
    #[must_use]
    pub fn reason(self) -> Option<&'static str> {
        Some(match self {
            Self::TaskNotFound => "TASK_NOT_FOUND",
            Self::TaskNotCancelable => "TASK_NOT_CANCELABLE",
            Self::PushNotificationNotSupported => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            Self::UnsupportedOperation => "UNSUPPORTED_OPERATION",
            Self::ContentTypeNotSupported => "CONTENT_TYPE_NOT_SUPPORTED",
            Self::VersionNotSupported => "VERSION_NOT_SUPPORTED",
            Self::InvalidParams => "INVALID_PARAMS",
            Self::InvalidRequest => "INVALID_REQUEST",
            Self::MethodNotFound => "METHOD_NOT_FOUND",
            Self::Internal => "INTERNAL_ERROR",
            Self::ParseError | Self::Other(_) => return None,
        })
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RpcError {
    /// The numeric code.
    pub code: i64,
    /// What went wrong.
    #[serde(default)]
    pub message: String,
    /// Details (A2A sends a list of `google.rpc.ErrorInfo` objects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error of this code, with the `ErrorInfo` detail the SDKs send for A2A codes.
    #[must_use]
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        let data = code.reason().filter(|_| (-32099..=-32000).contains(&code.code())).map(|reason| {
            json!([{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": reason,
                "domain": "a2a-protocol.org",
                "metadata": {},
            }])
        });
        Self { code: code.code(), message: message.into(), data }
    }

    /// The code as an [`ErrorCode`].
    #[must_use]
    pub fn kind(&self) -> ErrorCode {
        ErrorCode::from_code(self.code)
    }
}
