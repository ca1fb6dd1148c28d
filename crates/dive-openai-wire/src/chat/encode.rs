//! [`ModelRequest`] → Chat Completions request body ([`ChatBody`]), serialized straight from
//! the request: messages, parts and tool calls are small structs borrowing the history, so
//! encoding builds no JSON tree (tool schemas are encoded once per tool list, see
//! [`ToolCache`](crate::ToolCache)).
//!
//! Every request first gets [`answer_unanswered_tool_calls`](dive_core::answer_unanswered_tool_calls)
//! (a backstop for broken histories) and reminder rendering per the [`Dialect`]; the caller's
//! history is never changed. Tool results become `tool` messages; images and documents
//! inside tool results (which `tool` messages cannot carry) follow in a user message.

use std::borrow::Cow;
use std::fmt;

use dive_core::{
    Content, DocumentContent, MediaSource, Message, ModelRequest, ResponseFormat, Role, ToolChoice,
    ToolDefinition,
};
use dive_provider::EncodedTools;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};

use crate::body::{Body, TopLevel};
use crate::chat::reasoning::{stored_detail, thinking_chunk};
use crate::dialect::Dialect;
use crate::schema::strict_schema;
use crate::wire::EncodeOptions;
use crate::wire::{Arguments, arguments, encode_tool_list, has_media, media_url, result_text};

/// Client settings that shape every Chat Completions body.
pub type ChatOptions<'a> = EncodeOptions<'a>;

/// Builds the JSON body of a `POST /chat/completions` call (the typed body of [`encode_body`],
/// as a value, the dialect's body hook applied).
///
/// ```
/// use dive_core::{Message, ModelRequest};
/// use dive_openai_wire::{Dialect, chat::{ChatOptions, encode_request}};
/// let dialect = Dialect::openai();
/// let body = encode_request(&ModelRequest::new(vec![Message::user("Hi")]).with_system("Be brief."),
///     &ChatOptions::new("gpt-5.5", &dialect));
/// assert_eq!(body["messages"][0], serde_json::json!({"role": "system", "content": "Be brief."}));
/// assert_eq!(body["messages"][1], serde_json::json!({"role": "user", "content": "Hi"}));
/// ```
#[must_use]
pub fn encode_request(request: &ModelRequest, opts: &ChatOptions<'_>) -> Value {
    serde_json::to_value(encode_body(request, opts)).unwrap_or_default()
}

/// The typed body of a `POST /chat/completions` call, its tools encoded here (a provider
/// reuses its cached tool list instead).
///
/// ```
/// use dive_core::{Message, ModelRequest};
/// use dive_openai_wire::{Dialect, chat::{ChatOptions, encode_body}};
/// let dialect = Dialect::openai();
/// let request = ModelRequest::new(vec![Message::user("Hi")]);
/// let json = serde_json::to_string(&encode_body(&request, &ChatOptions::new("gpt-5.5", &dialect))).unwrap();
/// assert!(json.contains(r#""messages":[{"role":"user","content":"Hi"}]"#));
/// ```
#[must_use]
pub fn encode_body<'a>(request: &'a ModelRequest, opts: &ChatOptions<'a>) -> Body<'a> {
    let tools = encode_tool_list(&encode_tools(request, opts.dialect));
    body(request, opts, tools)
}

/// The body with `tools` (pre-encoded) and the dialect's hook applied.
pub(crate) fn body<'a>(
    request: &'a ModelRequest,
    opts: &ChatOptions<'a>,
    tools: Option<EncodedTools>,
) -> Body<'a> {
    let dialect = opts.dialect;
    let typed = ChatBody {
        request,
        dialect,
        model: request.model.as_deref().unwrap_or(opts.model),
        messages: dive_core::history_to_send(&request.messages, &dialect.reminders),
        max_tokens: request.max_tokens.or(opts.max_tokens),
        stream: opts.stream,
        tools: Body::tools_for(dialect, &tools),
    };
    let plain = Body::Chat(typed);
    match plain.finish(request, dialect, tools) {
        Ok(done) => done,
        // A hook-edited body is built from the typed one, which always serializes.
        Err(_) => Body::Edited { fields: Map::new(), tools: None },
    }
}

/// The tools of a Chat Completions body (native tools only when the dialect sends them).
pub(crate) fn encode_tools(request: &ModelRequest, dialect: &Dialect) -> Vec<Value> {
    request.tools.iter().filter(|t| !t.is_native() || dialect.native_tools).map(encode_tool).collect()
}

/// A Chat Completions request body, serialized from the request it borrows.
pub struct ChatBody<'a> {
    request: &'a ModelRequest,
    dialect: &'a Dialect,
    model: &'a str,
    messages: Cow<'a, [Message]>,
    max_tokens: Option<u32>,
    stream: bool,
    tools: Option<EncodedTools>,
}

impl fmt::Debug for ChatBody<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChatBody")
            .field("model", &self.model)
            .field("messages", &self.messages.len())
            .finish()
    }
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

impl Serialize for ChatBody<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (request, dialect) = (self.request, self.dialect);
        let mut top = TopLevel::new(s.serialize_map(None)?, &request.provider_options, dialect.unsupported);
        top.put("model", self.model)?;
        let system = request.system.as_deref().filter(|s| !s.is_empty());
        top.put("messages", &ChatMessages { system, messages: &self.messages, dialect })?;
        top.opt(dialect.max_tokens_field, self.max_tokens)?;
        top.opt("temperature", request.temperature)?;
        top.opt("top_p", request.top_p)?;
        top.opt("presence_penalty", request.presence_penalty)?;
        top.opt("frequency_penalty", request.frequency_penalty)?;
        if !request.stop_sequences.is_empty() {
            top.put("stop", &request.stop_sequences)?;
        }
        let has_tools = request.tools.iter().any(|t| !t.is_native() || dialect.native_tools);
        if let Some(search) = request.tools.iter().find(|t| {
            !dialect.native_tools && t.native_type.as_deref().is_some_and(|k| k.starts_with("web_search"))
        }) {
            top.put("web_search_options", &search.native_params)?;
        }
        if has_tools {
            if let Some(tools) = &self.tools {
                top.put("tools", tools)?;
            }
            top.opt("tool_choice", request.tool_choice.as_ref().map(ChoiceOut))?;
            top.opt("parallel_tool_calls", request.parallel_tool_calls)?;
        }
        top.opt("reasoning_effort", request.reasoning.as_ref().and_then(|r| r.effort).map(|e| e.as_str()))?;
        top.opt("response_format", request.response_format.as_ref().map(encode_response_format))?;
        top.opt("prompt_cache_key", crate::options::prompt_cache_key(request))?;
        top.opt("service_tier", crate::options::service_tier(request))?;
        if self.stream {
            top.put("stream", &true)?;
            if dialect.stream_usage {
                top.put("stream_options", &StreamOptions { include_usage: true })?;
            }
        }
        top.end()
    }
}

/// The `messages` array: the system prompt, then each history message as its wire messages.
struct ChatMessages<'a> {
    system: Option<&'a str>,
    messages: &'a [Message],
    dialect: &'a Dialect,
}

impl Serialize for ChatMessages<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        if let Some(system) = self.system {
            let role = Cow::Borrowed(self.dialect.system_role.as_str());
            seq.serialize_element(&WireMessage::Plain { role, content: Cow::Borrowed(system) })?;
        }
        for message in self.messages {
            encode_message(message, self.dialect, &mut |m| seq.serialize_element(&m))?;
        }
        seq.end()
    }
}

/// One wire message.
#[derive(Serialize)]
#[serde(untagged)]
enum WireMessage<'m> {
    Plain { role: Cow<'m, str>, content: Cow<'m, str> },
    Tool { role: &'static str, tool_call_id: &'m str, content: Cow<'m, str> },
    Parts { role: &'m str, content: UserContent<'m> },
    Assistant(Assistant<'m>),
}

/// A user message's `content`: one text part is sent as a plain string.
#[derive(Serialize)]
#[serde(untagged)]
enum UserContent<'m> {
    Text(Cow<'m, str>),
    Parts(Vec<Part<'m>>),
}

/// One user content part.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part<'m> {
    Text { text: Cow<'m, str> },
    ImageUrl { image_url: Url<'m> },
    File { file: FilePart<'m> },
}

#[derive(Serialize)]
struct Url<'m> {
    url: Cow<'m, str>,
}

#[derive(Serialize, Default)]
struct FilePart<'m> {
    #[serde(skip_serializing_if = "Option::is_none")]
    file_id: Option<&'m str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_data: Option<Cow<'m, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<&'m str>,
}

fn role_name<'m>(role: &'m Role, dialect: &'m Dialect) -> Cow<'m, str> {
    Cow::Borrowed(match role {
        Role::System => dialect.system_role.as_str(),
        Role::Developer if dialect.system_role != Role::Developer => match &dialect.reminders {
            dive_core::ReminderStyle::NativeRole(Role::Developer) => "developer",
            _ => dialect.system_role.as_str(),
        },
        other => other.as_str(),
    })
}

fn encode_message<'m, E>(
    message: &'m Message,
    dialect: &'m Dialect,
    emit: &mut impl FnMut(WireMessage<'m>) -> Result<(), E>,
) -> Result<(), E> {
    match &message.role {
        Role::Assistant => match encode_assistant(message, dialect) {
            Some(m) => emit(WireMessage::Assistant(m)),
            None => Ok(()),
        },
        Role::System | Role::Developer => {
            let text = message.text();
            if text.is_empty() {
                return Ok(());
            }
            emit(WireMessage::Plain { role: role_name(&message.role, dialect), content: Cow::Owned(text) })
        }
        role => {
            // The usual user message, one text block, is sent as a string without building
            // a list of parts first.
            if let [Content::Text(t)] = &message.content[..] {
                let content = UserContent::Text(Cow::Borrowed(&t.text));
                return emit(WireMessage::Parts { role: role.as_str(), content });
            }
            let mut parts = Vec::new();
            let mut lifted = Vec::new();
            for block in &message.content {
                match block {
                    Content::ToolResult(r) => {
                        emit(WireMessage::Tool {
                            role: "tool",
                            tool_call_id: &r.tool_use_id,
                            content: result_text(r),
                        })?;
                        if has_media(r) {
                            let text = format!("Attachments of tool result {}:", r.tool_use_id);
                            lifted.push(Part::Text { text: Cow::Owned(text) });
                            lifted.extend(
                                r.content
                                    .iter()
                                    .filter_map(encode_part)
                                    .filter(|p| !matches!(p, Part::Text { .. })),
                            );
                        }
                    }
                    other => parts.extend(encode_part(other)),
                }
            }
            parts.splice(0..0, lifted);
            if parts.is_empty() {
                return Ok(());
            }
            let content = match parts.as_slice() {
                [Part::Text { .. }] => match parts.pop() {
                    Some(Part::Text { text }) => UserContent::Text(text),
                    _ => return Ok(()),
                },
                _ => UserContent::Parts(parts),
            };
            emit(WireMessage::Parts { role: role.as_str(), content })
        }
    }
}

fn encode_document(doc: &DocumentContent) -> Option<Part<'_>> {
    let filename = doc.title.as_deref().unwrap_or("document.pdf");
    match &doc.source {
        MediaSource::Base64 { .. } => Some(Part::File {
            file: FilePart {
                file_data: media_url(&doc.source),
                filename: Some(filename),
                ..FilePart::default()
            },
        }),
        MediaSource::File { file_id } => {
            Some(Part::File { file: FilePart { file_id: Some(file_id), ..FilePart::default() } })
        }
        MediaSource::Text { data, .. } => {
            let text = match &doc.title {
                Some(t) => Cow::Owned(format!("{t}\n\n{data}")),
                None => Cow::Borrowed(data.as_str()),
            };
            Some(Part::Text { text })
        }
        // Chat Completions cannot fetch a document URL; the model is told where it is.
        MediaSource::Url { url } => Some(Part::Text { text: Cow::Owned(format!("Document: {url}")) }),
        _ => None,
    }
}

/// One user content part, or `None` for blocks Chat Completions cannot carry in a user
/// message (thinking, server tool items, …).
fn encode_part(block: &Content) -> Option<Part<'_>> {
    match block {
        Content::Text(t) => Some(Part::Text { text: Cow::Borrowed(&t.text) }),
        Content::Image(img) => match &img.source {
            MediaSource::File { file_id } => {
                Some(Part::File { file: FilePart { file_id: Some(file_id), ..FilePart::default() } })
            }
            source => media_url(source).map(|url| Part::ImageUrl { image_url: Url { url } }),
        },
        Content::Document(doc) => encode_document(doc),
        Content::File(f) => Some(Part::File {
            file: FilePart {
                file_id: Some(&f.file_id),
                filename: f.filename.as_deref(),
                ..FilePart::default()
            },
        }),
        Content::Reminder(r) => Some(Part::Text { text: Cow::Owned(r.render()) }),
        _ => None,
    }
}

/// An assistant message.
struct Assistant<'m> {
    content: AssistantContent<'m>,
    refusal: String,
    /// The message's blocks, whose tool calls are written where they are (`None`: it has
    /// none).
    calls: Option<&'m [Content]>,
    /// The dialect's reasoning replay field and the thinking text.
    reasoning: Option<(&'static str, String)>,
    /// Reasoning details sent back unmodified.
    details: Vec<&'m Value>,
}

enum AssistantContent<'m> {
    Null,
    Text(Cow<'m, str>),
    Chunks(Vec<Value>),
}

/// The tool calls among an assistant message's blocks, as `tool_calls`.
struct Calls<'m>(&'m [Content]);

impl Serialize for Calls<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().filter_map(|block| match block {
            Content::ToolUse(call) => Some(Call {
                id: &call.id,
                kind: "function",
                function: CallFunction { name: &call.name, arguments: arguments(call) },
            }),
            _ => None,
        }))
    }
}

#[derive(Serialize)]
struct Call<'m> {
    id: &'m str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CallFunction<'m>,
}

#[derive(Serialize)]
struct CallFunction<'m> {
    name: &'m str,
    arguments: Arguments<'m>,
}

impl Serialize for Assistant<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("role", "assistant")?;
        match &self.content {
            AssistantContent::Null => m.serialize_entry("content", &())?,
            AssistantContent::Text(t) => m.serialize_entry("content", t)?,
            AssistantContent::Chunks(c) => m.serialize_entry("content", c)?,
        }
        if !self.refusal.is_empty() {
            m.serialize_entry("refusal", &self.refusal)?;
        }
        if let Some(blocks) = self.calls {
            m.serialize_entry("tool_calls", &Calls(blocks))?;
        }
        if let Some((field, text)) = &self.reasoning {
            m.serialize_entry(field, text)?;
        }
        if !self.details.is_empty() {
            m.serialize_entry("reasoning_details", &self.details)?;
        }
        m.end()
    }
}

/// Appends text to the last `text` chunk, or starts one.
fn push_text_chunk(chunks: &mut Vec<Value>, text: &str) {
    match chunks.last_mut() {
        Some(last) if last["type"] == "text" => {
            let joined = format!("{}{text}", last["text"].as_str().unwrap_or_default());
            last["text"] = json!(joined);
        }
        _ => chunks.push(json!({"type": "text", "text": text})),
    }
}

fn encode_assistant<'m>(message: &'m Message, dialect: &Dialect) -> Option<Assistant<'m>> {
    let mut text: Cow<'m, str> = Cow::Borrowed("");
    let mut refusal = String::new();
    let mut reasoning = String::new();
    let mut has_calls = false;
    // Typed chunks (thinking, text) in block order, for `Dialect::thinking_chunks`.
    let mut chunks = Vec::new();
    let mut thought = false;
    // Reasoning details to send back unmodified, for `Dialect::reasoning_details`.
    let mut details = Vec::new();
    for block in &message.content {
        match block {
            Content::Text(t) => {
                if text.is_empty() {
                    text = Cow::Borrowed(&t.text);
                } else {
                    text.to_mut().push_str(&t.text);
                }
                if dialect.thinking_chunks && !t.text.is_empty() {
                    push_text_chunk(&mut chunks, &t.text);
                }
            }
            Content::Refusal(r) => refusal.push_str(&r.refusal),
            Content::Thinking(t) => {
                reasoning.push_str(&t.thinking);
                if let Some(detail) = dialect.reasoning_details.and_then(|key| stored_detail(t, key)) {
                    details.push(detail);
                }
                if !t.thinking.is_empty() {
                    if dialect.thinking_chunks {
                        chunks.push(thinking_chunk(&t.thinking));
                    }
                    thought = true;
                }
            }
            Content::ToolUse(_) => has_calls = true,
            _ => {}
        }
    }
    if text.is_empty() && refusal.is_empty() && !has_calls {
        return None;
    }
    let content = if dialect.thinking_chunks && thought {
        AssistantContent::Chunks(chunks)
    } else if text.is_empty() && has_calls {
        AssistantContent::Null
    } else {
        AssistantContent::Text(text)
    };
    let reasoning = dialect.replay_reasoning_field.filter(|_| !reasoning.is_empty()).map(|f| (f, reasoning));
    let calls = has_calls.then_some(&message.content[..]);
    Some(Assistant { content, refusal, calls, reasoning, details })
}

fn encode_tool(tool: &ToolDefinition) -> Value {
    if let Some(kind) = &tool.native_type {
        let mut t = tool.native_params.clone();
        t.insert("type".into(), json!(kind));
        return Value::Object(t);
    }
    let mut function = Map::new();
    function.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        function.insert("description".into(), json!(tool.description));
    }
    let strict = tool.strict == Some(true);
    let parameters = if strict { strict_schema(&tool.input_schema) } else { tool.input_schema.clone() };
    function.insert("parameters".into(), parameters);
    if let Some(s) = tool.strict {
        function.insert("strict".into(), json!(s));
    }
    json!({"type": "function", "function": function})
}

/// `tool_choice`: a mode string, or the one function to call.
struct ChoiceOut<'a>(&'a ToolChoice);

impl Serialize for ChoiceOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            ToolChoice::Any => s.serialize_str("required"),
            ToolChoice::None => s.serialize_str("none"),
            ToolChoice::Tool { name } => {
                #[derive(Serialize)]
                struct Name<'n> {
                    name: &'n str,
                }
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("type", "function")?;
                m.serialize_entry("function", &Name { name })?;
                m.end()
            }
            _ => s.serialize_str("auto"),
        }
    }
}

/// The `json_schema` object shared by both APIs: name, schema (sanitised when strict),
/// description, strict.
pub(crate) fn json_schema_spec(
    name: &str,
    schema: &Value,
    description: Option<&String>,
    strict: Option<bool>,
) -> Map<String, Value> {
    let mut spec = Map::new();
    spec.insert("name".into(), json!(name));
    let strict_on = strict.unwrap_or(true);
    spec.insert("schema".into(), if strict_on { strict_schema(schema) } else { schema.clone() });
    if let Some(d) = description {
        spec.insert("description".into(), json!(d));
    }
    spec.insert("strict".into(), json!(strict_on));
    spec
}

fn encode_response_format(format: &ResponseFormat) -> Value {
    match format {
        ResponseFormat::JsonObject => json!({"type": "json_object"}),
        ResponseFormat::JsonSchema { name, schema, description, strict } => {
            json!({"type": "json_schema", "json_schema": json_schema_spec(name, schema, description.as_ref(), *strict)})
        }
        _ => json!({"type": "text"}),
    }
}
