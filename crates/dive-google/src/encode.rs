//! [`ModelRequest`] → the typed `generateContent` [`Body`].
//!
//! Every request first gets [`answer_unanswered_tool_calls`] (a backstop for broken
//! histories) and reminders rendered as user text (Gemini has no system role inside
//! `contents`); the stored history is never changed. [`GeminiOptions`] set Gemini-only
//! fields; free-form `provider_options` go to the top level of the body, except
//! `generationConfig` and `toolConfig`, which merge into ours key by key.
//!
//! Function results: Gemini's `functionResponse` carries the function *name*, not a call id.
//! Each result finds its call by `tool_use_id` among the model turns before it, takes that
//! call's name, and results are sent in the order of their calls (name + order is how Gemini
//! pairs them). The responses go in a `user` content of their own; any other block of the same
//! message (text, images) follows in a second `user` content.

use std::borrow::Cow;
use std::collections::HashMap;

use dive_core::{
    Content, MediaSource, Message, ModelRequest, ReasoningEffort, ReminderStyle, ResponseFormat, Role,
    ThinkingDisplay, ThinkingMode, ToolChoice, ToolDefinition, ToolResultContent, ToolUse, history_to_send,
};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::GeminiOptions;
use crate::body::{
    Body, CallOut, FileData, FunctionCallingConfig, FunctionDeclaration, GenerationConfig, InlineData,
    Instruction, PartOut, Request, ResponseOut, ResultText, TextOnly, ThinkingConfig, ToolConfig, Tools,
    WireContent, WirePart,
};
use crate::catalog::{ThinkingControl, model_info, supports_multimodal_function_response, thinking_control};
use crate::meta::{GOOGLE, call_id_from_api, signature};
use crate::schema::{SchemaError, convert_schema};

/// Settings of the provider that shape every body.
#[derive(Debug, Clone)]
pub(crate) struct EncodeOptions<'a> {
    /// The model of this call (`models/` prefix removed).
    pub model: &'a str,
    pub max_tokens: u32,
    /// Prefix that turns a Files API name (`files/abc`) into the URI Gemini expects.
    pub files_base: String,
    /// The tool list ([`encode_tools`]), encoded once per list.
    pub tools: Option<dive_provider::EncodedTools>,
}

/// Builds the body of a `generateContent` / `streamGenerateContent` call.
pub(crate) fn encode_request<'a>(
    request: &'a ModelRequest,
    opts: EncodeOptions<'a>,
) -> Result<Body<'a>, SchemaError> {
    let model = opts.model;
    let options = request.options.get::<GeminiOptions>();
    let messages = history_to_send(&request.messages, &ReminderStyle::UserText);
    let contents = Contents {
        messages,
        files_base: opts.files_base,
        multimodal_results: supports_multimodal_function_response(model),
    };
    let system_instruction = request
        .system
        .as_deref()
        .filter(|s| !s.is_empty())
        .map(|text| Instruction { parts: [TextOnly { text }] });
    let tools = opts.tools;
    let mut calling = encode_tool_choice(request.tool_choice.as_ref());
    if options.is_some_and(|o| o.stream_function_call_arguments) {
        calling.get_or_insert_with(FunctionCallingConfig::default).stream_function_call_arguments =
            Some(true);
    }
    let generation_config = generation_config(request, model, opts.max_tokens, options)?;
    Ok(Body {
        request: Request {
            contents,
            system_instruction,
            tools,
            tool_config: calling.map(|function_calling_config| ToolConfig { function_calling_config }),
            generation_config,
            safety_settings: options.map_or(&[], |o| &o.safety_settings),
            cached_content: options.and_then(|o| o.cached_content.as_deref()),
        },
        extra: &request.provider_options,
    })
}

fn generation_config<'a>(
    request: &'a ModelRequest,
    model: &str,
    max_tokens: u32,
    options: Option<&GeminiOptions>,
) -> Result<GenerationConfig<'a>, SchemaError> {
    let (response_mime_type, response_json_schema) = match &request.response_format {
        Some(ResponseFormat::JsonSchema { schema, .. }) => {
            (Some("application/json"), Some(convert_schema(schema)?))
        }
        Some(ResponseFormat::JsonObject) => (Some("application/json"), None),
        _ => (None, None),
    };
    Ok(GenerationConfig {
        max_output_tokens: request.max_tokens.unwrap_or(max_tokens),
        temperature: request.temperature,
        top_p: request.top_p,
        presence_penalty: request.presence_penalty,
        frequency_penalty: request.frequency_penalty,
        stop_sequences: &request.stop_sequences,
        seed: options.and_then(|o| o.seed),
        thinking_config: thinking_config(request, model),
        response_mime_type,
        response_json_schema,
    })
}

/// `thinkingConfig` from the request's reasoning settings (see the providers guide for the
/// effort → level / budget table).
fn thinking_config(request: &ModelRequest, model: &str) -> Option<ThinkingConfig> {
    let reasoning = request.reasoning.as_ref()?;
    let mut config = ThinkingConfig {
        include_thoughts: reasoning.display != Some(ThinkingDisplay::Omitted),
        ..ThinkingConfig::default()
    };
    let disabled = reasoning.thinking == Some(ThinkingMode::Disabled);
    match thinking_control(model) {
        ThinkingControl::Level => {
            if let Some(budget) = reasoning.budget_tokens {
                // Gemini 3 still takes a budget, for code written against 2.5.
                config.thinking_budget = Some(i64::from(budget));
            } else if disabled {
                config.thinking_level = Some("MINIMAL");
            } else if let Some(effort) = reasoning.effort {
                let supported = model_info(model).map(|m| m.reasoning_efforts.as_ref()).unwrap_or(&[]);
                let effort = if effort == ReasoningEffort::None { ReasoningEffort::Minimal } else { effort };
                let clamped = if supported.is_empty() { Some(effort) } else { effort.clamp_to(supported) };
                config.thinking_level = clamped.and_then(level_name);
            }
        }
        ThinkingControl::Budget { min, max, can_disable } => {
            config.thinking_budget = if disabled || reasoning.effort == Some(ReasoningEffort::None) {
                Some(if can_disable { 0 } else { i64::from(min) })
            } else if let Some(b) = reasoning.budget_tokens {
                Some(i64::from(b.clamp(min, max)))
            } else if reasoning.thinking == Some(ThinkingMode::Adaptive) {
                Some(-1)
            } else {
                reasoning.effort.map(|e| i64::from(effort_budget(e).clamp(min, max)))
            };
        }
    }
    Some(config)
}

fn level_name(effort: ReasoningEffort) -> Option<&'static str> {
    Some(match effort {
        ReasoningEffort::None | ReasoningEffort::Minimal => "MINIMAL",
        ReasoningEffort::Low => "LOW",
        ReasoningEffort::Medium => "MEDIUM",
        ReasoningEffort::High => "HIGH",
        ReasoningEffort::Xhigh | ReasoningEffort::Max => "XHIGH",
        _ => return None,
    })
}

/// The thinking budget an effort stands for on budget-controlled (2.5) models.
fn effort_budget(effort: ReasoningEffort) -> u32 {
    match effort {
        ReasoningEffort::None => 0,
        ReasoningEffort::Minimal => 512,
        ReasoningEffort::Low => 1_024,
        ReasoningEffort::Medium => 8_192,
        ReasoningEffort::High => 24_576,
        _ => 32_768,
    }
}

/// The `tools` array of a request: its functions with their schemas converted to Gemini's
/// dialect (empty when the request has no tools).
///
/// # Errors
/// A schema keyword Gemini cannot take, naming the tool.
pub(crate) fn encode_tools(request: &ModelRequest) -> Result<Vec<Tools<'_>>, SchemaError> {
    if request.tools.is_empty() {
        return Ok(Vec::new());
    }
    let declarations = request.tools.iter().map(encode_tool).collect::<Result<Vec<_>, _>>()?;
    Ok(vec![Tools { function_declarations: declarations }])
}

fn encode_tool(tool: &ToolDefinition) -> Result<FunctionDeclaration<'_>, SchemaError> {
    let schema = convert_schema(&tool.input_schema).map_err(|mut e| {
        e.tool = Some(tool.name.clone());
        e
    })?;
    // A function without parameters sends no schema at all.
    let empty = schema.get("properties").is_none_or(|p| p.as_object().is_some_and(Map::is_empty))
        && schema.as_object().is_some_and(|s| s.keys().all(|k| matches!(k.as_str(), "type" | "properties")));
    Ok(FunctionDeclaration {
        name: &tool.name,
        description: &tool.description,
        parameters_json_schema: (!empty).then_some(schema),
    })
}

fn encode_tool_choice(choice: Option<&ToolChoice>) -> Option<FunctionCallingConfig<'_>> {
    let mode = |mode| FunctionCallingConfig { mode: Some(mode), ..FunctionCallingConfig::default() };
    Some(match choice? {
        ToolChoice::Auto => mode("AUTO"),
        ToolChoice::Any => mode("ANY"),
        ToolChoice::None => mode("NONE"),
        ToolChoice::Tool { name } => {
            FunctionCallingConfig { allowed_function_names: Some([name.as_str()]), ..mode("ANY") }
        }
        // A choice added to dive-core after this encoder: let the model decide.
        _ => mode("AUTO"),
    })
}

/// `contents`: the history, written part by part when the body is serialized.
#[derive(Debug)]
pub(crate) struct Contents<'a> {
    messages: Cow<'a, [Message]>,
    files_base: String,
    multimodal_results: bool,
}

impl Serialize for Contents<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let ctx = Ctx {
            files_base: &self.files_base,
            calls: index_calls(&self.messages),
            multimodal_results: self.multimodal_results,
        };
        let mut contents = Vec::with_capacity(self.messages.len());
        for message in self.messages.iter() {
            encode_message(message, &ctx, &mut contents);
        }
        contents.serialize(s)
    }
}

/// A call as its results need it: function name, position among its turn's calls, and the
/// id to echo when Gemini gave one.
type CallRef<'b> = (&'b str, usize, Option<&'b str>);

/// What every message needs to know about the rest of the history.
struct Ctx<'b> {
    files_base: &'b str,
    calls: HashMap<&'b str, CallRef<'b>>,
    multimodal_results: bool,
}

fn index_calls(messages: &[Message]) -> HashMap<&str, CallRef<'_>> {
    let mut calls = HashMap::new();
    for message in messages.iter().filter(|m| m.role == Role::Assistant) {
        for (i, call) in message.tool_uses().enumerate() {
            let echo = call_id_from_api(call).then_some(call.id.as_str());
            calls.insert(call.id.as_str(), (call.name.as_str(), i, echo));
        }
    }
    calls
}

fn encode_message<'b>(message: &'b Message, ctx: &Ctx<'b>, contents: &mut Vec<WireContent<'b>>) {
    let model = message.role == Role::Assistant;
    let mut results: Vec<(usize, &ToolResultContent)> = Vec::new();
    let mut parts = Vec::new();
    for block in &message.content {
        match block {
            Content::ToolResult(r) if !model => {
                results.push((ctx.calls.get(r.tool_use_id.as_str()).map_or(usize::MAX, |c| c.1), r));
            }
            other => parts.extend(encode_part(other, model, ctx)),
        }
    }
    if !results.is_empty() {
        results.sort_by_key(|(order, _)| *order);
        let mut lifted = Vec::new();
        let responses: Vec<WirePart<'b>> =
            results.iter().map(|(_, r)| function_response(r, ctx, &mut lifted)).collect();
        contents.push(WireContent { role: "user", parts: responses });
        lifted.append(&mut parts);
        parts = lifted;
    }
    if !parts.is_empty() {
        contents.push(WireContent { role: if model { "model" } else { "user" }, parts });
    }
}

fn function_response<'b>(
    result: &'b ToolResultContent,
    ctx: &Ctx<'b>,
    lifted: &mut Vec<WirePart<'b>>,
) -> WirePart<'b> {
    let (name, id) = match ctx.calls.get(result.tool_use_id.as_str()) {
        Some((name, _, id)) => (*name, *id),
        // An orphan result (its call was trimmed from the history): its id is all we have.
        None => (result.tool_use_id.as_str(), None),
    };
    let text = result.text_content();
    let response = if result.is_error { ResultText::Error(text) } else { ResultText::Output(text) };
    let mut media: Vec<WirePart<'b>> = result
        .content
        .iter()
        .filter(|c| matches!(c, Content::Image(_) | Content::Document(_) | Content::File(_)))
        .filter_map(|c| encode_part(c, false, ctx))
        .collect();
    if !media.is_empty() && !ctx.multimodal_results {
        lifted.push(PartOut::text(format!("Media returned by the `{name}` function call:")));
        lifted.append(&mut media);
    }
    let response = ResponseOut { name, response, id, parts: media };
    WirePart::Typed(PartOut { function_response: Some(response), ..PartOut::default() })
}

/// The thought signature a model part replays.
fn replayed(meta: &Map<String, Value>, model: bool) -> Option<&str> {
    if model { signature(meta) } else { None }
}

/// One part on the wire, or `None` for blocks Gemini cannot take (another provider's
/// reasoning or server tools, empty text).
fn encode_part<'b>(block: &'b Content, model: bool, ctx: &Ctx<'b>) -> Option<WirePart<'b>> {
    Some(match block {
        Content::Text(t) => {
            if t.text.is_empty() && (!model || signature(&t.metadata).is_none()) {
                return None;
            }
            let thought_signature = replayed(&t.metadata, model);
            WirePart::Typed(PartOut {
                text: Some(Cow::Borrowed(&t.text)),
                thought_signature,
                ..PartOut::default()
            })
        }
        Content::Image(i) => media_part(&i.source, None, ctx)?,
        Content::Document(d) => match &d.source {
            MediaSource::Text { data, .. } => match &d.title {
                Some(title) => PartOut::text(format!("{title}\n\n{data}")),
                None => PartOut::text(data.as_str()),
            },
            source => media_part(source, Some("application/pdf"), ctx)?,
        },
        Content::File(f) => file_data(&f.file_id, f.media_type.as_deref(), ctx),
        Content::ToolUse(t) => encode_call(t, model),
        Content::Thinking(t) if model && t.metadata.contains_key(GOOGLE) => WirePart::Typed(PartOut {
            text: Some(Cow::Borrowed(&t.thinking)),
            thought: Some(true),
            thought_signature: replayed(&t.metadata, model),
            ..PartOut::default()
        }),
        Content::Refusal(r) if model && !r.refusal.is_empty() => PartOut::text(r.refusal.as_str()),
        Content::Reminder(r) => PartOut::text(r.render()),
        Content::ToolResult(r) => PartOut::text(r.text_content()),
        Content::Unknown(u) if u.kind() == Some(crate::meta::PART_KIND) => {
            WirePart::Verbatim(u.raw.get("part")?)
        }
        _ => return None,
    })
}

fn encode_call(t: &ToolUse, model: bool) -> WirePart<'_> {
    let args =
        if t.input.is_object() { Cow::Borrowed(&*t.input) } else { Cow::Owned(Value::Object(Map::new())) };
    let id = call_id_from_api(t).then_some(t.id.as_str());
    WirePart::Typed(PartOut {
        function_call: Some(CallOut { name: &t.name, args, id }),
        thought_signature: replayed(&t.metadata, model),
        ..PartOut::default()
    })
}

fn media_part<'b>(
    source: &'b MediaSource,
    default_type: Option<&'b str>,
    ctx: &Ctx<'b>,
) -> Option<WirePart<'b>> {
    Some(match source {
        MediaSource::Base64 { media_type, data } => WirePart::Typed(PartOut {
            inline_data: Some(InlineData { mime_type: media_type, data }),
            ..PartOut::default()
        }),
        MediaSource::Url { url } => {
            let mime_type = guess_media_type(url).or(default_type);
            let file = FileData { file_uri: Cow::Borrowed(url), mime_type };
            WirePart::Typed(PartOut { file_data: Some(file), ..PartOut::default() })
        }
        MediaSource::File { file_id } => file_data(file_id, default_type, ctx),
        MediaSource::Text { data, .. } => PartOut::text(data.as_str()),
        _ => return None,
    })
}

fn file_data<'b>(file_id: &'b str, media_type: Option<&'b str>, ctx: &Ctx<'b>) -> WirePart<'b> {
    let file_uri = if file_id.starts_with("files/") {
        Cow::Owned(format!("{}/{file_id}", ctx.files_base))
    } else {
        Cow::Borrowed(file_id)
    };
    let mime_type = media_type.or_else(|| guess_media_type(file_id));
    WirePart::Typed(PartOut { file_data: Some(FileData { file_uri, mime_type }), ..PartOut::default() })
}

/// The MIME type of a URL from its extension, for the common media Gemini takes.
fn guess_media_type(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "gif" => "image/gif",
        "heic" => "image/heic",
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        "md" => "text/markdown",
        "html" => "text/html",
        "csv" => "text/csv",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "mp4" => "video/mp4",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_from_urls() {
        assert_eq!(guess_media_type("https://x/a.PDF?sig=1"), Some("application/pdf"));
        assert_eq!(guess_media_type("gs://b/c.jpeg"), Some("image/jpeg"));
        assert_eq!(guess_media_type("https://x/noext"), None);
    }

    #[test]
    fn effort_maps_to_levels_and_budgets() {
        let req = |e| ModelRequest::new(vec![]).with_reasoning(dive_core::Reasoning::effort(e));
        let cfg = |r: &ModelRequest, m| serde_json::to_value(thinking_config(r, m).unwrap()).unwrap();
        assert_eq!(cfg(&req(ReasoningEffort::Medium), "gemini-3-pro-preview")["thinkingLevel"], "LOW");
        assert_eq!(cfg(&req(ReasoningEffort::Medium), "gemini-3.5-flash")["thinkingLevel"], "MEDIUM");
        assert_eq!(cfg(&req(ReasoningEffort::None), "gemini-3.5-flash")["thinkingLevel"], "MINIMAL");
        assert_eq!(cfg(&req(ReasoningEffort::None), "gemini-2.5-flash")["thinkingBudget"], 0);
        assert_eq!(cfg(&req(ReasoningEffort::None), "gemini-2.5-pro")["thinkingBudget"], 128);
        assert_eq!(cfg(&req(ReasoningEffort::Max), "gemini-2.5-flash")["thinkingBudget"], 24_576);
        let adaptive = ModelRequest::new(vec![]).with_reasoning(dive_core::Reasoning::adaptive());
        assert_eq!(cfg(&adaptive, "gemini-2.5-flash")["thinkingBudget"], -1);
        assert_eq!(cfg(&adaptive, "gemini-2.5-flash")["includeThoughts"], true);
    }
}
