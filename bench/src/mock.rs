//! The mock model server: OpenAI Chat Completions (`POST /v1/chat/completions`) and Anthropic
//! Messages (`POST /v1/messages`) over hand-rolled HTTP/1.1 with keep-alive, plain JSON or
//! SSE (chunked, each event its own write); `GET /stats` reports the request count.
//!
//! The reply is decided from the request alone: a conversation whose last message is the
//! user's question gets a call of the `add` tool with the question's two numbers; one whose
//! last message carries the tool result gets the answer built from that result
//! ([`problem::answer`](crate::problem::answer)).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::problem::{TOOL_NAME, answer, answer_deltas, numbers};

/// Serves the mock on `listener` until the task is dropped, counting model requests in
/// `requests`.
///
/// # Errors
/// When accepting a connection fails.
pub async fn serve(listener: TcpListener, requests: Arc<AtomicU64>) -> std::io::Result<()> {
    serve_logged(listener, requests, None).await
}

/// A model request as the mock received it: its header lines (without the request line) and
/// its body.
#[derive(Debug, Clone)]
pub struct LoggedRequest {
    /// The path requested.
    pub path: String,
    /// `name: value` header lines, as sent.
    pub headers: Vec<String>,
    /// The body.
    pub body: Vec<u8>,
}

/// Every model request the mock received, in order (for tests that compare what clients send).
pub type RequestLog = Arc<Mutex<Vec<LoggedRequest>>>;

/// [`serve`], also keeping every model request in `log` when one is given.
///
/// # Errors
/// When accepting a connection fails.
pub async fn serve_logged(
    listener: TcpListener,
    requests: Arc<AtomicU64>,
    log: Option<RequestLog>,
) -> std::io::Result<()> {
    loop {
        let (socket, _) = listener.accept().await?;
        let requests = Arc::clone(&requests);
        let log = log.clone();
        tokio::spawn(async move {
            // A connection that breaks mid-request is the client's to report.
            let _ = connection(socket, &requests, log.as_ref()).await;
        });
    }
}

/// Keeps the mock's thread polling: yields forever, so the runtime checks for I/O without
/// blocking and never parks. A parked mock must be woken by the kernel on every request that
/// reaches it, and on loopback that wake-up (a cross-CPU interrupt, expensive in a VM) runs in
/// the sending client's system call and counts as the client's CPU time; how often it happens
/// depends on how idle the mock is, so a slower client pays it more often.
pub async fn spin() {
    loop {
        tokio::task::yield_now().await;
    }
}

/// What the mock sends back.
enum Reply {
    /// A JSON body with a content length.
    Json(String),
    /// SSE events, each written on its own.
    Events(Vec<String>),
    /// An error status with a message (the client reports it).
    Error(&'static str, String),
}

async fn connection(
    mut socket: TcpStream,
    requests: &AtomicU64,
    log: Option<&RequestLog>,
) -> std::io::Result<()> {
    socket.set_nodelay(true)?;
    let mut buf: Vec<u8> = Vec::with_capacity(16 * 1024);
    loop {
        let head_end = loop {
            if let Some(i) = memchr::memmem::find(&buf, b"\r\n\r\n") {
                break i + 4;
            }
            if socket.read_buf(&mut buf).await? == 0 {
                return Ok(());
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let length = header(&head, "content-length").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
        while buf.len() < head_end + length {
            if socket.read_buf(&mut buf).await? == 0 {
                return Ok(());
            }
        }
        let target = head.split_whitespace().nth(1).unwrap_or_default();
        let body = &buf[head_end..head_end + length];
        if let Some(log) = log
            && target != "/stats"
        {
            let headers = head.lines().skip(1).filter(|l| !l.is_empty()).map(str::to_owned).collect();
            let entry = LoggedRequest { path: target.to_owned(), headers, body: body.to_vec() };
            log.lock().unwrap_or_else(PoisonError::into_inner).push(entry);
        }
        let reply = if header(&head, "transfer-encoding").is_some() {
            Reply::Error("400 Bad Request", "the mock reads content-length bodies only".into())
        } else {
            route(target, body, requests)
        };
        write_reply(&mut socket, reply).await?;
        if header(&head, "connection").is_some_and(|v| v.eq_ignore_ascii_case("close")) {
            return Ok(());
        }
        buf.drain(..head_end + length);
    }
}

fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

fn route(target: &str, body: &[u8], requests: &AtomicU64) -> Reply {
    let path = target.split('?').next().unwrap_or_default();
    if path == "/stats" {
        return Reply::Json(format!("{{\"requests\":{}}}", requests.load(Ordering::SeqCst)));
    }
    let provider = match path {
        "/v1/chat/completions" => Provider::Chat,
        "/v1/messages" => Provider::Messages,
        _ => return Reply::Error("404 Not Found", format!("no route {path}")),
    };
    requests.fetch_add(1, Ordering::SeqCst);
    let request: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return Reply::Error("400 Bad Request", format!("body is not JSON: {e}")),
    };
    let stream = request["stream"].as_bool().unwrap_or(false);
    let step = match provider {
        Provider::Chat => chat_step(&request),
        Provider::Messages => messages_step(&request),
    };
    match (step, provider, stream) {
        (Err(message), ..) => Reply::Error("400 Bad Request", message),
        (Ok(step), Provider::Chat, false) => Reply::Json(chat_json(&step)),
        (Ok(step), Provider::Chat, true) => Reply::Events(chat_events(&step)),
        (Ok(step), Provider::Messages, false) => Reply::Json(messages_json(&step)),
        (Ok(step), Provider::Messages, true) => Reply::Events(messages_events(&step)),
    }
}

#[derive(Clone, Copy)]
enum Provider {
    Chat,
    Messages,
}

/// The model's next move.
enum Step {
    /// Call `add` with these numbers.
    Call(i64, i64),
    /// Answer with this tool result.
    Answer(String),
}

/// The text of a content value: a string, or an array of parts with `text`.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

fn call_of(question: &str) -> Result<Step, String> {
    match numbers(question)[..] {
        [a, b] => Ok(Step::Call(a, b)),
        _ => Err(format!("the question {question:?} does not hold two numbers")),
    }
}

fn sum_of(result: &str) -> Result<Step, String> {
    let sum = result.trim();
    if sum.parse::<i64>().is_ok() {
        Ok(Step::Answer(sum.to_owned()))
    } else {
        Err(format!("tool result {sum:?} is not a sum"))
    }
}

fn chat_step(request: &Value) -> Result<Step, String> {
    let last = request["messages"].as_array().and_then(|m| m.last()).ok_or("no messages")?;
    match last["role"].as_str() {
        Some("tool") => sum_of(&text_of(&last["content"])),
        Some("user") => call_of(&text_of(&last["content"])),
        role => Err(format!("last message has role {role:?}")),
    }
}

fn messages_step(request: &Value) -> Result<Step, String> {
    let last = request["messages"].as_array().and_then(|m| m.last()).ok_or("no messages")?;
    if let Some(blocks) = last["content"].as_array()
        && let Some(result) = blocks.iter().find(|b| b["type"] == "tool_result")
    {
        return sum_of(&text_of(&result["content"]));
    }
    call_of(&text_of(&last["content"]))
}

/// The fields before `choices` in every chunk, in the API's order (as a recorded stream of the
/// API has them: `dive-openai`'s `tests/fixtures/recorded/chat_usage_final_chunk.sse`).
const CHAT_ID: &str = r#""id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"bench","system_fingerprint":"fp_bench""#;
const CHAT_USAGE: &str = r#""usage":{"prompt_tokens":40,"completion_tokens":12,"total_tokens":52}"#;

fn chat_json(step: &Step) -> String {
    let message = match step {
        Step::Call(a, b) => format!(
            r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"call_1","type":"function","function":{{"name":"{TOOL_NAME}","arguments":"{{\"a\":{a},\"b\":{b}}}"}}}}]}}"#
        ),
        Step::Answer(sum) => format!(r#"{{"role":"assistant","content":"{}"}}"#, answer(sum)),
    };
    let finish = if matches!(step, Step::Call(..)) { "tool_calls" } else { "stop" };
    format!(
        r#"{{"id":"chatcmpl-bench","object":"chat.completion","created":1,"model":"bench","system_fingerprint":"fp_bench","choices":[{{"index":0,"message":{message},"logprobs":null,"finish_reason":"{finish}"}}],{CHAT_USAGE}}}"#
    )
}

/// A chunk in the API's byte shape: its keys in the API's order, `logprobs` and `usage` null.
fn chat_chunk(delta: &str, finish: &str) -> String {
    format!(
        r#"data: {{{CHAT_ID},"choices":[{{"index":0,"delta":{delta},"logprobs":null,"finish_reason":{finish}}}],"usage":null}}"#
    ) + "\n\n"
}

fn chat_events(step: &Step) -> Vec<String> {
    let mut events = Vec::with_capacity(10);
    let finish = match step {
        Step::Call(a, b) => {
            events.push(chat_chunk(
                &format!(
                    r#"{{"role":"assistant","content":null,"tool_calls":[{{"index":0,"id":"call_1","type":"function","function":{{"name":"{TOOL_NAME}","arguments":""}}}}]}}"#
                ),
                "null",
            ));
            for piece in [format!(r#"{{\"a\":{a},"#), format!(r#"\"b\":{b}}}"#)] {
                events.push(chat_chunk(
                    &format!(r#"{{"tool_calls":[{{"index":0,"function":{{"arguments":"{piece}"}}}}]}}"#),
                    "null",
                ));
            }
            r#""tool_calls""#
        }
        Step::Answer(sum) => {
            events.push(chat_chunk(r#"{"role":"assistant","content":""}"#, "null"));
            for delta in answer_deltas(sum) {
                events.push(chat_chunk(&format!(r#"{{"content":"{delta}"}}"#), "null"));
            }
            r#""stop""#
        }
    };
    events.push(chat_chunk("{}", finish));
    events.push(format!("data: {{{CHAT_ID},\"choices\":[],{CHAT_USAGE}}}\n\n"));
    events.push("data: [DONE]\n\n".to_owned());
    events
}

const MESSAGE_HEAD: &str = r#""id":"msg_bench","type":"message","role":"assistant","model":"bench""#;

fn messages_json(step: &Step) -> String {
    let (content, stop) = match step {
        Step::Call(a, b) => (
            format!(
                r#"[{{"type":"tool_use","id":"toolu_1","name":"{TOOL_NAME}","input":{{"a":{a},"b":{b}}}}}]"#
            ),
            "tool_use",
        ),
        Step::Answer(sum) => (format!(r#"[{{"type":"text","text":"{}"}}]"#, answer(sum)), "end_turn"),
    };
    format!(
        r#"{{{MESSAGE_HEAD},"content":{content},"stop_reason":"{stop}","stop_sequence":null,"usage":{{"input_tokens":40,"output_tokens":12}}}}"#
    )
}

fn event(name: &str, data: &str) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn messages_events(step: &Step) -> Vec<String> {
    let mut events = Vec::with_capacity(11);
    events.push(event(
        "message_start",
        &format!(
            r#"{{"type":"message_start","message":{{{MESSAGE_HEAD},"content":[],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":40,"output_tokens":1}}}}}}"#
        ),
    ));
    let stop = match step {
        Step::Call(a, b) => {
            events.push(event(
                "content_block_start",
                &format!(
                    r#"{{"type":"content_block_start","index":0,"content_block":{{"type":"tool_use","id":"toolu_1","name":"{TOOL_NAME}","input":{{}}}}}}"#
                ),
            ));
            for piece in [format!(r#"{{\"a\":{a},"#), format!(r#"\"b\":{b}}}"#)] {
                events.push(event(
                    "content_block_delta",
                    &format!(
                        r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"input_json_delta","partial_json":"{piece}"}}}}"#
                    ),
                ));
            }
            "tool_use"
        }
        Step::Answer(sum) => {
            events.push(event(
                "content_block_start",
                r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            ));
            for delta in answer_deltas(sum) {
                events.push(event(
                    "content_block_delta",
                    &format!(r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{delta}"}}}}"#),
                ));
            }
            "end_turn"
        }
    };
    events.push(event("content_block_stop", r#"{"type":"content_block_stop","index":0}"#));
    events.push(event(
        "message_delta",
        &format!(
            r#"{{"type":"message_delta","delta":{{"stop_reason":"{stop}","stop_sequence":null}},"usage":{{"output_tokens":12}}}}"#
        ),
    ));
    events.push(event("message_stop", r#"{"type":"message_stop"}"#));
    events
}

async fn write_reply(socket: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    match reply {
        Reply::Json(body) => {
            let out = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            socket.write_all(out.as_bytes()).await
        }
        Reply::Error(status, message) => {
            let body = serde_json::json!({"error": {"type": "invalid_request_error", "message": message}})
                .to_string();
            let out = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            );
            socket.write_all(out.as_bytes()).await
        }
        Reply::Events(events) => {
            socket
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
                .await?;
            for event in events {
                let chunk = format!("{:x}\r\n{event}\r\n", event.len());
                socket.write_all(chunk.as_bytes()).await?;
            }
            socket.write_all(b"0\r\n\r\n").await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_canned_body_is_json() {
        for step in [Step::Call(3, 4), Step::Answer("7".into())] {
            serde_json::from_str::<Value>(&chat_json(&step)).unwrap();
            serde_json::from_str::<Value>(&messages_json(&step)).unwrap();
            for e in chat_events(&step).iter().chain(&messages_events(&step)) {
                let data = e.lines().find_map(|l| l.strip_prefix("data: ")).unwrap();
                if data != "[DONE]" {
                    serde_json::from_str::<Value>(data).unwrap();
                }
            }
        }
    }
}
