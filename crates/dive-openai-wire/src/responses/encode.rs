//! [`ModelRequest`] → Responses API request body ([`ResponsesBody`]), serialized straight
//! from the request: input items and parts are small structs borrowing the history (items
//! kept for verbatim replay are written as they were stored).
//!
//! Every request first gets [`answer_unanswered_tool_calls`] and reminder rendering per the
//! [`Dialect`](crate::Dialect) (operator reminders become `developer` messages on OpenAI); the caller's
//! history is never changed. Assistant history is replayed as the API requires: reasoning
//! items with their id and encrypted content, `function_call` items with the original
//! `call_id` and argument string, messages with their id and `phase`, and provider-run tool
//! items verbatim. Thinking from other providers (no OpenAI item id) is not replayed.
//!
//! With `previous_response_id` set, the server already holds the conversation: only the
//! messages after the last assistant message are sent, and `store` is turned on.

use std::borrow::Cow;
use std::fmt;

use dive_core::{
    Content, DocumentContent, ImageContent, MediaSource, Message, ModelRequest, ReasoningSummary,
    ResponseFormat, Role, ToolChoice, ToolDefinition, ToolResultContent,
};
use dive_provider::EncodedTools;
use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};

use crate::body::{Body, TopLevel};
use crate::chat::json_schema_spec;
use crate::schema::strict_schema;
use crate::wire::EncodeOptions;
use crate::wire::{Arguments, arguments, encode_tool_list, has_media, media_url, meta, result_text};

/// Client settings that shape every Responses body.
pub type ResponsesOptions<'a> = EncodeOptions<'a>;

/// Builds the JSON body of a `POST /responses` call (the typed body of [`encode_body`], as a
/// value, the dialect's body hook applied).
///
/// ```
/// use dive_core::{Message, ModelRequest};
/// use dive_openai_wire::{Dialect, responses::{ResponsesOptions, encode_request}};
/// let dialect = Dialect::openai();
/// let body = encode_request(&ModelRequest::new(vec![Message::user("Hi")]).with_system("Be brief."),
///     &ResponsesOptions::new("gpt-4.1", &dialect));
/// assert_eq!(body["instructions"], "Be brief.");
/// assert_eq!(body["input"][0]["content"][0], serde_json::json!({"type": "input_text", "text": "Hi"}));
/// assert_eq!(body["store"], false);
/// ```
#[must_use]
pub fn encode_request(request: &ModelRequest, opts: &ResponsesOptions<'_>) -> Value {
    serde_json::to_value(encode_body(request, opts)).unwrap_or_default()
}

/// The typed body of a `POST /responses` call, its tools encoded here (a provider reuses its
/// cached tool list instead).
#[must_use]
pub fn encode_body<'a>(request: &'a ModelRequest, opts: &ResponsesOptions<'a>) -> Body<'a> {
    body(request, opts, encode_tool_list(&encode_tools(request)))
}

/// The body with `tools` (pre-encoded) and the dialect's hook applied.
pub(crate) fn body<'a>(
    request: &'a ModelRequest,
    opts: &ResponsesOptions<'a>,
    tools: Option<EncodedTools>,
) -> Body<'a> {
    let dialect = opts.dialect;
    let messages = dive_core::history_to_send(&request.messages, &dialect.reminders);
    // Chained on a stored response: only what follows the last assistant message is sent.
    let start = if crate::options::previous_response_id(request).is_some() {
        messages.iter().rposition(|m| m.role == Role::Assistant).map_or(0, |i| i + 1)
    } else {
        0
    };
    let typed = ResponsesBody {
        request,
        opts: *opts,
        model: request.model.as_deref().unwrap_or(opts.model),
        messages,
        start,
        tools: Body::tools_for(dialect, &tools),
    };
    match Body::Responses(typed).finish(request, dialect, tools) {
        Ok(done) => done,
        // A hook-edited body is built from the typed one, which always serializes.
        Err(_) => Body::Edited { fields: Map::new(), tools: None },
    }
}

/// The tools of a Responses body: function and native tools, then remote MCP servers.
pub(crate) fn encode_tools(request: &ModelRequest) -> Vec<Value> {
    let mut tools: Vec<Value> = request.tools.iter().map(encode_tool).collect();
    tools.extend(request.mcp_servers.iter().map(|s| {
        let mut t = Map::new();
        t.insert("type".into(), json!("mcp"));
        t.insert("server_label".into(), json!(s.name));
        if let Some(url) = &s.url {
            t.insert("server_url".into(), json!(url));
        }
        if !s.allowed_tools.is_empty() {
            t.insert("allowed_tools".into(), json!(s.allowed_tools));
        }
        if !s.headers.is_empty() {
            t.insert("headers".into(), json!(s.headers));
        }
        if let Some(token) = &s.authorization_token {
            t.insert("authorization".into(), json!(token.expose()));
        }
        t.insert("require_approval".into(), json!("never"));
        Value::Object(t)
    }));
    tools
}

/// A Responses API request body, serialized from the request it borrows.
pub struct ResponsesBody<'a> {
    request: &'a ModelRequest,
    opts: ResponsesOptions<'a>,
    model: &'a str,
    messages: Cow<'a, [Message]>,
    /// The first message sent (after the last assistant message when chained).
    start: usize,
    tools: Option<EncodedTools>,
}

impl fmt::Debug for ResponsesBody<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponsesBody")
            .field("model", &self.model)
            .field("messages", &(self.messages.len() - self.start))
            .finish()
    }
}

#[derive(Serialize)]
struct ReasoningOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    effort: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<&'a ReasoningSummary>,
}

#[derive(Serialize)]
struct TextOut {
    format: Value,
}

impl Serialize for ResponsesBody<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (request, dialect) = (self.request, self.opts.dialect);
        let mut top = TopLevel::new(s.serialize_map(None)?, &request.provider_options, dialect.unsupported);
        top.put("model", self.model)?;
        top.opt("instructions", request.system.as_deref().filter(|s| !s.is_empty()))?;
        top.put("input", &Input(&self.messages[self.start..]))?;
        top.opt("max_output_tokens", request.max_tokens.or(self.opts.max_tokens))?;
        let reasoning_model = (dialect.rejects_sampling)(self.model);
        // Reasoning models reject sampling parameters.
        if !reasoning_model {
            top.opt("temperature", request.temperature)?;
            top.opt("top_p", request.top_p)?;
        }
        if !request.tools.is_empty() || !request.mcp_servers.is_empty() {
            if let Some(tools) = &self.tools {
                top.put("tools", tools)?;
            }
            top.opt("tool_choice", request.tool_choice.as_ref().map(encode_tool_choice))?;
            top.opt("parallel_tool_calls", request.parallel_tool_calls)?;
        }
        let reasoning = request
            .reasoning
            .as_ref()
            .map(|r| ReasoningOut { effort: r.effort.map(|e| e.as_str()), summary: r.summary.as_ref() });
        let reasoning = reasoning.filter(|r| r.effort.is_some() || r.summary.is_some());
        let wants_reasoning = reasoning_model || reasoning.is_some();
        top.opt("reasoning", reasoning)?;
        let chained = crate::options::previous_response_id(request).is_some();
        let store = dialect.store || chained;
        top.put("store", &store)?;
        if !store && dialect.encrypted_reasoning && wants_reasoning {
            top.put("include", &["reasoning.encrypted_content"])?;
        }
        top.opt("text", request.response_format.as_ref().map(|f| TextOut { format: encode_format(f) }))?;
        top.opt("prompt_cache_key", crate::options::prompt_cache_key(request))?;
        top.opt("service_tier", crate::options::service_tier(request))?;
        top.opt("previous_response_id", crate::options::previous_response_id(request))?;
        if let Some(threshold) = crate::options::compact_threshold(request) {
            top.put("context_management", &[json!({"type": "compaction", "compact_threshold": threshold})])?;
        }
        if self.opts.stream {
            top.put("stream", &true)?;
        }
        top.end()
    }
}

/// The `input` array: each history message as its input items.
struct Input<'a>(&'a [Message]);

impl Serialize for Input<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for message in self.0 {
            encode_message(message, &mut |item| seq.serialize_element(&item))?;
        }
        seq.end()
    }
}

/// One input item.
#[derive(Serialize)]
#[serde(untagged)]
enum Item<'m> {
    Message(MessageItem<'m>),
    Output(OutputItem<'m>),
    Reasoning(ReasoningItem<'m>),
    Call(CallItem<'m>),
    Verbatim(&'m Value),
    Compaction(CompactionItem<'m>),
    Provider {
        #[serde(rename = "type")]
        kind: &'m str,
        #[serde(flatten)]
        fields: &'m Map<String, Value>,
    },
}

/// A compaction item replayed: its id and opaque content as received, nothing the server
/// added for display (`created_by`).
#[derive(Serialize)]
struct CompactionItem<'m> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'m Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    encrypted_content: Option<&'m Value>,
}

#[derive(Serialize)]
struct MessageItem<'m> {
    #[serde(rename = "type")]
    kind: &'static str,
    role: &'m str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'m Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
    content: MessageContent<'m>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phase: Option<&'m Value>,
}

impl<'m> MessageItem<'m> {
    fn new(role: &'m str, content: MessageContent<'m>) -> Self {
        Self { kind: "message", role, id: None, status: None, content, phase: None }
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum MessageContent<'m> {
    Text(Cow<'m, str>),
    Input(Vec<InPart<'m>>),
    Output(Vec<OutPart<'m>>),
}

/// An input content part (`input_text`, `input_image`, `input_file`).
#[derive(Serialize, Default)]
struct InPart<'m> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Cow<'m, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_id: Option<&'m str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    image_url: Option<Cow<'m, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<&'m str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_data: Option<Cow<'m, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_url: Option<&'m str>,
}

impl<'m> InPart<'m> {
    fn text(text: Cow<'m, str>) -> Self {
        Self { kind: "input_text", text: Some(text), ..Self::default() }
    }

    fn image(file_id: Option<&'m str>, image_url: Option<Cow<'m, str>>) -> Self {
        Self { kind: "input_image", detail: Some("auto"), file_id, image_url, ..Self::default() }
    }

    fn file() -> Self {
        Self { kind: "input_file", ..Self::default() }
    }
}

/// An output content part of a replayed assistant message (`output_text`, `refusal`).
#[derive(Serialize)]
struct OutPart<'m> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'m str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<Vec<Annotation<'m>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refusal: Option<&'m str>,
}

#[derive(Serialize)]
struct Annotation<'m> {
    #[serde(rename = "type")]
    kind: &'m str,
    #[serde(flatten)]
    fields: &'m Map<String, Value>,
}

#[derive(Serialize)]
struct OutputItem<'m> {
    #[serde(rename = "type")]
    kind: &'static str,
    call_id: &'m str,
    output: ResultOut<'m>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum ResultOut<'m> {
    Text(Cow<'m, str>),
    Parts(Vec<InPart<'m>>),
}

#[derive(Serialize)]
struct ReasoningItem<'m> {
    #[serde(rename = "type")]
    kind: &'static str,
    id: &'m str,
    summary: Summary<'m>,
    #[serde(skip_serializing_if = "Option::is_none")]
    encrypted_content: Option<&'m str>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Summary<'m> {
    Stored(&'m Value),
    Parts(Vec<SummaryText<'m>>),
}

#[derive(Serialize)]
struct SummaryText<'m> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'m str,
}

#[derive(Serialize)]
struct CallItem<'m> {
    #[serde(rename = "type")]
    kind: &'static str,
    call_id: &'m str,
    name: &'m str,
    arguments: Arguments<'m>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'m Value>,
}

fn encode_image(img: &ImageContent) -> Option<InPart<'_>> {
    match &img.source {
        MediaSource::File { file_id } => Some(InPart::image(Some(file_id), None)),
        source => media_url(source).map(|url| InPart::image(None, Some(url))),
    }
}

fn encode_document(doc: &DocumentContent) -> Option<InPart<'_>> {
    let filename = doc.title.as_deref().unwrap_or("document.pdf");
    match &doc.source {
        MediaSource::Base64 { .. } => {
            Some(InPart { filename: Some(filename), file_data: media_url(&doc.source), ..InPart::file() })
        }
        MediaSource::Url { url } => Some(InPart { file_url: Some(url), ..InPart::file() }),
        MediaSource::File { file_id } => Some(InPart { file_id: Some(file_id), ..InPart::file() }),
        MediaSource::Text { data, .. } => {
            let text = match &doc.title {
                Some(t) => Cow::Owned(format!("{t}\n\n{data}")),
                None => Cow::Borrowed(data.as_str()),
            };
            Some(InPart::text(text))
        }
        _ => None,
    }
}

fn encode_part(block: &Content) -> Option<InPart<'_>> {
    match block {
        Content::Text(t) => Some(InPart::text(Cow::Borrowed(&t.text))),
        Content::Image(img) => encode_image(img),
        Content::Document(doc) => encode_document(doc),
        Content::File(f) => {
            if f.media_type.as_deref().is_some_and(|m| m.starts_with("image/")) {
                Some(InPart::image(Some(&f.file_id), None))
            } else {
                Some(InPart { file_id: Some(&f.file_id), ..InPart::file() })
            }
        }
        Content::Reminder(r) => Some(InPart::text(Cow::Owned(r.render()))),
        _ => None,
    }
}

fn encode_result(result: &ToolResultContent) -> Item<'_> {
    let output = if has_media(result) {
        let mut parts: Vec<InPart<'_>> = result.content.iter().filter_map(encode_part).collect();
        if result.is_error {
            parts.insert(0, InPart::text(Cow::Borrowed("Error:")));
        }
        ResultOut::Parts(parts)
    } else {
        ResultOut::Text(result_text(result))
    };
    Item::Output(OutputItem { kind: "function_call_output", call_id: &result.tool_use_id, output })
}

fn encode_message<'m, E>(
    message: &'m Message,
    emit: &mut impl FnMut(Item<'m>) -> Result<(), E>,
) -> Result<(), E> {
    match &message.role {
        Role::Assistant => encode_assistant(message, emit),
        role @ (Role::System | Role::Developer) => {
            let text = message.text();
            if text.is_empty() {
                return Ok(());
            }
            emit(Item::Message(MessageItem::new(role.as_str(), MessageContent::Text(Cow::Owned(text)))))
        }
        role => {
            let mut parts = Vec::new();
            for block in &message.content {
                match block {
                    Content::ToolResult(r) => emit(encode_result(r))?,
                    other => parts.extend(encode_part(other)),
                }
            }
            if parts.is_empty() {
                return Ok(());
            }
            emit(Item::Message(MessageItem::new(role.as_str(), MessageContent::Input(parts))))
        }
    }
}

/// Output message content parts being grouped into one assistant message item.
#[derive(Default)]
struct PendingMessage<'m> {
    id: Option<&'m Value>,
    phase: Option<&'m Value>,
    parts: Vec<OutPart<'m>>,
    plain: String,
}

impl<'m> PendingMessage<'m> {
    fn flush<E>(&mut self, emit: &mut impl FnMut(Item<'m>) -> Result<(), E>) -> Result<(), E> {
        let pending = std::mem::take(self);
        if pending.parts.is_empty() {
            return Ok(());
        }
        let item = match pending.id {
            // An item the API produced: replayed as the output message it was.
            Some(id) => MessageItem {
                id: Some(id),
                status: Some("completed"),
                phase: pending.phase,
                ..MessageItem::new("assistant", MessageContent::Output(pending.parts))
            },
            // Text from elsewhere (another provider, an application): an easy input message.
            None => MessageItem {
                phase: pending.phase,
                ..MessageItem::new("assistant", MessageContent::Text(Cow::Owned(pending.plain)))
            },
        };
        emit(Item::Message(item))
    }
}

/// The citation kinds an `output_text` part can carry back.
const ANNOTATIONS: [&str; 4] = ["url_citation", "file_citation", "container_file_citation", "file_path"];

fn encode_assistant<'m, E>(
    message: &'m Message,
    emit: &mut impl FnMut(Item<'m>) -> Result<(), E>,
) -> Result<(), E> {
    let mut pending = PendingMessage::default();
    for block in &message.content {
        let (id, phase, part, plain) = match block {
            Content::Text(t) => {
                let annotations = t
                    .citations
                    .iter()
                    .filter(|c| ANNOTATIONS.contains(&c.kind.as_str()))
                    .map(|c| Annotation { kind: &c.kind, fields: &c.fields })
                    .collect();
                let part = OutPart {
                    kind: "output_text",
                    text: Some(&t.text),
                    annotations: Some(annotations),
                    refusal: None,
                };
                (meta(&t.metadata, "id"), meta(&t.metadata, "phase"), part, t.text.as_str())
            }
            Content::Refusal(r) => {
                let part =
                    OutPart { kind: "refusal", text: None, annotations: None, refusal: Some(&r.refusal) };
                (pending.id, pending.phase, part, r.refusal.as_str())
            }
            other => {
                pending.flush(emit)?;
                encode_assistant_item(other, emit)?;
                continue;
            }
        };
        if !pending.parts.is_empty() && (pending.id != id || pending.phase != phase) {
            pending.flush(emit)?;
        }
        pending.id = id;
        pending.phase = phase;
        pending.parts.push(part);
        pending.plain.push_str(plain);
    }
    pending.flush(emit)
}

fn encode_assistant_item<'m, E>(
    block: &'m Content,
    emit: &mut impl FnMut(Item<'m>) -> Result<(), E>,
) -> Result<(), E> {
    match block {
        Content::Thinking(t) => {
            // Only OpenAI reasoning items (with their id) can be replayed.
            let Some(id) = &t.id else { return Ok(()) };
            let summary = match meta(&t.metadata, "summary") {
                Some(parts) => Summary::Stored(parts),
                None if t.thinking.is_empty() => Summary::Parts(Vec::new()),
                None => Summary::Parts(vec![SummaryText { kind: "summary_text", text: &t.thinking }]),
            };
            emit(Item::Reasoning(ReasoningItem {
                kind: "reasoning",
                id,
                summary,
                encrypted_content: t.signature.as_deref(),
            }))
        }
        Content::ToolUse(call) => emit(Item::Call(CallItem {
            kind: "function_call",
            call_id: &call.id,
            name: &call.name,
            arguments: arguments(call),
            id: meta(&call.metadata, "id"),
        })),
        Content::ServerToolUse(s) => match s.fields.get("openai").and_then(|o| o.get("item")) {
            Some(item) => emit(Item::Verbatim(item)),
            None => Ok(()),
        },
        Content::ServerToolResult(r) => match r.fields.get("openai").and_then(|o| o.get("item")) {
            Some(item) => emit(Item::Verbatim(item)),
            None => Ok(()),
        },
        Content::Provider(p) if p.kind.starts_with("mcp_") => {
            emit(Item::Provider { kind: &p.kind, fields: &p.fields })
        }
        Content::Provider(p) if p.kind == "compaction" => emit(Item::Compaction(CompactionItem {
            kind: "compaction",
            id: p.fields.get("id"),
            encrypted_content: p.fields.get("encrypted_content"),
        })),
        _ => Ok(()),
    }
}

fn encode_tool(tool: &ToolDefinition) -> Value {
    if let Some(kind) = &tool.native_type {
        let mut t = tool.native_params.clone();
        t.insert("type".into(), json!(kind));
        return Value::Object(t);
    }
    // Function tools are strict by default on this API: say so explicitly either way.
    let strict = tool.strict == Some(true);
    let mut t = Map::new();
    t.insert("type".into(), json!("function"));
    t.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        t.insert("description".into(), json!(tool.description));
    }
    t.insert(
        "parameters".into(),
        if strict { strict_schema(&tool.input_schema) } else { tool.input_schema.clone() },
    );
    t.insert("strict".into(), json!(strict));
    Value::Object(t)
}

/// `tool_choice`: a mode string, or the one function to call.
#[derive(Serialize)]
#[serde(untagged)]
enum ChoiceOut<'a> {
    Mode(&'static str),
    Function {
        #[serde(rename = "type")]
        kind: &'static str,
        name: &'a str,
    },
}

fn encode_tool_choice(choice: &ToolChoice) -> ChoiceOut<'_> {
    match choice {
        ToolChoice::Any => ChoiceOut::Mode("required"),
        ToolChoice::None => ChoiceOut::Mode("none"),
        ToolChoice::Tool { name } => ChoiceOut::Function { kind: "function", name },
        _ => ChoiceOut::Mode("auto"),
    }
}

fn encode_format(format: &ResponseFormat) -> Value {
    match format {
        ResponseFormat::JsonObject => json!({"type": "json_object"}),
        ResponseFormat::JsonSchema { name, schema, description, strict } => {
            let mut spec = json_schema_spec(name, schema, description.as_ref(), *strict);
            spec.insert("type".into(), json!("json_schema"));
            Value::Object(spec)
        }
        _ => json!({"type": "text"}),
    }
}
