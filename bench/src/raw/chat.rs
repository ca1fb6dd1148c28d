//! The raw Chat Completions client: typed request and response structs, SSE chunks decoded
//! one by one into a tool call or text.

use serde::{Deserialize, Serialize};

use super::{ADD_SCHEMA, API_KEY, AddArgs, AddSchema, Endpoint, PROMPT_CACHE_KEY, read_events};
use crate::BenchError;
use crate::problem::{TOOL_DESCRIPTION, TOOL_NAME};

/// A Chat Completions client for the benchmark turn.
#[derive(Debug, Clone)]
pub struct RawChat {
    endpoint: Endpoint,
}

/// The request dive sends, field for field (`tests/same_requests.rs` compares them).
#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    messages: &'a [Message<'a>],
    tools: [Tool<'a>; 1],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    prompt_cache_key: &'a str,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum Message<'a> {
    User { content: &'a str },
    Assistant { content: Option<&'a str>, tool_calls: [OutCall<'a>; 1] },
    Tool { tool_call_id: &'a str, content: &'a str },
}

#[derive(Serialize)]
struct OutCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: OutFunction<'a>,
}

#[derive(Serialize)]
struct OutFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Serialize)]
struct Tool<'a> {
    function: FunctionDef<'a>,
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct FunctionDef<'a> {
    description: &'a str,
    name: &'a str,
    parameters: &'a AddSchema,
}

#[derive(Deserialize)]
struct Response {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: ReplyMessage,
}

#[derive(Deserialize)]
struct ReplyMessage {
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ReplyCall>,
}

#[derive(Deserialize)]
struct ReplyCall {
    id: String,
    function: ReplyFunction,
}

#[derive(Deserialize)]
struct ReplyFunction {
    name: String,
    arguments: String,
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    delta: Delta,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<DeltaCall>,
}

#[derive(Deserialize)]
struct DeltaCall {
    id: Option<String>,
    function: Option<DeltaFunction>,
}

#[derive(Deserialize)]
struct DeltaFunction {
    name: Option<String>,
    arguments: Option<String>,
}

/// What one call returned: text, or the one tool call.
#[derive(Default)]
struct Reply {
    text: String,
    call: Option<ReplyCall>,
}

impl RawChat {
    /// A client of `{base}/v1/chat/completions`, streaming or not.
    #[must_use]
    pub fn new(http: reqwest::Client, base: &str, model: &str, stream: bool) -> Self {
        Self { endpoint: Endpoint::new(http, format!("{base}/v1/chat/completions"), model, stream) }
    }

    /// One turn: ask, run the tool call, send the result, return the final answer.
    ///
    /// # Errors
    /// HTTP or JSON failures, or a reply without the tool call.
    pub async fn turn(&self, question: &str) -> Result<String, BenchError> {
        let user = Message::User { content: question };
        let first = self.call(std::slice::from_ref(&user)).await?;
        let call =
            first.call.ok_or_else(|| BenchError::Protocol("no tool call in the first reply".into()))?;
        if call.function.name != TOOL_NAME {
            return Err(BenchError::Protocol(format!("call of unknown tool {}", call.function.name)));
        }
        let result = serde_json::from_str::<AddArgs>(&call.function.arguments)?.run();
        let messages = [
            user,
            Message::Assistant {
                content: None,
                tool_calls: [OutCall {
                    id: &call.id,
                    kind: "function",
                    function: OutFunction { name: &call.function.name, arguments: &call.function.arguments },
                }],
            },
            Message::Tool { tool_call_id: &call.id, content: &result },
        ];
        Ok(self.call(&messages).await?.text)
    }

    async fn call(&self, messages: &[Message<'_>]) -> Result<Reply, BenchError> {
        let stream = self.endpoint.stream();
        let request = Request {
            model: self.endpoint.model(),
            messages,
            tools: [Tool {
                kind: "function",
                function: FunctionDef {
                    name: TOOL_NAME,
                    description: TOOL_DESCRIPTION,
                    parameters: &ADD_SCHEMA,
                },
            }],
            stream,
            stream_options: stream.then_some(StreamOptions { include_usage: true }),
            prompt_cache_key: PROMPT_CACHE_KEY,
        };
        let auth = format!("Bearer {API_KEY}");
        let response = self.endpoint.post(serde_json::to_vec(&request)?, &[("authorization", &auth)]).await?;
        if !stream {
            let bytes = response.bytes().await?;
            let mut parsed: Response = serde_json::from_slice(&bytes)?;
            let choice = parsed.choices.pop().ok_or_else(|| BenchError::Protocol("no choices".into()))?;
            let mut message = choice.message;
            return Ok(Reply { text: message.content.unwrap_or_default(), call: message.tool_calls.pop() });
        }
        let mut reply = Reply::default();
        read_events(response, |data| {
            if data == b"[DONE]" {
                return Ok(());
            }
            let chunk: Chunk = serde_json::from_slice(data)?;
            for choice in chunk.choices {
                if let Some(text) = choice.delta.content {
                    reply.text.push_str(&text);
                }
                for delta in choice.delta.tool_calls {
                    let call = reply.call.get_or_insert_with(|| ReplyCall {
                        id: String::new(),
                        function: ReplyFunction { name: String::new(), arguments: String::new() },
                    });
                    if let Some(id) = delta.id {
                        call.id = id;
                    }
                    if let Some(function) = delta.function {
                        if let Some(name) = function.name {
                            call.function.name = name;
                        }
                        if let Some(arguments) = function.arguments {
                            call.function.arguments.push_str(&arguments);
                        }
                    }
                }
            }
            Ok(())
        })
        .await?;
        Ok(reply)
    }
}
