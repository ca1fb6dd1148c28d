//! The A2A 0.3 JSON-RPC method names, opt-in (`A2aServerBuilder::v03_compat`): a 0.3 request
//! (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`) is
//! translated to its 1.0 method, and the answer back to 0.3's shapes (`kind` discriminators,
//! lowercase roles and states, `file` parts, `final` on status updates).

use serde_json::{Map, Value, json};

/// The 1.0 method for a 0.3 one.
pub(crate) fn method(v03: &str) -> Option<&'static str> {
    Some(match v03 {
        "message/send" => "SendMessage",
        "message/stream" => "SendStreamingMessage",
        "tasks/get" => "GetTask",
        "tasks/cancel" => "CancelTask",
        "tasks/resubscribe" => "SubscribeToTask",
        _ => return None,
    })
}

/// 0.3 parameters as 1.0 ones.
pub(crate) fn params_to_v1(mut params: Value) -> Value {
    if let Some(obj) = params.as_object_mut() {
        if let Some(message) = obj.get_mut("message") {
            message_to_v1(message);
        }
        if let Some(Value::Object(config)) = obj.get_mut("configuration") {
            if config.remove("blocking") == Some(Value::Bool(false)) {
                config.insert("returnImmediately".into(), Value::Bool(true));
            }
            config.remove("pushNotificationConfig");
        }
    }
    params
}

fn message_to_v1(message: &mut Value) {
    let Some(obj) = message.as_object_mut() else { return };
    obj.remove("kind");
    if let Some(role) = obj.get_mut("role") {
        *role = json!(match role.as_str() {
            Some("user") => "ROLE_USER",
            Some("agent") => "ROLE_AGENT",
            _ => "ROLE_UNSPECIFIED",
        });
    }
    if let Some(Value::Array(parts)) = obj.get_mut("parts") {
        for part in parts {
            part_to_v1(part);
        }
    }
}

fn part_to_v1(part: &mut Value) {
    let Some(obj) = part.as_object_mut() else { return };
    let kind = obj.remove("kind");
    if kind.as_ref().and_then(Value::as_str) == Some("file")
        && let Some(Value::Object(file)) = obj.remove("file")
    {
        for (from, to) in [("uri", "url"), ("bytes", "raw"), ("mimeType", "mediaType"), ("name", "filename")]
        {
            if let Some(v) = file.get(from) {
                obj.insert(to.into(), v.clone());
            }
        }
    }
}

/// A 1.0 `SendMessage`/`GetTask`/`CancelTask` result in 0.3's shape.
pub(crate) fn result_to_v03(result: Value) -> Value {
    match result {
        Value::Object(mut obj) if obj.len() == 1 && obj.contains_key("task") => {
            task_to_v03(obj.remove("task").unwrap_or_default())
        }
        Value::Object(mut obj) if obj.len() == 1 && obj.contains_key("message") => {
            message_to_v03(obj.remove("message").unwrap_or_default())
        }
        Value::Object(obj) if obj.contains_key("status") => task_to_v03(Value::Object(obj)),
        other => other,
    }
}

/// A 1.0 stream event in 0.3's shape.
pub(crate) fn event_to_v03(event: Value) -> Value {
    let Value::Object(mut obj) = event else { return event };
    if let Some(update) = obj.remove("statusUpdate") {
        let mut update = update.as_object().cloned().unwrap_or_default();
        let state = update.get("status").and_then(|s| s.get("state")).and_then(Value::as_str).unwrap_or("");
        let last = matches!(
            state,
            "TASK_STATE_COMPLETED"
                | "TASK_STATE_FAILED"
                | "TASK_STATE_CANCELED"
                | "TASK_STATE_REJECTED"
                | "TASK_STATE_INPUT_REQUIRED"
                | "TASK_STATE_AUTH_REQUIRED"
        );
        if let Some(status) = update.remove("status") {
            update.insert("status".into(), status_to_v03(status));
        }
        update.insert("kind".into(), json!("status-update"));
        update.insert("final".into(), json!(last));
        return Value::Object(update);
    }
    if let Some(update) = obj.remove("artifactUpdate") {
        let mut update = update.as_object().cloned().unwrap_or_default();
        if let Some(artifact) = update.remove("artifact") {
            update.insert("artifact".into(), artifact_to_v03(artifact));
        }
        update.insert("kind".into(), json!("artifact-update"));
        update.entry("append").or_insert(json!(false));
        update.entry("lastChunk").or_insert(json!(false));
        return Value::Object(update);
    }
    result_to_v03(Value::Object(obj))
}

fn task_to_v03(task: Value) -> Value {
    let Value::Object(mut obj) = task else { return task };
    if let Some(status) = obj.remove("status") {
        obj.insert("status".into(), status_to_v03(status));
    }
    if let Some(Value::Array(history)) = obj.remove("history") {
        obj.insert("history".into(), Value::Array(history.into_iter().map(message_to_v03).collect()));
    }
    if let Some(Value::Array(artifacts)) = obj.remove("artifacts") {
        obj.insert("artifacts".into(), Value::Array(artifacts.into_iter().map(artifact_to_v03).collect()));
    }
    obj.insert("kind".into(), json!("task"));
    Value::Object(obj)
}

fn status_to_v03(status: Value) -> Value {
    let Value::Object(mut obj) = status else { return status };
    if let Some(state) = obj.get("state").and_then(Value::as_str) {
        let name = state.strip_prefix("TASK_STATE_").unwrap_or(state).to_ascii_lowercase().replace('_', "-");
        let name = if name == "unspecified" { "unknown".to_owned() } else { name };
        obj.insert("state".into(), Value::String(name));
    }
    if let Some(message) = obj.remove("message") {
        obj.insert("message".into(), message_to_v03(message));
    }
    Value::Object(obj)
}

fn message_to_v03(message: Value) -> Value {
    let Value::Object(mut obj) = message else { return message };
    if let Some(role) = obj.get("role").and_then(Value::as_str) {
        let role = if role == "ROLE_USER" { "user" } else { "agent" };
        obj.insert("role".into(), json!(role));
    }
    convert_parts(&mut obj);
    obj.insert("kind".into(), json!("message"));
    Value::Object(obj)
}

fn artifact_to_v03(artifact: Value) -> Value {
    let Value::Object(mut obj) = artifact else { return artifact };
    convert_parts(&mut obj);
    Value::Object(obj)
}

fn convert_parts(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(parts)) = obj.remove("parts") {
        obj.insert("parts".into(), Value::Array(parts.into_iter().map(part_to_v03).collect()));
    }
}

fn part_to_v03(part: Value) -> Value {
    let Value::Object(mut obj) = part else { return part };
    let mut out = Map::new();
    if let Some(metadata) = obj.remove("metadata") {
        out.insert("metadata".into(), metadata);
    }
    if let Some(text) = obj.remove("text") {
        out.insert("kind".into(), json!("text"));
        out.insert("text".into(), text);
    } else if let Some(data) = obj.remove("data") {
        out.insert("kind".into(), json!("data"));
        // 0.3 data parts hold an object.
        out.insert("data".into(), if data.is_object() { data } else { json!({ "value": data }) });
    } else {
        let mut file = Map::new();
        for (from, to) in [("url", "uri"), ("raw", "bytes"), ("mediaType", "mimeType"), ("filename", "name")]
        {
            if let Some(v) = obj.remove(from) {
                file.insert(to.into(), v);
            }
        }
        out.insert("kind".into(), json!("file"));
        out.insert("file".into(), Value::Object(file));
    }
    Value::Object(out)
}
