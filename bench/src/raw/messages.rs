//! The raw Anthropic Messages client: typed request and response structs, SSE events decoded
//! one by one into a tool use or text.

use serde::{Deserialize, Serialize};

use super::{ADD_SCHEMA, API_KEY, AddArgs, AddSchema, Endpoint, read_events};
use crate::BenchError;
use crate::problem::{TOOL_DESCRIPTION, TOOL_NAME};

/// An Anthropic Messages client for the benchmark turn.
#[derive(Debug, Clone)]
pub struct RawMessages {
    endpoint: Endpoint,
}

/// The most output tokens dive asks of this model.
const MAX_TOKENS: u32 = 32_768;

/// The request dive sends, field for field (`tests/same_requests.rs` compares them): content
/// as blocks, and automatic prompt caching at the top level.
#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    max_tokens: u32,
    messages: &'a [Message<'a>],
    cache_control: CacheControl,
    tools: [Tool<'a>; 1],
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
}

#[derive(Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: [Block<'a>; 1],
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text { text: &'a str },
    ToolUse { id: &'a str, name: &'a str, input: &'a serde_json::value::Value },
    ToolResult { tool_use_id: &'a str, content: [Text<'a>; 1] },
}

/// A text block inside a tool result.
#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a AddSchema,
}

#[derive(Deserialize)]
struct Response {
    content: Vec<ReplyBlock>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ReplyBlock {
    Text { text: String },
    ToolUse { id: String, name: String, input: serde_json::Value },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    ContentBlockStart {
        content_block: StartBlock,
    },
    ContentBlockDelta {
        delta: BlockDelta,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StartBlock {
    Text,
    ToolUse { id: String, name: String },
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockDelta {
    TextDelta { text: String },
    InputJsonDelta { partial_json: String },
}

/// What one call returned: text, or the one tool use (id, name, input).
#[derive(Default)]
struct Reply {
    text: String,
    call: Option<(String, String, serde_json::Value)>,
}

impl RawMessages {
    /// A client of `{base}/v1/messages`, streaming or not.
    #[must_use]
    pub fn new(http: reqwest::Client, base: &str, model: &str, stream: bool) -> Self {
        Self { endpoint: Endpoint::new(http, format!("{base}/v1/messages"), model, stream) }
    }

    /// One turn: ask, run the tool use, send the result, return the final answer.
    ///
    /// # Errors
    /// HTTP or JSON failures, or a reply without the tool use.
    pub async fn turn(&self, question: &str) -> Result<String, BenchError> {
        let user = Message { role: "user", content: [Block::Text { text: question }] };
        let first = self.call(std::slice::from_ref(&user)).await?;
        let (id, name, input) =
            first.call.ok_or_else(|| BenchError::Protocol("no tool use in the first reply".into()))?;
        if name != TOOL_NAME {
            return Err(BenchError::Protocol(format!("use of unknown tool {name}")));
        }
        let result = AddArgs::deserialize(&input)?.run();
        let messages = [
            user,
            Message { role: "assistant", content: [Block::ToolUse { id: &id, name: &name, input: &input }] },
            Message {
                role: "user",
                content: [Block::ToolResult {
                    tool_use_id: &id,
                    content: [Text { kind: "text", text: &result }],
                }],
            },
        ];
        Ok(self.call(&messages).await?.text)
    }

    async fn call(&self, messages: &[Message<'_>]) -> Result<Reply, BenchError> {
        let stream = self.endpoint.stream();
        let request = Request {
            model: self.endpoint.model(),
            max_tokens: MAX_TOKENS,
            messages,
            cache_control: CacheControl { kind: "ephemeral" },
            tools: [Tool { name: TOOL_NAME, description: TOOL_DESCRIPTION, input_schema: &ADD_SCHEMA }],
            stream,
        };
        let headers = [("x-api-key", API_KEY), ("anthropic-version", "2023-06-01")];
        let response = self.endpoint.post(serde_json::to_vec(&request)?, &headers).await?;
        let mut reply = Reply::default();
        if !stream {
            let bytes = response.bytes().await?;
            let parsed: Response = serde_json::from_slice(&bytes)?;
            for block in parsed.content {
                match block {
                    ReplyBlock::Text { text } => reply.text.push_str(&text),
                    ReplyBlock::ToolUse { id, name, input } => reply.call = Some((id, name, input)),
                }
            }
            return Ok(reply);
        }
        let mut tool: Option<(String, String, String)> = None;
        read_events(response, |data| {
            match serde_json::from_slice::<Event>(data)? {
                Event::ContentBlockStart { content_block: StartBlock::ToolUse { id, name } } => {
                    tool = Some((id, name, String::new()));
                }
                Event::ContentBlockDelta { delta: BlockDelta::TextDelta { text } } => {
                    reply.text.push_str(&text)
                }
                Event::ContentBlockDelta { delta: BlockDelta::InputJsonDelta { partial_json } } => {
                    if let Some((_, _, json)) = tool.as_mut() {
                        json.push_str(&partial_json);
                    }
                }
                Event::ContentBlockStart { content_block: StartBlock::Text } | Event::Other => {}
            }
            Ok(())
        })
        .await?;
        if let Some((id, name, json)) = tool {
            reply.call = Some((id, name, serde_json::from_str(&json)?));
        }
        Ok(reply)
    }
}
